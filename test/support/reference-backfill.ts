// A textbook reference simulator for one cluster of N processors: FCFS, EASY and conservative backfilling (CBF,
// with compression), event-driven, over rigid jobs read from an SWF trace. It is the check on Concertina's queue
// policies, so it shares no code with core/: not the plan, not the queue policies, not the SWF importer, not the
// metrics. Small and written to be read, not to be fast.
//
// The definitions it follows (Mu'alem & Feitelson 2001; Feitelson's Parallel Workloads Archive conventions), where the
// simulators compared differ (batsched, pyss, Alea, AccaSim), with the choice made:
// - Decision: reservations and backfilling read the requested time (SWF field 9) only, never the run time (field 4);
//   where field 9 is unknown (-1 or 0) the run time stands in for it (a perfect estimate), as Concertina does.
// - Decision: a job runs min(run time, requested time): past its requested time it is killed, as Batsim and batch
//   systems do (pyss also caps the run time there).
// - Decision: queue order is submission time, ties broken by the order of the trace's lines (its job numbers, SWF
//   being sorted by submit time). batsched breaks ties by comparing job ids as strings, which puts "10" before "9".
// - Decision: everything that happens at one instant is seen by one scheduling pass: first every job that ends then,
//   then every arrival, then the pass (Batsim hands the scheduler all events of one date in one message).
// - Decision: processors are counted, not named (pyss's CPU snapshot, the EASY paper's "extra nodes"): a job needs n
//   processors, whichever. batsched plans on named machines, which can refuse a backfill that counting allows.
// - Decision: a job wider than the machine is rejected at submission and never runs (batsched rejects it; pyss shrinks
//   it to the machine). The three traces compared have none.
// - EASY: at each pass, jobs start from the head of the queue while they fit; the first that does not is the head: its
//   shadow time is when enough running jobs will have ended (by their requested times) for it to start, and the extra
//   processors are those free then beyond its need. Every later job, in queue order, starts now if it fits now and
//   either ends (by its requested time) no later than the shadow time, or takes no more than the extra processors
//   (which it then uses up). The head and its shadow are recomputed at every pass.
// - CBF: every waiting job holds a reservation: the earliest start where it fits, over its requested time, around the
//   running jobs and every earlier reservation; it starts when its reservation comes. When a job ends, the schedule
//   is compressed: each waiting job in queue order gives up its reservation and takes the earliest one that fits
//   around all others (never later than the one it had). A backfilled job is simply one whose reservation is now.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

export type ReferencePolicy = 'fcfs' | 'easy' | 'cbf';
export const REFERENCE_POLICIES: readonly ReferencePolicy[] = ['fcfs', 'easy', 'cbf'];

export interface ReferenceJob {
  readonly id: string;
  readonly submit: number;
  /** What it would run (SWF field 4). */
  readonly runtime: number;
  /** Its requested time: what every decision reads (SWF field 9, or field 4 when 9 is unknown). */
  readonly walltime: number;
  readonly processors: number;
}

export interface ReferenceOutcome {
  readonly id: string;
  readonly submit: number;
  readonly start: number;
  readonly end: number;
  readonly processors: number;
  /** Killed at its requested time (it would have run longer). */
  readonly killed: boolean;
}

export interface ReferenceRun {
  /** In queue order (submission, then trace order). */
  readonly jobs: readonly ReferenceOutcome[];
  /** Jobs wider than the machine, never run. */
  readonly rejected: readonly string[];
}

/**
 * Reads an SWF trace the way the Parallel Workloads Archive describes it: fields 1 (number), 2 (submit), 4 (run time),
 * 5 (allocated processors, or 8, requested, when 5 is unknown), 9 (requested time). Records with no positive run
 * time, no processor count or no submit time are left out; `maxJobs` counts the records kept. Submit times are made
 * relative to the earliest kept one.
 */
export function readSwf(text: string, maxJobs = Infinity): ReferenceJob[] {
  const jobs: ReferenceJob[] = [];
  for (const line of text.split('\n')) {
    if (jobs.length >= maxJobs) break;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith(';')) continue;
    const f = trimmed.split(/\s+/).map(Number);
    if (f.length !== 18 || f.some((x) => !Number.isFinite(x))) continue;
    const [number, submit, , runtime, allocated, , , requested, requestedTime] = f as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const processors = allocated >= 1 ? allocated : requested;
    if (!(runtime > 0) || !(processors >= 1) || !Number.isInteger(processors) || !(submit >= 0)) continue;
    jobs.push({
      id: `swf-${number}`,
      submit,
      runtime,
      walltime: requestedTime > 0 ? requestedTime : runtime,
      processors,
    });
  }
  const earliest = Math.min(...jobs.map((j) => j.submit));
  return jobs.map((j) => ({ ...j, submit: j.submit - earliest }));
}

export function readSwfFile(file: string, maxJobs?: number): ReferenceJob[] {
  const data = readFileSync(file);
  return readSwf((file.endsWith('.gz') ? gunzipSync(data) : data).toString('utf8'), maxJobs);
}

