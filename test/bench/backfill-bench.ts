// Bench figures of the backfilling queue policies: NASA iPSC under EASY (128 processors), HPC2N's first 3,000 jobs
// under CBF (240 processors), and scheduling passes with 10,000 waiting jobs under CBF on 50 clusters: the first pass
// that plans them all, an ordinary pass (one job arrives; promises kept: nothing freed), and a full re-plan (a job on
// every cluster ended before its walltime: every reservation is compressed). Part of `npm run bench`;
// `node dist/test/bench/backfill-bench.js [nasa|hpc2n|pass]` prints its figures alone.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildGrid } from '../../core/model/grid.js';
import { gridSpecSchema, jobSpecSchema, type JobSpec } from '../../core/model/schemas.js';
import type { ApplicationPort, LocalManager } from '../../core/ports.js';
import { Random } from '../../core/random.js';
import { Scheduler } from '../../core/scheduler/scheduler.js';
import { simulate } from '../../core/sim/simulate.js';
import { parseSwf } from '../../core/sim/workloads/swf.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const tracesDir = path.resolve(repoRoot, '..', 'shared', 'traces');
const round = (x: number, digits = 2) => Number(x.toFixed(digits));

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function timed<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

type TraceRun =
  | { seconds: number; cpu_s: number; jobs: number; mean_wait_s: number; backfilled: number }
  | { skipped_reason: string };

/** Simulates a trace (its first `maxJobs` jobs) on one cluster under a queue policy: the median of 3 runs. */
function trace(
  file: string,
  processors: number,
  queue: 'easy' | 'cbf',
  log: (m: string) => void,
  maxJobs?: number,
): TraceRun {
  const full = path.join(tracesDir, file);
  if (!existsSync(full)) {
    const reason = `${full} not found: the figure is skipped`;
    log(reason);
    return { skipped_reason: reason };
  }
  const parsed = parseSwf(
    gunzipSync(readFileSync(full)).toString('utf8'),
    full,
    maxJobs === undefined ? {} : { maxJobs },
  );
  if (!parsed.ok) throw new Error(`${file} did not parse`);
  const jobs = parsed.value.jobs;
  const grid = gridSpecSchema.parse({ name: 'single', clusters: [{ name: 'single', processors }] });
  const runs: number[] = [];
  // The process's CPU time too (user + system): on a shared machine the wall time measures the others as well.
  const cpus: number[] = [];
  let summary = { mean_wait_s: 0, backfilled: 0 };
  for (let i = 0; i < 3; i++) {
    const cpu = process.cpuUsage();
    const r = timed(() =>
      simulate({ grid, jobs, seed: 1, background: false, scheduler: { approach: 'pra', policy: 'fpsma', queue } }),
    );
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1e6);
    runs.push(r.ms);
    summary = r.value.summary;
  }
  const seconds = round(median(runs) / 1000, 3);
  const cpu_s = round(median(cpus), 3);
  log(
    `${file} (${jobs.length} jobs, ${processors} processors) under ${queue}: ${seconds} s wall, ${cpu_s} s CPU (medians of 3); mean wait ${round(summary.mean_wait_s, 1)} s, ${summary.backfilled} backfilled`,
  );
  return {
    seconds,
    cpu_s,
    jobs: jobs.length,
    mean_wait_s: round(summary.mean_wait_s, 3),
    backfilled: summary.backfilled,
  };
}

const CLUSTERS = 50;
const PROCESSORS = 512;
const WAITING = 10_000;

/**
 * 50 clusters of 512 processors, each with 10 running rigid jobs of 51 processors (walltimes 1,000 to 10,000 s), and
 * 10,000 waiting rigid jobs of 1-512 processors for 100 s to 3 h, none pinned. Times: the first pass (every job
 * reserved), an ordinary pass (one arrival, nothing freed), and a full re-plan after one running job per cluster ended early.
 */
