// `npm run bench`: wall-clock figures of the simulator and the scheduling pass. Progress on stderr; the last line
// of stdout is one JSON object. Not part of `npm test` (tests never assert wall-clock times).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { buildGrid } from '../../core/model/grid.js';
import { gridSpecSchema, jobSpecSchema, type GridSpec, type JobSpec } from '../../core/model/schemas.js';
import { Scheduler } from '../../core/scheduler/scheduler.js';
import { gridPreset, syntheticGrid } from '../../core/sim/grids.js';
import { simulate } from '../../core/sim/simulate.js';
import { parseSwf } from '../../core/sim/workloads/swf.js';
import { syntheticWorkload } from '../../core/sim/workloads/synthetic.js';
import { workloadPreset } from '../../core/sim/workloads/koala.js';
import type { ApplicationPort, LocalManager } from '../../core/ports.js';
import { Host } from '../../electron/host/host.js';
import { sshRoundTrip } from './ssh-bench.js';
import { managerParse } from './managers-bench.js';
import { queueBench } from './queue-bench.js';
import { liveBench } from './live-bench.js';
import { overloadBench } from './overload-bench.js';
import { execFileSync } from 'node:child_process';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const tracesDir = path.resolve(repoRoot, '..', 'shared', 'traces');
const log = (message: string) => process.stderr.write(`${message}\n`);

