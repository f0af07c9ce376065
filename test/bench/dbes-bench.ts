// Bench figures of DBES (issue 15, section 7): `dbes_esp_ms`, one simulation of the modified ESP workload at 100 %
// malleable jobs (230 jobs on 120 cores, core/sim/experiments/dbes.ts) under DBES, target under 100 ms; and
// `dbes_pass_ms`, one DBES pass of the scheduler over the state (50 clusters, 2,000 running malleable jobs,
// 5,000 waiting; see dbesPassState), target under 50 ms; and `dbes_pass_small_ms`, the same on 5 clusters with 2,000
// waiting (the figure measured before, kept to compare).
// Both are CPU time of this process (user + system, process.cpuUsage), the median of several rounds after an untimed
// warm-up: the machine the bench runs on is shared, and CPU time moves far less with its load than wall time.
// Part of `npm run bench`; `node dist/test/bench/dbes-bench.js` prints these figures alone.
import { pathToFileURL } from 'node:url';
import { DbesScheduling } from '../../core/dbes/driver.js';
import type { IterationHost } from '../../core/malleability/iteration.js';
import { Random } from '../../core/random.js';
import { DBES_DEFAULT_CONFIG, runDbesCase } from '../../core/sim/experiments/dbes.js';
import { grid, harness, malleable, rigid } from '../support/harness.js';