function passes(log: (m: string) => void): {
  first_ms: number;
  ordinary_ms: number;
  replan_ms: number;
  reserved: number;
} {
  const grid = buildGrid(
    gridSpecSchema.parse({
      clusters: Array.from({ length: CLUSTERS }, (_, i) => ({ name: `c${i}`, processors: PROCESSORS })),
    }),
  );
  const silentManager = (cluster: string): LocalManager => ({
    cluster,
    supportsReservations: false,
    submit() {},
    grow() {},
    cancelGrow() {},
    shrink() {},
    cancel() {},
    poll() {},
  });
  const silentApps: ApplicationPort = {
    offerGrow() {},
    growGranted() {},
    requestShrink() {},
    resized() {},
    updateRefused() {},
  };
  const firsts: number[] = [];
  const ordinaries: number[] = [];
  const replans: number[] = [];
  let reserved = 0;
  for (let round = 0; round < 5; round++) {
    const rng = new Random(14);
    const scheduler = new Scheduler(
      grid,
      grid.clusters.map((c) => silentManager(c.name)),
      silentApps,
      { queue: 'cbf', triesThreshold: 1e9 },
    );
    const t = 0;
    for (let c = 0; c < CLUSTERS; c++) {
      for (let k = 0; k < 10; k++) {
        const id = `r${c}-${k}`;
        scheduler.submitSpec(
          jobSpecSchema.parse({
            id,
            kind: 'rigid',
            walltime: 1000 * (k + 1) + c,
            components: [{ processors: 51, program: 'x', cluster: `c${c}` }],
          }),
          t,
        );
        scheduler.advance(t);
        scheduler.receive({ type: 'started', cluster: `c${c}`, jobId: id, component: 0, processors: 51 }, t);
      }
    }
    for (let q = 0; q < WAITING; q++) {
      const spec: JobSpec = jobSpecSchema.parse({
        id: `q${q}`,
        kind: 'rigid',
        walltime: rng.int(100, 10_800),
        components: [{ processors: rng.int(3, PROCESSORS), program: 'x' }],
      });
      scheduler.submitSpec(spec, t + 1);
    }
    firsts.push(timed(() => scheduler.advance(t + 1)).ms);
    reserved = [...scheduler.jobs()].filter((j) => j.plannedStart !== undefined).length;
    // An ordinary pass: one more job arrives; every promise is kept (nothing freed), the new job is reserved. (A pass
    // with no change at all is skipped outright, which would measure nothing.)
    scheduler.submitSpec(
      jobSpecSchema.parse({
        id: 'late',
        kind: 'rigid',
        walltime: 3600,
        components: [{ processors: 256, program: 'x' }],
      }),
      t + 2,
    );
    ordinaries.push(timed(() => scheduler.advance(t + 2)).ms);
    // The first job of every cluster ends at 3, long before its walltime (1,000 s on): every cluster freed.
    for (let c = 0; c < CLUSTERS; c++)
      scheduler.receive(
        { type: 'finished', cluster: `c${c}`, jobId: `r${c}-0`, state: 'completed', reason: 'done' },
        t + 3,
      );
    replans.push(timed(() => scheduler.advance(t + 3)).ms);
  }
  const figures = {
    first_ms: round(median(firsts.slice(1))),
    ordinary_ms: round(median(ordinaries.slice(1))),
    replan_ms: round(median(replans.slice(1))),
    reserved,
  };
  log(
    `CBF passes with ${WAITING} waiting jobs on ${CLUSTERS} clusters (${reserved} reserved): first plan ${figures.first_ms} ms, ordinary pass ${figures.ordinary_ms} ms, ` +
      `full re-plan after an early end on every cluster ${figures.replan_ms} ms (medians of 4)`,
  );
  return figures;
}

/** `only`: one of the three figures (nasa, hpc2n, pass); the others are reported as skipped. */
export function backfillBench(log: (message: string) => void = () => {}, only?: string) {
  const skip = (what: string) => ({ skipped_reason: `${what} skipped: only ${only} asked for` });
  const nasa =
    only === undefined || only === 'nasa' ? trace('NASA-iPSC-1993-3.1-cln.swf.gz', 128, 'easy', log) : skip('nasa');
  const hpc2n =
    only === undefined || only === 'hpc2n'
      ? trace('HPC2N-2002-prefix3170.swf.gz', 240, 'cbf', log, 3000)
      : skip('hpc2n');
  const pass =
    only === undefined || only === 'pass'
      ? passes(log)
      : { first_ms: null, ordinary_ms: null, replan_ms: null, reserved: 0 };
  return {
    easy_nasa_s: 'seconds' in nasa ? nasa.seconds : null,
    easy_nasa: nasa,
    cbf_hpc2n_s: 'seconds' in hpc2n ? hpc2n.seconds : null,
    cbf_hpc2n: hpc2n,
    pass_cbf_ms: pass.ordinary_ms,
    pass_cbf_replan_ms: pass.replan_ms,
    pass_cbf_first_ms: pass.first_ms,
    pass_cbf: pass,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(backfillBench((m) => process.stderr.write(`${m}\n`), process.argv[2])));
}