interface Running {
  readonly job: ReferenceJob;
  readonly start: number;
  /** When it really ends: start + min(run time, requested time). */
  readonly end: number;
  /** When the scheduler expects it to end: start + requested time. */
  readonly expectedEnd: number;
}

/** Simulates `jobs` on `processors` processors under `policy`. */
export function simulate(jobs: readonly ReferenceJob[], processors: number, policy: ReferencePolicy): ReferenceRun {
  // Queue order: submit time, then trace order (a stable sort keeps it).
  const arrivals = jobs
    .map((job, index) => ({ job, index }))
    .sort((a, b) => a.job.submit - b.job.submit || a.index - b.index)
    .map((a) => a.job);
  const rejected: string[] = [];
  const outcomes = new Map<string, ReferenceOutcome>();
  const queue: ReferenceJob[] = [];
  const running: Running[] = [];
  const reservations = new Map<string, number>(); // CBF: a waiting job's reserved start
  let free = processors;
  let next = 0;

  const start = (job: ReferenceJob, now: number): void => {
    const runs = Math.min(job.runtime, job.walltime);
    running.push({ job, start: now, end: now + runs, expectedEnd: now + job.walltime });
    free -= job.processors;
    if (free < 0) throw new Error(`reference: capacity exceeded at ${now} by ${job.id}`);
    queue.splice(queue.indexOf(job), 1);
    reservations.delete(job.id);
  };

  while (next < arrivals.length || running.length > 0 || queue.length > 0) {
    // The next instant something happens: an arrival, an end, or (CBF) a reservation's start.
    const now = Math.min(
      next < arrivals.length ? arrivals[next]!.submit : Infinity,
      ...running.map((r) => r.end),
      ...reservations.values(),
    );
    if (now === Infinity) throw new Error(`reference: ${queue.length} jobs wait for nothing`);
    // Every job that ends now, then every arrival now.
    let ended = false;
    for (let i = running.length - 1; i >= 0; i--) {
      const r = running[i]!;
      if (r.end !== now) continue;
      running.splice(i, 1);
      free += r.job.processors;
      ended = true;
      outcomes.set(r.job.id, {
        id: r.job.id,
        submit: r.job.submit,
        start: r.start,
        end: r.end,
        processors: r.job.processors,
        killed: r.job.runtime > r.job.walltime,
      });
    }
    while (next < arrivals.length && arrivals[next]!.submit === now) {
      const job = arrivals[next++]!;
      if (job.processors > processors) rejected.push(job.id);
      else queue.push(job);
    }
    if (policy === 'fcfs')
      fcfsPass(
        queue,
        () => free,
        (j) => start(j, now),
      );
    else if (policy === 'easy')
      easyPass(
        queue,
        running,
        now,
        () => free,
        (j) => start(j, now),
      );
    else cbfPass(queue, running, reservations, processors, now, ended, (j) => start(j, now));
  }
  return { jobs: arrivals.filter((j) => outcomes.has(j.id)).map((j) => outcomes.get(j.id)!), rejected };
}

/** FCFS: the head starts when it fits; nothing passes it. */
function fcfsPass(queue: ReferenceJob[], free: () => number, start: (job: ReferenceJob) => void): void {
  while (queue.length > 0 && queue[0]!.processors <= free()) start(queue[0]!);
}

/** EASY, in the EASY paper's terms: shadow time and extra processors of the head, then backfilling in queue order. */
function easyPass(
  queue: ReferenceJob[],
  running: readonly Running[],
  now: number,
  free: () => number,
  start: (job: ReferenceJob) => void,
): void {
  fcfsPass(queue, free, start);
  if (queue.length < 2) return;
  const head = queue[0]!;
  // Shadow time: walk the running jobs by expected end until enough processors are free for the head. Jobs expected
  // to end at the shadow time itself all count towards the extra processors.
  const byExpectedEnd = [...running].sort((a, b) => a.expectedEnd - b.expectedEnd);
  let available = free(); // below the head's need, or it would have started
  let shadow = Infinity;
  for (const r of byExpectedEnd) {
    if (r.expectedEnd > shadow) break;
    available += r.job.processors;
    if (shadow === Infinity && available >= head.processors) shadow = r.expectedEnd;
  }
  let extra = available - head.processors;
  for (const job of queue.slice(1)) {
    if (job.processors > free()) continue;
    const endsByShadow = now + job.walltime <= shadow;
    if (endsByShadow) start(job);
    else if (job.processors <= extra) {
      start(job);
      extra -= job.processors;
    }
  }
}

/**
 * Free processors over time as steps: free[i] from times[i] until times[i + 1] (the last one for ever). Built afresh
 * at each pass from the running jobs and the reservations.
 */
class Profile {
  private times: number[];
  private free: number[];

  constructor(now: number, processors: number) {
    this.times = [now];
    this.free = [processors];
  }

