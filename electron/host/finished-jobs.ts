// Ended jobs out of the scheduler's memory: once a simulated run's store holds a job's end, the host keeps only a
// short summary of it for the Queue (the latest ones, capped) and its id (so that no later job takes it); its events
// stay in the store, where jobs.events reads them. A living grid's memory then follows its running jobs, not the
// virtual time it has lived.
import type { SchedulerEvent } from '../../core/events.js';
import type { JobRecord } from '../../core/scheduler/job-record.js';
import type { Scheduler } from '../../core/scheduler/scheduler.js';
import type { JobSummary, ViewStep } from '../api/contract.js';
import { jobSpecSchema } from '../../core/model/schemas.js';
import type { StoredCommand } from '../store/store.js';

/**
 * What the Queue lists of a job (jobs.list). `clusterName`: names a waiting job's planned start's cluster (without it,
 * the planned start is left out); `plannedOf`: a waiting job's planned start (Scheduler.plannedStart, which knows
 * profiled jobs' fits too), its reservation without it.
 */
export function jobSummary(
  j: JobRecord,
  clusterName?: (index: number) => string | undefined,
  plannedOf?: PlannedOf,
): JobSummary {
  const planned = plannedOf ? plannedOf(j) : j.plannedStart;
  const plannedCluster = planned && clusterName ? clusterName(planned.cluster) : undefined;
  return {
    id: j.id,
    name: j.spec.name ?? j.id,
    kind: j.kind,
    state: j.state,
    tries: j.tries,
    // A failed job that never failed a placement (an interactive job refused or cut short, say) says why it ended.
    lastFailure: j.lastFailure || (j.state === 'failed' ? (j.transitions.at(-1)?.reason ?? '') : ''),
    size: j.size,
    min: j.min,
    max: j.max,
    ...(j.malleable && !j.ended && j.cap < j.max ? { cap: j.cap } : {}),
    placement: j.spec.placement,
    clusters: j.components.map((c) => c.cluster),
    submitted: j.transitions[0]!.time,
    ...(planned && plannedCluster !== undefined
      ? { plannedStart: { cluster: plannedCluster, start: planned.start } }
      : {}),
    ...(j.spec.profile ? { steps: j.spec.profile.steps.map((s) => s.processors) } : {}),
  };
}

export type PlannedOf = (j: JobRecord) => { readonly cluster: number; readonly start: number } | undefined;

// Decision: the Queue lists the latest 10,000 ended jobs that have left memory (about 3 MB of summaries); older ones
// are still in the store (their events, jobs.events), not in the list.
export const FINISHED_LISTED = 10_000;

export class FinishedJobs {
  /** Summaries by id with the job's submission number, oldest ended first. */
  private readonly listed = new Map<string, { seq: number; summary: JobSummary }>();
  /** Ids of every job released, listed or not (so that a new job cannot take one). */
  private readonly ids = new Set<string>();

  constructor(private readonly limit = FINISHED_LISTED) {}

  /** Takes an ended job out of `scheduler`, keeping its summary. */
  release(scheduler: Scheduler, jobId: string): boolean {
    const job = scheduler.forget(jobId);
    if (!job) return false;
    this.ids.add(jobId);
    this.listed.set(jobId, { seq: job.seq, summary: jobSummary(job) });
    if (this.listed.size > this.limit) this.listed.delete(this.listed.keys().next().value!);
    return true;
  }

  /**
   * Lists a job that ended in an earlier session of the run (rebuilt from the store: endedSummaries), as released.
   * `seq` orders it among jobs submitted at the same instant.
   */
  restore(seq: number, summary: JobSummary): void {
    this.ids.add(summary.id);
    this.listed.set(summary.id, { seq, summary });
    if (this.listed.size > this.limit) this.listed.delete(this.listed.keys().next().value!);
  }

  /** The summary of a released job still listed. */
  get(jobId: string): JobSummary | undefined {
    return this.listed.get(jobId)?.summary;
  }

  /** Whether a job of this id was released (listed or not). */
  has(jobId: string): boolean {
    return this.ids.has(jobId);
  }

  /** Listed summaries with their submission numbers, oldest ended first. */
  values(): IterableIterator<{ seq: number; summary: JobSummary }> {
    return this.listed.values();
  }

  get size(): number {
    return this.listed.size;
  }
}

/** Submission order: by the time submitted, then by the submission number (one scheduler's jobs: the same order). */
const before = (a: { submitted: number; seq: number }, b: { submitted: number; seq: number }) =>
  a.submitted < b.submitted || (a.submitted === b.submitted && a.seq < b.seq);

/**
 * The last `limit` of the jobs still held and those released, in submission order (as the scheduler alone lists them),
 * and how many there are: a run lists the same before and after its ended jobs leave memory, and a resumed live run
 * (whose jobs of earlier sessions were numbered by another scheduler) the same as before its restart.
 */