/** The issues' targets, each with the figure measured and whether it is met (null: not measured here). */
function benchTargets(
  f: Record<string, unknown>,
): Array<{ figure: string; target: string; value: number | null; met: boolean | null }> {
  const value = (key: string): number | null => (typeof f[key] === 'number' ? (f[key] as number) : null);
  const below = (figure: string, limit: number, v = value(figure)) => ({
    figure,
    target: `< ${limit}`,
    value: v,
    met: v === null ? null : v < limit,
  });
  const atMost = (figure: string, limit: number, v = value(figure)) => ({
    figure,
    target: `<= ${limit}`,
    value: v,
    met: v === null ? null : v <= limit,
  });
  const atLeast = (figure: string, limit: number, v = value(figure)) => ({
    figure,
    target: `>= ${limit}`,
    value: v,
    met: v === null ? null : v >= limit,
  });
  const das3 = f['das3_ms'] as Record<string, number>;
  return [
    ...Object.entries(das3).map(([pair, ms]) => below(`das3_ms.${pair}`, 100, ms)),
    below('synthetic_100k_s', 5),
    atMost('synthetic_scaling', 15),
    below('pass_ms', 20),
    below('swf_nasa_s', 1),
    below('easy_nasa_s', 0.3),
    below('cbf_hpc2n_s', 0.3),
    below('pass_cbf_ms', 100),
    below('host_memory_10k_jobs_mb', 300),
    below('soak_24h_rss_mb', 300),
    below('live_slurm_grow_p50_ms', 1500),
    below('live_sge_grow_p50_ms', 1000),
    below('live_slurm_shrink_p50_ms', 1000),
    below('live_sge_shrink_p50_ms', 1000),
    atLeast('coorm_requests_per_s', 50_000),
    below('overload_snapshot_max_p99_ms', 1000),
    below('sigterm_stop_ms', 2000),
    below('fpe_schedule_ms', 0.5),
    below('dbes_esp_ms', 100),
    below('dbes_pass_ms', 50),
  ];
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function timed<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

const round = (x: number, digits = 2) => Number(x.toFixed(digits));

function das3(): Record<string, number> {
  const grid = gridSpecSchema.parse(gridPreset('das3'));
  const out: Record<string, number> = {};
  for (const [approach, workload] of [
    ['pra', 'wm'],
    ['pwa', 'wm-fast'],
  ] as const) {
    for (const policy of ['fpsma', 'egs']) {
      const jobs = workloadPreset(workload, 1)!;
      const runs: number[] = [];
      for (let i = 0; i < 7; i++)
        runs.push(timed(() => simulate({ grid, jobs, seed: 1, scheduler: { approach, policy } })).ms);
      out[`${approach}-${policy}`] = round(median(runs.slice(2)), 1); // the first runs warm the JIT up
      log(`das3 ${approach}/${policy} (${workload}): ${out[`${approach}-${policy}`]} ms`);
    }
  }
  return out;
}

function synthetic(jobs: number): { seconds: number; completed: number; failed: number; utilization: number } {
  const grid = gridSpecSchema.parse(syntheticGrid(50, 7));
  const workload = syntheticWorkload({ jobs, grid, seed: 7, malleableFraction: 0.3 });
  const { ms, value } = timed(() =>
    simulate({ grid, jobs: workload, seed: 7, scheduler: { approach: 'pra', policy: 'egs' } }),
  );
  log(
    `synthetic ${jobs} jobs on 50 clusters: ${round(ms / 1000, 3)} s (${value.summary.completed} completed, ${value.summary.failed} failed, ${value.steps} engine actions)`,
  );
  return {
    seconds: round(ms / 1000, 3),
    completed: value.summary.completed,
    failed: value.summary.failed,
    utilization: round(value.summary.utilization, 3),
  };
}

/** One pass with 10,000 queued jobs that do not fit and 5,000 running malleable jobs, over 50 clusters. */
function pass(approach: 'pra' | 'pwa'): number {
  const gridSpec: GridSpec = gridSpecSchema.parse({
    clusters: Array.from({ length: 50 }, (_, i) => ({ name: `c${i}`, processors: 512 })),
  });
  const grid = buildGrid(gridSpec);
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
  const samples: number[] = [];
  for (let round = 0; round < 7; round++) {
    const scheduler = new Scheduler(
      grid,
      grid.clusters.map((c) => silentManager(c.name)),
      silentApps,
      { approach, policy: 'egs', triesThreshold: 1e9 },
    );
    // 100 malleable jobs per cluster, 2..8 processors, started at size 5: 500 of 512 used, 7 left with 12 idle.
    let t = 0;
    for (let c = 0; c < 50; c++) {
      for (let k = 0; k < 100; k++) {
        const id = `m${c}-${k}`;
        scheduler.submitSpec(
          jobSpecSchema.parse({
            id,
            kind: 'malleable',
            components: [{ min: 2, max: 8, initial: 5, program: 'x', cluster: `c${c}` }],
          }),
          t,
        );
        scheduler.advance(t);
        scheduler.receive({ type: 'started', cluster: `c${c}`, jobId: id, component: 0, processors: 5 }, t);
        t++;
      }
    }
    // Queued jobs asking for more than any cluster can give even by shrinking everything (2 x 100 minimums = 200).
    const big: JobSpec = jobSpecSchema.parse({ kind: 'rigid', components: [{ processors: 400, program: 'x' }] });
    for (let q = 0; q < 10_000; q++) scheduler.submitSpec({ ...big, id: `q${q}` }, t);
    scheduler.advance(t); // first scan: jobs join the queue
    // As in the console, something takes every event (persistence does): failed tries are built and delivered.
    let delivered = 0;
    scheduler.on(() => delivered++);
    scheduler.requestPass();
    samples.push(timed(() => scheduler.advance(t + 1)).ms);
    if (delivered < 10_000)
      throw new Error(`the pass delivered ${delivered} events, expected a failed try per queued job`);
  }
  const ms = round(median(samples.slice(2)), 2);
  log(`pass (${approach}) with 10,000 queued and 5,000 running malleable jobs: ${ms} ms`);
  return ms;
}

function nasa(): { seconds: number; parse_ms: number; jobs: number; skipped: number } | { skipped_reason: string } {
  const file = path.join(tracesDir, 'NASA-iPSC-1993-3.1-cln.swf.gz');
  if (!existsSync(file)) {
    const reason = `${file} not found: the NASA iPSC figure is skipped`;
    log(reason);
    return { skipped_reason: reason };
  }
  const text = gunzipSync(readFileSync(file)).toString('utf8');
  const parsed = timed(() => parseSwf(text, file));
  if (!parsed.value.ok) throw new Error('NASA trace did not parse');
  const { jobs, skipped } = parsed.value.value;
  const grid = gridSpecSchema.parse({ name: 'ipsc', clusters: [{ name: 'ipsc', processors: 128 }] });
  const runs: number[] = [];
  for (let i = 0; i < 3; i++)
    runs.push(
      timed(() => simulate({ grid, jobs, seed: 1, background: false, scheduler: { approach: 'pra', policy: 'fpsma' } }))
        .ms,
    );
  const seconds = round(median(runs) / 1000, 3);
  log(
    `NASA iPSC: ${jobs.length} jobs (${skipped.length} lines skipped) parsed in ${round(parsed.ms, 1)} ms, simulated in ${seconds} s`,
  );
  return { seconds, parse_ms: round(parsed.ms, 1), jobs: jobs.length, skipped: skipped.length };
}

/** The host's memory with 10,000 jobs submitted through its API and the grid running them (console issue). */
function hostMemory(): { rss_mb: number; heap_mb: number; heap_grown_mb: number; jobs: number } {
  globalThis.gc?.();
  const before = process.memoryUsage();
  const host = new Host({ workload: 'none', speed: 'pause' });
  for (let i = 0; i < 10_000; i++) {
    const r = host.call('jobs.submit', {
      id: `m${i}`,
      kind: i % 3 === 0 ? 'malleable' : 'rigid',
      submitTime: 0,
      app: { model: 'amdahl', serial: 30, parallel: 3000 },
      components: i % 3 === 0 ? [{ min: 1, max: 8, program: 'x' }] : [{ processors: 1 + (i % 8), program: 'x' }],
    });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
  }
  // Then two seconds of simulation as fast as it goes (each tick at "max" simulates for up to 50 ms).
  host.call('sim.setSpeed', { speed: 'max' });
  for (let k = 0; k < 40; k++) host.tick();
  globalThis.gc?.();
  const after = process.memoryUsage();
  const jobs = host.call('jobs.list', { limit: 1 });
  const figures = {
    rss_mb: round(after.rss / 2 ** 20, 1),
    heap_mb: round(after.heapUsed / 2 ** 20, 1),
    heap_grown_mb: round((after.heapUsed - before.heapUsed) / 2 ** 20, 1),
    jobs: jobs.ok ? jobs.value.total : 0,
  };
  log(
    `host with ${figures.jobs} jobs: rss ${figures.rss_mb} MB, heap ${figures.heap_mb} MB (grown by ${figures.heap_grown_mb} MB)`,
  );
  return figures;
}

/** Latencies (ms) of grid.snapshot through the dispatcher, each from being queued on the event loop to its answer
 *  (so time spent behind a blocked host thread counts), sampled every 5 ms as long as `keepGoing` says. */
async function snapshotLatencies(host: Host, keepGoing: (samples: number) => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (keepGoing(latencies.length)) {
    const t0 = performance.now();
    await new Promise((resolve) => setImmediate(resolve));
    if (!host.dispatch('grid.snapshot', {}).ok) throw new Error('grid.snapshot failed');
    latencies.push(performance.now() - t0);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return latencies;
}

/** The API's responsiveness while a Lab KOALA run (2 seeds, 16 runs) computes in its worker, the live grid ticking. */
async function labApiLatency() {
  const host = new Host({ speed: '10x' });
  host.start();
  const quantile = (xs: number[], q: number) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
  const idle = await snapshotLatencies(host, (n) => n < 200);
  const t0 = performance.now();
  const started = host.call('lab.start', { kind: 'koala', seeds: 2 });
  if (!started.ok) throw new Error(JSON.stringify(started.errors));
  const running = () => !['done', 'failed', 'cancelled'].includes(host.lab.info(started.value.runId)!.status);
  const busy = await snapshotLatencies(host, running);
  const run_s = round((performance.now() - t0) / 1000, 2);
  const status = host.lab.info(started.value.runId)!.status;
  host.stop();
  const figures = {
    median_ms: round(median(busy), 3),
    p99_ms: round(quantile(busy, 0.99), 3),
    calls: busy.length,
    idle_median_ms: round(median(idle), 3),
    idle_p99_ms: round(quantile(idle, 0.99), 3),
    run_s,
    status,
  };
  log(
    `grid.snapshot during a lab KOALA run (${run_s} s, ${status}): median ${figures.median_ms} ms, p99 ${figures.p99_ms} ms over ${busy.length} calls (idle: ${figures.idle_median_ms} / ${figures.idle_p99_ms} ms)`,
  );
  return figures;
}

/** The soak (soak-bench.ts) in a process of its own, so that its resident size is the host's alone. */
function soak(): { rss_mb: number; heap_mb: number; rss_by_6h_mb: number[]; jobs: number; wall_s: number } {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'soak-bench.js');
  const out = execFileSync(process.execPath, ['--expose-gc', script, '24'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const figures = JSON.parse(out.trim().split('\n').at(-1)!) as ReturnType<typeof soak>;
  log(
    `soak: 24 h of virtual time at max of the default grid (${figures.jobs} jobs, ${figures.wall_s} s): rss ${figures.rss_mb} MB`,
  );
  return figures;
}

// First, while the process holds nothing else: its resident size is then the host's own.
const host = hostMemory();
const soak24h = soak();
const das3_ms = das3();
const s10 = synthetic(10_000);
const s100 = synthetic(100_000);
const pass_ms = pass('pra');
const pass_pwa_ms = pass('pwa');
const swf = nasa();
const parse10k = managerParse(10_000);
log(`status output of 10,000 jobs parsed: squeue ${parse10k.squeue_ms} ms, qstat -xml ${parse10k.qstat_xml_ms} ms`);
const labLatency = await labApiLatency();
const overload = await overloadBench(log);
const ssh = await sshRoundTrip(20);
const queue = await queueBench(repoRoot, log);
const live = await liveBench(log);
log(
  'skipped_reason' in ssh
    ? `SSH round trip skipped: ${ssh.skipped_reason}`
    : `SSH round trip: connect+exec ${ssh.connect_exec_median_ms} ms, exec on an open connection ${ssh.exec_median_ms} ms (medians of ${ssh.samples})`,
);
const figures = {
  das3_ms,
  synthetic_10k_s: s10.seconds,
  synthetic_100k_s: s100.seconds,
  synthetic_scaling: round(s100.seconds / s10.seconds, 2),
  synthetic_10k: s10,
  synthetic_100k: s100,
  pass_ms,
  pass_pwa_ms,
  swf_nasa_s: 'seconds' in swf ? swf.seconds : null,
  swf_nasa: swf,
  squeue_parse_10k_ms: parse10k.squeue_ms,
  qstat_xml_parse_10k_ms: parse10k.qstat_xml_ms,
  host_memory_10k_jobs_mb: host.rss_mb,
  host_memory: host,
  soak_24h_rss_mb: soak24h.rss_mb,
  soak_24h: soak24h,
  lab_api_latency_median_ms: labLatency.median_ms,
  lab_api_latency_p99_ms: labLatency.p99_ms,
  lab_api_latency: labLatency,
  ssh_connect_exec_ms: 'skipped_reason' in ssh ? null : ssh.connect_exec_median_ms,
  ssh_exec_ms: 'skipped_reason' in ssh ? null : ssh.exec_median_ms,
  ssh,
  queue_jobs_list_10k_ms: queue.jobs_list_ms,
  queue_render_10k_ms: queue.browser?.render_ms ?? null,
  queue_scroll_frame_p95_ms: queue.browser?.wheel_frame_p95_ms ?? null,
  queue_10k: queue,
  live_slurm_grow_p50_ms: live.slurm?.grow_p50_ms ?? null,
  live_slurm_grow_p95_ms: live.slurm?.grow_p95_ms ?? null,
  live_slurm_grow_quiet_p50_ms: live.slurm?.grow_quiet_p50_ms ?? null,
  live_slurm_shrink_p50_ms: live.slurm?.shrink_p50_ms ?? null,
  live_slurm_shrink_p95_ms: live.slurm?.shrink_p95_ms ?? null,
  live_slurm_submissions_per_s: live.slurm?.submissions_per_s ?? null,
  live_sge_grow_p50_ms: live.sge?.grow_p50_ms ?? null,
  live_sge_grow_p95_ms: live.sge?.grow_p95_ms ?? null,
  live_sge_grow_quiet_p50_ms: live.sge?.grow_quiet_p50_ms ?? null,
  live_sge_shrink_p50_ms: live.sge?.shrink_p50_ms ?? null,
  live_sge_shrink_p95_ms: live.sge?.shrink_p95_ms ?? null,
  live_sge_submissions_per_s: live.sge?.submissions_per_s ?? null,
  live,
  ...overload,
  ...(await import('./coorm-bench.js')).coormBench(log),
  ...(await import('./plan-bench.js')).planBench(log),
  ...(await import('./backfill-bench.js')).backfillBench(log),
  ...(await import('./fpe-bench.js')).fpeBench(log),
  ...(await import('./dbes-bench.js')).dbesBench(log),
  ...(await import('./interactive-bench.js')).interactiveBench(log),
  ...(await import('./replay-bench.js')).replayBench(log),
  node: process.version,
};
const targets = [...benchTargets(figures), ...(await import('./replay-bench.js')).replayTargets(figures)];
for (const t of targets)
  log(
    `target ${t.figure} ${t.target}: ${t.value === null ? 'not measured' : `${t.value} (${t.met ? 'met' : 'NOT met'})`}`,
  );
console.log(JSON.stringify({ ...figures, targets }));