export const DBES_ESP_TARGET_MS = 100;
export const DBES_PASS_TARGET_MS = 50;
const round = (x: number, digits = 1) => Number(x.toFixed(digits));
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** CPU milliseconds (user + system) `fn` takes. */
export function cpuMs(fn: () => void): number {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

// Decision: clusters of 160 cores, each with 40 running malleable jobs (min 2, max 8, expanded to 4 by the second
// step: the cluster full), and waiting jobs (half rigid of 4 to 64 cores, half malleable of min 4 to 16, walltimes 5 to
// 60 minutes, one in four pinned to a cluster). The size: 50 clusters (2,000 running) and 5,000 waiting; the
// small one: 5 clusters (200 running) and 2,000 waiting.
export const DBES_PASS_CLUSTERS = 50;
export const DBES_PASS_RUNNING_PER_CLUSTER = 40;
export const DBES_PASS_WAITING = 5000;
export const DBES_PASS_SMALL = { clusters: 5, waiting: 2000 } as const;

/** The scheduler's state for the pass bench, and a host through which a fresh driver reads it without acting. */
export function dbesPassState(clusters = DBES_PASS_CLUSTERS, waitingJobs = DBES_PASS_WAITING) {
  const names = Array.from({ length: clusters }, (_, c) => `c${c}`);
  const h = harness(grid(Object.fromEntries(names.map((n) => [n, 160]))), { policy: 'dbes' });
  const random = new Random(15);
  for (const name of names) {
    for (let i = 0; i < DBES_PASS_RUNNING_PER_CLUSTER; i++)
      h.submit(malleable(`${name}-r${i}`, 2, 8, { cluster: name, walltime: random.int(1000, 6000) }));
  }
  h.pass();
  h.startAll();
  // The second step's offers (one operation per cluster, each offer after the last answer), answered in full.
  for (let offer = h.apps.growOffers.shift(); offer !== undefined; offer = h.apps.growOffers.shift())
    h.answerGrow(offer, offer.processors);
  h.growAll();
  h.at(10);
  for (let i = 0; i < waitingJobs; i++) {
    const walltime = random.int(300, 3600);
    const pin = random.int(0, 3) === 0 ? { cluster: names[random.int(0, names.length - 1)]! } : {};
    if (random.int(0, 1) === 0) h.submit(rigid(`w${i}`, random.int(4, 64), { walltime, ...pin }));
    else h.submit(malleable(`w${i}`, random.int(4, 16), 32, { walltime, ...pin }));
  }
  const scheduler = h.scheduler;
  const host: IterationHost = {
    grid: scheduler.grid,
    clusters: scheduler.clusters,
    placedJobs: () => [...scheduler.jobs()].filter((j) => j.components.length > 0 && !j.ended),
    waitingJobs: () => [...scheduler.jobs()].filter((j) => j.state === 'queued'),
    reservationDepth: () => 5,
    fairness: () => undefined,
    runtimeAt: () => undefined,
    busy: () => false,
    run: () => {},
    place: () => {},
    failedTry: () => 'kept',
    grantEvolving: () => {},
    refuseEvolving: () => {},
  };
  const running = [...host.placedJobs()].length;
  const waiting = host.waitingJobs(10).length;
  return { host, running, waiting, now: 10 };
}

/**
 * CPU milliseconds of `rounds` passes over `state`, after untimed ones. A fresh driver each time: a driver skips a
 * cluster whose state it already planned from. Decision: five untimed passes, as the first few still run code V8 has
 * not optimised yet (measured: after one untimed pass, the next three or four cost 2 to 5 times the later ones).
 */
function passCpuMs(state: ReturnType<typeof dbesPassState>, rounds: number) {
  const pass = () => new DbesScheduling(state.host).pass(state.now);
  for (let r = 0; r < 5; r++) pass();
  const ms: number[] = [];
  for (let r = 0; r < rounds; r++) ms.push(cpuMs(pass));
  return { ms, running: state.running, waiting: state.waiting };
}

const ESP_WARMUP_ROUNDS = 15;

export function dbesBench(log: (message: string) => void = () => {}, rounds = 7) {
  const spec = { strategy: 'dbes', scenario: 100, seed: 1 } as const;
  let completion = Number.NaN;
  // The first run in a fresh process (module compile, interpreter) is reported apart. Decision: the timed rounds come
  // after ESP_WARMUP_ROUNDS untimed ones, because V8 needs about fifteen runs of this case to finish optimising it
  // (measured: 827, 357, 394, 287, 114, 99 … ms, steady near 45 ms from the fifteenth); after one warm-up the
  // median measured the compiler, not the scheduler.
  const first = cpuMs(() => runDbesCase(spec, DBES_DEFAULT_CONFIG));
  for (let w = 1; w < ESP_WARMUP_ROUNDS; w++) runDbesCase(spec, DBES_DEFAULT_CONFIG);
  const esp: number[] = [];
  for (let r = 0; r < rounds; r++)
    esp.push(cpuMs(() => (completion = runDbesCase(spec, DBES_DEFAULT_CONFIG).completion_s)));

  const passes = passCpuMs(dbesPassState(), rounds);
  const small = passCpuMs(dbesPassState(DBES_PASS_SMALL.clusters, DBES_PASS_SMALL.waiting), rounds);

  const espMs = median(esp);
  const passMs = median(passes.ms);
  const smallMs = median(small.ms);
  log(
    `dbes: ESP at 100 % malleable under dbes: ${round(espMs)} ms CPU (median of ${rounds} after ${ESP_WARMUP_ROUNDS} warm-up runs; the first run in this process ${round(first)} ms); target < ${DBES_ESP_TARGET_MS} ms: ${espMs < DBES_ESP_TARGET_MS ? 'met' : 'NOT met'}`,
  );
  log(
    `dbes: one pass over ${passes.running} running and ${passes.waiting} waiting jobs on ${DBES_PASS_CLUSTERS} clusters: ${round(passMs)} ms CPU (median of ${rounds}); target < ${DBES_PASS_TARGET_MS} ms: ${passMs < DBES_PASS_TARGET_MS ? 'met' : 'NOT met'}`,
  );
  log(
    `dbes: one pass over ${small.running} running and ${small.waiting} waiting jobs on ${DBES_PASS_SMALL.clusters} clusters: ${round(smallMs)} ms CPU (median of ${rounds})`,
  );
  return {
    dbes_esp_ms: round(espMs),
    dbes_pass_ms: round(passMs),
    dbes_pass_small_ms: round(smallMs),
    dbes_esp: {
      strategy: spec.strategy,
      rounds,
      cpu_median_ms: round(espMs),
      cpu_min_ms: round(Math.min(...esp)),
      warmup_rounds: ESP_WARMUP_ROUNDS,
      first_run_cpu_ms: round(first),
      completion_s: round(completion, 0),
      poll_s: DBES_DEFAULT_CONFIG.pollIntervalS,
    },
    dbes_pass: {
      clusters: DBES_PASS_CLUSTERS,
      running: passes.running,
      waiting: passes.waiting,
      rounds,
      cpu_median_ms: round(passMs),
      cpu_min_ms: round(Math.min(...passes.ms)),
    },
    dbes_pass_small: {
      clusters: DBES_PASS_SMALL.clusters,
      running: small.running,
      waiting: small.waiting,
      rounds,
      cpu_median_ms: round(smallMs),
      cpu_min_ms: round(Math.min(...small.ms)),
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(dbesBench((m) => process.stderr.write(`${m}\n`))));
}
