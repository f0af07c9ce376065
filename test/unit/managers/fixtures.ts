// Recorded outputs of the batch systems' commands (test/fixtures/managers, README there says how each was made).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const fixturesDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'fixtures',
  'managers',
);

export const fixture = (name: string): string => readFileSync(path.join(fixturesDir, name), 'utf8');

/** The nonce the Slurm fixtures were recorded with. */
export const RECORDED_NONCE = 'f00dfeedcafe1234';

/** A status round's sections as the adapter would get them from a successful run. */
export const sections = (entries: Record<string, string>) =>
  new Map(Object.entries(entries).map(([name, text]) => [name, { text, code: 0, stderr: '' }]));