export function listJobs(
  held: readonly JobRecord[],
  released: ReadonlyArray<{ seq: number; summary: JobSummary }>,
  limit: number,
  clusterName?: (index: number) => string | undefined,
  plannedOf?: PlannedOf,
): { jobs: JobSummary[]; total: number } {
  const total = held.length + released.length;
  const summary = (j: JobRecord) => jobSummary(j, clusterName, plannedOf);
  if (!released.length) return { jobs: held.slice(-limit).map(summary), total };
  const key = (r: { seq: number; summary: JobSummary }) => ({ submitted: r.summary.submitted, seq: r.seq });
  const gone = [...released].sort((a, b) => (before(key(a), key(b)) ? -1 : before(key(b), key(a)) ? 1 : 0));
  // Merged from the end, newest first, until `limit`.
  const out: JobSummary[] = [];
  let h = held.length - 1;
  let g = gone.length - 1;
  while (out.length < limit && (h >= 0 || g >= 0)) {
    if (g < 0 || (h >= 0 && before(key(gone[g]!), { submitted: held[h]!.transitions[0]!.time, seq: held[h]!.seq })))
      out.push(summary(held[h--]!));
    else out.push(gone[g--]!.summary);
  }
  return { jobs: out.reverse(), total };
}

/**
 * A released job's allocated size over time, from its events (each start, adoption, grow, shrink and evolution gives
 * its size; the end gives 0). Decision: its non-preemptive and preemptive views ended with it and are not rebuilt:
 * both read 0 from its end.
 */
export function viewsFromEvents(
  events: readonly SchedulerEvent[],
  now: number,
): { now: number; nonPreemptive: ViewStep[]; preemptive: ViewStep[]; allocated: ViewStep[] } {
  const allocated: ViewStep[] = [];
  let end = now;
  for (const e of events) {
    if (e.type === 'job.ended') {
      end = e.t;
      allocated.push({ t: e.t, v: 0 });
    } else if ('size' in e && typeof e.size === 'number') allocated.push({ t: e.t, v: e.size });
  }
  const ended = [{ t: end, v: 0 }];
  return { now, nonPreemptive: ended, preemptive: ended, allocated: allocated.length ? allocated : ended };
}

/** What a job's events say of it so far, while they are read in run order. */
interface SummaryDraft {
  readonly order: number;
  readonly summary: JobSummary;
}

/**
 * The summaries of the jobs that ended in `events` (a run's stored events in run order), as the Queue listed them
 * when they ended, oldest ended first, each with its place among the run's submissions (`order`, from 0). Rebuilt
 * from the events, as a resumed live run's earlier sessions left no job records: its name, kind and bounds from its
 * submission, its clusters from its placement (or adoption), its size from the last event that gave one (0 once a resizable job ended), its tries
 * and last failure from its placement tries, its state from its end. `placementOf`: the placement policy its spec
 * asked for (which no event carries).
 */
export class EndedSummaries {
  private readonly drafts = new Map<string, SummaryDraft>();
  private submitted = 0;
  readonly ended: Array<{ order: number; summary: JobSummary }> = [];

  constructor(private readonly placementOf: (jobId: string) => string) {}

  /** Jobs submitted in the events read so far. */
  get submissions(): number {
    return this.submitted;
  }

  add(e: SchedulerEvent): void {
    if (!('jobId' in e)) return;
    if (e.type === 'job.submitted') {
      const summary: JobSummary = {
        id: e.jobId,
        name: e.name,
        kind: e.kind,
        state: 'queued',
        tries: 0,
        lastFailure: '',
        size: 0,
        min: e.min,
        max: e.max,
        placement: this.placementOf(e.jobId),
        clusters: [],
        submitted: e.t,
      };
      this.drafts.set(e.jobId, { order: this.submitted++, summary });
      return;
    }
    const draft = this.drafts.get(e.jobId);
    if (!draft) return;
    const s = draft.summary;
    switch (e.type) {
      case 'placement.failed':
        s.tries = e.tries;
        s.lastFailure = e.reason;
        break;
      case 'job.placed':
      case 'job.claimed':
        s.clusters = e.components.map((c) => c.cluster);
        break;
      case 'job.adopted':
        s.clusters = [e.cluster];
        s.size = e.size;
        break;
      case 'job.started':
      case 'job.grown':
      case 'job.shrunk':
      case 'job.evolved':
        s.size = e.size;
        break;
      case 'job.ended':
        s.state = e.state;
        s.tries = e.tries;
        if (e.state === 'failed' && !s.lastFailure) s.lastFailure = e.reason;
        // A malleable or evolving job gives back what it held: it ends at size 0 (a rigid job keeps its size).
        if (s.kind === 'malleable' || s.kind === 'evolving') s.size = 0;
        this.drafts.delete(e.jobId);
        this.ended.push({ order: draft.order, summary: s });
        break;
      default:
        break;
    }
  }
}

/** The placement policy each stored submission asked for (its spec's, defaults filled in), by job id. */
export function placementsOf(commands: readonly StoredCommand[]): (jobId: string) => string {
  const byJob = new Map<string, string>();
  for (const c of commands) {
    if (c.key !== 'jobs.submit' || c.jobId === undefined) continue;
    const spec = jobSpecSchema.safeParse(c.value);
    if (spec.success) byJob.set(c.jobId, spec.data.placement);
  }
  // Decision: a job whose submission is not stored (or no longer parses) is listed with the spec's default policy.
  return (jobId) => byJob.get(jobId) ?? 'wf';
}

/** Size steps as a job record keeps them: a later step at the same time replaces the earlier, an unchanged size adds none. */
export function sizeSteps(steps: readonly ViewStep[]): ViewStep[] {
  const out: ViewStep[] = [];
  for (const s of steps) {
    const last = out.at(-1);
    if (last && last.t === s.t) out[out.length - 1] = { t: s.t, v: s.v };
    else if (!last || last.v !== s.v) out.push({ t: s.t, v: s.v });
  }
  return out;
}
