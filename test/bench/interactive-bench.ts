// Bench figures of interactive periodic divisible jobs: the time the head node takes to admit (or refuse) one job on
// a 1,000-node cluster already loaded with interactive tasks — RT-DLT division, the EDF tests of the nodes and the
// placement — per placement policy, and with widening. Part of `npm run bench`.
import { pathToFileURL } from 'node:url';
import { InteractiveHead } from '../../core/interactive/head.js';
import { TASK_PLACEMENTS, type TaskPlacementName } from '../../core/interactive/placement/index.js';
import { INTERACTIVE_DEFAULT_CONFIG } from '../../core/sim/experiments/interactive.js';
import { INTERACTIVE_WORKLOAD_DEFAULTS, generateJobs } from '../../core/sim/interactive/workload.js';

const NODES = 1000;
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

interface AdmissionFigures {
  placement: TaskPlacementName;
  widen: number;
  loaded_jobs: number;
  loaded_utilization_percent: number;
  samples: number;
  admitted_samples: number;
  median_ms: number;
  p99_ms: number;
}

/** Loads the cluster with jobs until a tenth of the arrivals are refused, then times `samples` further submissions. */
export function admissionRun(placement: TaskPlacementName, widen: number, samples = 300): AdmissionFigures {
  const cost = INTERACTIVE_DEFAULT_CONFIG.cost;
  const head = new InteractiveHead({ nodes: NODES, cost, sharing: 'interleaved', placement, widen });
  const wl = { ...INTERACTIVE_WORKLOAD_DEFAULTS, horizonMs: 1e9, overrunShare: 0 };
  const jobs = generateJobs(wl, cost, 1 / 1000, 7).slice(0, 20_000);
  let i = 0;
  let refusedRecently = 0;
  for (; i < jobs.length; i++) {
    const r = head.submit(jobs[i]!, 0);
    refusedRecently = r.ok ? Math.max(0, refusedRecently - 1) : refusedRecently + 1;
    if (refusedRecently >= 20) break;
  }
  const loaded = head.runningJobs;
  const utilization = head.nodeReports().reduce((a, r) => a + r.utilization, 0) / NODES;
  const times: number[] = [];
  let admitted = 0;
  for (let s = 0; s < samples && ++i < jobs.length; s++) {
    const job = jobs[i]!;
    const t0 = performance.now();
    const r = head.submit(job, 0);
    times.push(performance.now() - t0);
    // Keep the cluster as it was: an admitted job leaves at once, and its nodes are idle (no ghosts).
    if (r.ok) {
      admitted++;
      head.finish(job.id, 0);
      for (const n of new Set(r.nodes)) head.nodeIdle(n, 0);
    }
  }
  return {
    placement,
    widen,
    loaded_jobs: loaded,
    loaded_utilization_percent: round(100 * utilization, 1),
    samples: times.length,
    admitted_samples: admitted,
    median_ms: round(quantile(times, 0.5)),
    p99_ms: round(quantile(times, 0.99)),
  };
}

export function interactiveBench(log: (message: string) => void = () => {}) {
  admissionRun('first-fit', 1, 50); // JIT warm-up
  const runs = [
    ...TASK_PLACEMENTS.map((p) => admissionRun(p, 1)),
    admissionRun('first-fit', INTERACTIVE_DEFAULT_CONFIG.widen),
  ];
  for (const r of runs) {
    log(
      `interactive admission, ${NODES} nodes (${r.loaded_jobs} jobs, ${r.loaded_utilization_percent} % utilised), ${r.placement}${r.widen > 1 ? `, widen ${r.widen}` : ''}: median ${r.median_ms} ms, p99 ${r.p99_ms} ms (${r.admitted_samples} of ${r.samples} admitted)`,
    );
  }
  return {
    interactive_admission_1000_nodes_ms: runs[0]!.median_ms,
    interactive_admission: runs,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(interactiveBench((m) => process.stderr.write(`${m}\n`))));
}
