// The end of a failed job's standard error as read from the cluster: bounded in bytes and lines, its first partial
// line dropped when the file is longer, and nothing in it that could drive a terminal.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTail, tailCommand, TAIL_BYTES, TAIL_LINES } from '../../../runners/managers/output-tail.js';
import { LocalRunner } from '../../../runners/shell/local-runner.js';

let root: string;
let runner: LocalRunner;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "cnc tail '"));
  runner = new LocalRunner({ cwd: root });
});
afterAll(async () => {
  await runner.close();
  rmSync(root, { recursive: true, force: true });
});

const tailOf = async (file: string) => parseTail((await runner.run(tailCommand(file).text)).stdout);

describe('a job’s standard error tail', () => {
  it('is the whole of a short file, escapes and control characters stripped', async () => {
    const file = path.join(root, 'short $(touch pwned).err');
    writeFileSync(
      file,
      'sh: 1: /apps/ft-demo.mjs 400: not found\n\u001b[31mred\u001b[0m\u0007 and a title\u001b]0;owned\u0007\r\n',
    );
    expect(await tailOf(file)).toBe('sh: 1: /apps/ft-demo.mjs 400: not found\nred and a title');
  });

  it('keeps the last lines of a long file, whole lines only, within its bounds', async () => {
    const file = path.join(root, 'long.err');
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i} ${'é'.repeat(i % 7)}.`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const tail = (await tailOf(file))!;
    expect(tail.split('\n')).toEqual(lines.slice(-TAIL_LINES));
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(TAIL_BYTES);
  });

  it('drops the partial first line of a file cut inside a line', async () => {
    const file = path.join(root, 'one-long-line.err');
    writeFileSync(file, `${'x'.repeat(TAIL_BYTES * 2)}\nthe error\n`);
    expect(await tailOf(file)).toBe('the error');
  });

  it('is undefined for a file that is not there, and empty for an empty one', async () => {
    expect(await tailOf(path.join(root, 'missing.err'))).toBeUndefined();
    writeFileSync(path.join(root, 'empty.err'), '');
    expect(await tailOf(path.join(root, 'empty.err'))).toBe('');
  });
});
