// Bench figures of a cluster's availability profile (core/plan/availability.ts): building it from 10,000 running
// jobs, the earliest fit of a request on it (which running jobs the start waits for included), and a reservation
// added or removed. Part of `npm run bench`; `node dist/test/bench/plan-bench.js` prints its figures alone.
import { pathToFileURL } from 'node:url';
import { AvailabilityProfile, type Holding } from '../../core/plan/availability.js';
import { Random } from '../../core/random.js';

const JOBS = 10_000;
const QUERIES = 2_000;
const round = (x: number, digits = 2) => Number(x.toFixed(digits));

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * 10,000 running jobs of 1-64 processors on a cluster they fill, ending over the next day at distinct times (1 % with
 * no estimated end). Queries ask 1 processor to half the cluster for 1 min to 10 h, from now.
 */
export function planBench(log: (message: string) => void = () => {}) {
  const rng = new Random(14);
  const now = 1_000;
  const running: Holding[] = [];
  let capacity = 0;
  for (let i = 0; i < JOBS; i++) {
    const n = rng.int(1, 64);
    capacity += n;
    running.push({ id: `j${i}`, n, end: rng.next() < 0.01 ? Infinity : now + rng.int(1, 86_400) });
  }
  const queries = Array.from({ length: QUERIES }, () => ({ n: rng.int(1, capacity / 2), d: rng.int(60, 36_000) }));
  let plan = AvailabilityProfile.build({ now, capacity, running });
  const builds: number[] = [];
  for (let k = 0; k < 7; k++) {
    const t0 = performance.now();
    plan = AvailabilityProfile.build({ now, capacity, running });
    // The profile is made on the first question that needs it (a lazy plan answers what is free from now over a
    // walltime without it): reading it times the whole build, as before.
    void plan.free;
    builds.push(performance.now() - t0);
  }
  let named = 0;
  const fit = () => {
    const t0 = performance.now();
    for (const q of queries) {
      const f = plan.earliestFit(q.n, q.d);
      if (f.fits) named += f.waitsFor.length;
    }
    return (performance.now() - t0) / QUERIES;
  };
  fit(); // JIT warm-up
  const fits: number[] = [];
  for (let k = 0; k < 5; k++) fits.push(fit());
  // Reserving where each request fits, then giving it back: what conservative backfilling does per waiting job.
  const starts = queries.map((q) => {
    const f = plan.earliestFit(q.n, q.d);
    return f.fits ? f.start : now;
  });
  const reserves: number[] = [];
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    for (let i = 0; i < QUERIES; i++)
      plan.reserve({ id: `r${i}`, n: queries[i]!.n, start: starts[i]!, duration: queries[i]!.d });
    for (let i = 0; i < QUERIES; i++) plan.unreserve(`r${i}`);
    reserves.push((performance.now() - t0) / (2 * QUERIES));
  }
  const figures = {
    plan_build_10k_jobs_ms: round(median(builds)),
    plan_earliest_fit_10k_jobs_us: round(median(fits) * 1000, 1),
    plan_reserve_10k_jobs_us: round(median(reserves) * 1000, 1),
    plan: {
      jobs: JOBS,
      capacity,
      breakpoints: plan.free.breakpoints,
      queries: QUERIES,
      waits_for_mean: round(named / (6 * QUERIES), 1),
    },
  };
  log(
    `plan: built from ${JOBS} running jobs in ${figures.plan_build_10k_jobs_ms} ms (${plan.free.breakpoints} steps); earliest fit ${figures.plan_earliest_fit_10k_jobs_us} µs per request (median of 5 × ${QUERIES}); reserve or unreserve ${figures.plan_reserve_10k_jobs_us} µs`,
  );
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(planBench((m) => process.stderr.write(`${m}\n`))));
}