  /** Takes n processors over [from, to) (n < 0 gives them back). */
  take(from: number, to: number, n: number): void {
    const a = this.split(from);
    const b = to === Infinity ? this.times.length : this.split(to);
    for (let i = a; i < b; i++) this.free[i]! -= n;
  }

  /** The earliest t >= now at which n processors are free over [t, t + d). */
  earliest(n: number, d: number): number {
    let candidate = -1;
    for (let i = 0; i < this.times.length; i++) {
      if (this.free[i]! < n) {
        candidate = -1;
        continue;
      }
      if (candidate < 0) candidate = i;
      const until = i + 1 < this.times.length ? this.times[i + 1]! : Infinity;
      if (until >= this.times[candidate]! + d) return this.times[candidate]!;
    }
    throw new Error(`reference: ${n} processors never free`);
  }

  /** The index of a step starting exactly at t (t is at or after the first step). */
  private split(t: number): number {
    let i = this.times.length - 1;
    while (this.times[i]! > t) i--;
    if (this.times[i] === t) return i;
    this.times.splice(i + 1, 0, t);
    this.free.splice(i + 1, 0, this.free[i]!);
    return i + 1;
  }
}

/** Conservative backfilling: reservations for all, compressed in queue order when a job has ended. */
function cbfPass(
  queue: ReferenceJob[],
  running: readonly Running[],
  reservations: Map<string, number>,
  processors: number,
  now: number,
  ended: boolean,
  start: (job: ReferenceJob) => void,
): void {
  const profile = new Profile(now, processors);
  for (const r of running) profile.take(now, r.expectedEnd, r.job.processors);
  for (const job of queue) {
    const at = reservations.get(job.id);
    if (at !== undefined) profile.take(at, at + job.walltime, job.processors);
  }
  for (const job of queue) {
    const at = reservations.get(job.id);
    if (at !== undefined && !ended) continue;
    if (at !== undefined) profile.take(at, at + job.walltime, -job.processors);
    const earliest = profile.earliest(job.processors, job.walltime);
    if (at !== undefined && earliest > at)
      throw new Error(`reference: compression delayed ${job.id} from ${at} to ${earliest}`);
    profile.take(earliest, earliest + job.walltime, job.processors);
    reservations.set(job.id, earliest);
  }
  for (const job of [...queue]) if (reservations.get(job.id)! <= now) start(job);
}

export interface ReferenceSummary {
  readonly jobs: number;
  /** Killed at their requested time. */
  readonly killed: number;
  /** Over every job that ran (the simulators' usual mean). */
  readonly meanWaitS: number;
  /** max(1, (wait + run) / max(run, τ)) with τ = 10 s, over every job that ran. */
  readonly meanBoundedSlowdown: number;
  /** The same two over the jobs not killed (Concertina's summary averages over completed jobs only). */
  readonly completedMeanWaitS: number;
  readonly completedMeanBoundedSlowdown: number;
  /** Last end minus first submission. */
  readonly makespanS: number;
}

export function summarize(run: ReferenceRun, tauS = 10): ReferenceSummary {
  const slowdown = (j: ReferenceOutcome) => Math.max(1, (j.end - j.submit) / Math.max(j.end - j.start, tauS));
  const mean = (jobs: readonly ReferenceOutcome[], f: (j: ReferenceOutcome) => number) =>
    jobs.length ? jobs.reduce((s, j) => s + f(j), 0) / jobs.length : 0;
  const completed = run.jobs.filter((j) => !j.killed);
  const first = Math.min(...run.jobs.map((j) => j.submit));
  const last = Math.max(...run.jobs.map((j) => j.end));
  return {
    jobs: run.jobs.length,
    killed: run.jobs.length - completed.length,
    meanWaitS: mean(run.jobs, (j) => j.start - j.submit),
    meanBoundedSlowdown: mean(run.jobs, slowdown),
    completedMeanWaitS: mean(completed, (j) => j.start - j.submit),
    completedMeanBoundedSlowdown: mean(completed, slowdown),
    makespanS: run.jobs.length ? last - first : 0,
  };
}

// `node dist/test/support/reference-backfill.js <trace.swf[.gz]> <processors> <fcfs|easy|cbf> [max-jobs]` prints the
// reference's summary as one JSON object.
if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [file, n, policy, max] = process.argv.slice(2);
  if (file === undefined || n === undefined || !REFERENCE_POLICIES.includes(policy as ReferencePolicy)) {
    console.error('usage: reference-backfill.js <trace.swf[.gz]> <processors> <fcfs|easy|cbf> [max-jobs]');
    process.exit(2);
  }
  const run = simulate(
    readSwfFile(file, max === undefined ? undefined : Number(max)),
    Number(n),
    policy as ReferencePolicy,
  );
  console.log(
    JSON.stringify({ trace: file, processors: Number(n), policy, rejected: run.rejected.length, ...summarize(run) }),
  );
}
