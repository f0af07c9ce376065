// The bundle of the simulate path (dist/cli/simulate.cjs, scripts/bundle-cli.mjs) is ASCII: V8 keeps a script with a
// single character past Latin-1 as two bytes per character, which cost 1.4 MiB of a one-job run's peak (issue 17).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bundle = path.join(repoRoot, 'dist', 'cli', 'simulate.cjs');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'concertina-bundle-source-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.skipIf(!existsSync(bundle))('the bundle of the simulate path', () => {
  it('is ASCII only', () => {
    const bytes = readFileSync(bundle);
    const at = bytes.findIndex((b) => b > 0x7f);
    expect(at === -1 ? 'ASCII' : `byte 0x${bytes[at]!.toString(16)} at ${at}`).toBe('ASCII');
  });

  it('still says what its messages say past ASCII (the escapes mean the same characters)', { timeout: 60_000 }, () => {
    // An interactive job's deadline over its period is refused with "D ≤ T", a message written with a non-ASCII sign.
    const jobs = path.join(tmp, 'jobs.json');
    writeFileSync(
      jobs,
      JSON.stringify([{ kind: 'interactive', interactive: { periodMs: 10, dataUnits: 1, deadlineMs: 20 } }]),
    );
    const r = spawnSync(
      process.execPath,
      ['bin/concertina.js', 'simulate', '--grid', 'single:4', '--workload', jobs, '--json'],
      {
        cwd: repoRoot,
        encoding: 'utf8',
      },
    );
    expect(r.stderr).toContain('D ≤ T');
  });
});
