// `simulate --out` writes its tables a chunk at a time (issue 17): never a long run's rows or text whole, and the same
// bytes as the whole-text writer.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toCsv, writeCsv, type CsvValue } from '../../electron/cli/export.js';
import { simulate } from '../../core/sim/simulate.js';
import { singleCluster } from '../../core/sim/grids.js';
import { gridSpecSchema } from '../../core/model/schemas.js';
import { parseSwf } from '../../core/sim/workloads/swf.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'concertina-csv-export-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HEADER = ['id', 'note', 'value'];
/** Rows with every kind of cell: quoted text, a formula-like one, numbers, empty cells. */
function row(i: number): CsvValue[] {
  return [`job-${i}`, i % 7 === 0 ? `say "hi", ${i}` : i % 11 === 0 ? `=SUM(${i})` : 'plain', i % 5 ? i / 3 : null];
}

describe('writeCsv', () => {
  it('writes what toCsv makes, byte for byte, over many chunks', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => row(i));
    const file = await writeCsv(tmp, 'many.csv', HEADER, rows);
    const written = readFileSync(file, 'utf8');
    expect(written.length).toBeGreaterThan(4 * 65_536);
    expect(written).toBe(toCsv(HEADER, rows));
  });

  it('writes the header alone for no rows', async () => {
    const file = await writeCsv(tmp, 'none.csv', HEADER, []);
    expect(readFileSync(file, 'utf8')).toBe('id,note,value\n');
  });

  it('writes while the rows are still being made, never holding them all', async () => {
    const file = path.join(tmp, 'streamed.csv');
    let sizeSeenMidway = -1;
    function* rows(): Generator<CsvValue[]> {
      for (let i = 0; i < 20_000; i++) {
        if (i === 15_000) sizeSeenMidway = statSync(file).size;
        yield row(i);
      }
    }
    await writeCsv(tmp, 'streamed.csv', HEADER, rows());
    // Three quarters of the rows made: most of their text is on disk already.
    expect(sizeSeenMidway).toBeGreaterThan(statSync(file).size / 2);
  });

  it('names the file it cannot write', async () => {
    await expect(writeCsv(path.join(tmp, 'missing-dir'), 'x.csv', HEADER, [])).rejects.toThrow(
      /missing-dir\/x\.csv: cannot write \(no such file or directory\)/,
    );
  });
});

describe("a run's jobRows", () => {
  it('are its jobs, in the same order, made one at a time', () => {
    // 30 jobs of 1 to 4 processors on 8: some wait, some are backfilled.
    const swf = Array.from(
      { length: 30 },
      (_, i) =>
        `${i + 1} ${5 * i} -1 ${100 + 10 * i} ${1 + (i % 4)} -1 -1 ${1 + (i % 4)} 400 -1 1 -1 -1 -1 -1 -1 -1 -1`,
    ).join('\n');
    const parsed = parseSwf(swf, 'thirty.swf', { strict: true });
    if (!parsed.ok) throw new Error(parsed.errors[0]!.message);
    const outcome = simulate({
      grid: gridSpecSchema.parse(singleCluster(8)),
      jobs: parsed.value.jobs,
      seed: 1,
      scheduler: { queue: 'easy' },
    });
    const rows = outcome.jobRows();
    expect(Array.isArray(rows)).toBe(false);
    expect([...rows]).toEqual(outcome.jobs);
    expect(outcome.jobs.map((j) => j.id)).toHaveLength(30);
  });
});
