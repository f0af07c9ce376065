// Agreement on real traces: `concertina simulate --grid single:N --queue fcfs|easy|cbf` gives every job the start time
// the textbook reference simulator (test/support/reference-backfill.ts, no code shared with core/) gives it, on the
// Batsim medium_late workload (32 processors), the first 3,000 jobs of HPC2N (240) and NASA iPSC (128). Each run also
// prints its summary beside the reference's: `npx vitest run test/integration/backfill-agreement.test.ts`.
// The traces live outside the repository (../shared/traces); without them the test skips and says why. `cbf` runs
// once the queue policy of that name is registered.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { queuePolicy } from '../../core/queue/registry.js';
import { readSwfFile, simulate, summarize, type ReferencePolicy } from '../support/reference-backfill.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.join(repoRoot, 'bin', 'concertina.js');
const traces = path.resolve(repoRoot, '..', 'shared', 'traces');
const out = mkdtempSync(path.join(tmpdir(), 'concertina-agreement-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const CASES = [
  { trace: 'batsim-medium_late-32.swf.gz', processors: 32, maxJobs: undefined },
  { trace: 'HPC2N-2002-prefix3170.swf.gz', processors: 240, maxJobs: 3000 },
  { trace: 'NASA-iPSC-1993-3.1-cln.swf.gz', processors: 128, maxJobs: undefined },
] as const;

const POLICIES: readonly ReferencePolicy[] = ['fcfs', 'easy', 'cbf'];

interface ConcertinaJob {
  start: number;
  state: string;
}

/** Runs the command line and reads back its summary and each job's start. */
function concertina(
  file: string,
  processors: number,
  policy: string,
  maxJobs: number | undefined,
): { summary: Record<string, number>; jobs: Map<string, ConcertinaJob> } {
  const dir = path.join(out, `${path.basename(file)}-${policy}`);
  const args = [
    bin,
    'simulate',
    '--grid',
    `single:${processors}`,
    '--workload',
    file,
    '--queue',
    policy,
    '--json',
    '--out',
    dir,
  ];
  if (maxJobs !== undefined) args.push('--max-jobs', String(maxJobs));
  const r = spawnSync(process.execPath, args, { cwd: repoRoot, encoding: 'utf8', timeout: 300_000 });
  if (r.error) throw r.error;
  expect(r.status, r.stderr).toBe(0);
  const summary = JSON.parse(r.stdout.trim().split('\n')[0]!) as Record<string, number>;
  const [header, ...rows] = readFileSync(path.join(dir, 'jobs.csv'), 'utf8').trim().split('\n');
  const column = header!.split(',');
  const [id, start, state] = ['id', 'start', 'state'].map((k) => column.indexOf(k)) as [number, number, number];
  const jobs = new Map(
    rows.map((row) => {
      const f = row.split(',');
      return [f[id]!, { start: Number(f[start]), state: f[state]! }] as const;
    }),
  );
  return { summary, jobs };
}

const figures = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(4));

for (const c of CASES) {
  const file = path.join(traces, c.trace);
  const present = existsSync(file);
  describe(`${c.trace} on single:${c.processors}${c.maxJobs === undefined ? '' : `, first ${c.maxJobs} jobs`}`, () => {
    if (!present) {
      console.warn(`backfill-agreement: skipping ${c.trace}: ${file} is absent`);
      it.skip(`skipped: ${file} is absent (the shared traces are not part of the repository)`, () => {});
      return;
    }
    for (const policy of POLICIES) {
      const known = queuePolicy(policy) !== undefined;
      const title = `${policy}: every job starts when the reference starts it; the summaries agree`;
      if (!known) {
        console.warn(
          `backfill-agreement: skipping ${policy} on ${c.trace}: no queue policy named "${policy}" is registered yet`,
        );
        it.skip(`${title} — skipped: no queue policy named "${policy}" is registered yet (core/queue/registry.ts)`, () => {});
        continue;
      }
      it(title, () => {
        const reference = simulate(readSwfFile(file, c.maxJobs), c.processors, policy);
        expect(reference.rejected).toEqual([]);
        const ran = concertina(file, c.processors, policy, c.maxJobs);
        expect(ran.jobs.size).toBe(reference.jobs.length);
        const disagreements: string[] = [];
        for (const job of reference.jobs) {
          const theirs = ran.jobs.get(job.id);
          const state = job.killed ? 'failed' : 'completed';
          if (theirs === undefined || Math.abs(theirs.start - job.start) > 1e-6 || theirs.state !== state) {
            disagreements.push(
              `${job.id} (submitted ${job.submit}): reference starts it at ${job.start} (${state}), concertina at ${theirs?.start} (${theirs?.state})`,
            );
          }
        }
        expect(disagreements.slice(0, 10), `${disagreements.length} of ${reference.jobs.length} jobs disagree`).toEqual(
          [],
        );

        // Concertina's summary averages over completed jobs (those not killed at their walltime).
        const s = summarize(reference);
        expect(ran.summary['mean_wait_s']).toBeCloseTo(s.completedMeanWaitS, 6);
        expect(ran.summary['mean_bounded_slowdown']).toBeCloseTo(s.completedMeanBoundedSlowdown, 6);
        expect(ran.summary['makespan_s']).toBeCloseTo(s.makespanS, 6);
        console.log(
          `${c.trace} single:${c.processors} ${policy}: all ${s.jobs} jobs: mean wait ${figures(s.meanWaitS)} s, mean bounded slowdown ${figures(s.meanBoundedSlowdown)}, ` +
            `makespan ${figures(s.makespanS)} s; the ${s.jobs - s.killed} not killed (concertina's summary): mean wait ${figures(s.completedMeanWaitS)} s, ` +
            `mean bounded slowdown ${figures(s.completedMeanBoundedSlowdown)}`,
        );
      });
    }
  });
}
