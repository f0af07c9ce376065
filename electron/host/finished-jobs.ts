// Ended jobs out of the scheduler's memory: once a simulated run's store holds a job's end, the host keeps only a
// short summary of it for the Queue (the latest ones, capped) and its id (so that no later job takes it); its events
// stay in the store, where jobs.events reads them. A living grid's memory then follows its running jobs, not the
// virtual time it has lived.
import type { SchedulerEvent } from '../../core/events.js';
import type { JobRecord } from '../../core/scheduler/job-record.js';
import type { Scheduler } from '../../core/scheduler/scheduler.js';
import type { JobSummary, ViewStep } from '../api/contract.js';

/** What the Queue lists of a job (jobs.list). */
export function jobSummary(j: JobRecord): JobSummary {
  return {
    id: j.id,
    name: j.spec.name ?? j.id,
    kind: j.kind,
    state: j.state,
    tries: j.tries,
    lastFailure: j.lastFailure,
    size: j.size,
    min: j.min,
    max: j.max,
    ...(j.malleable && !j.ended && j.cap < j.max ? { cap: j.cap } : {}),
    placement: j.spec.placement,
    clusters: j.components.map((c) => c.cluster),
    submitted: j.transitions[0]!.time,
  };
}

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

/**
 * The last `limit` of the jobs still held and those released, in submission order (as the scheduler alone lists them),
 * and how many there are: a run lists the same before and after its ended jobs leave memory.
 */
export function listJobs(held: readonly JobRecord[], released: ReadonlyArray<{ seq: number; summary: JobSummary }>, limit: number): { jobs: JobSummary[]; total: number } {
  const total = held.length + released.length;
  if (!released.length) return { jobs: held.slice(-limit).map(jobSummary), total };
  const gone = [...released].sort((a, b) => a.seq - b.seq);
  // Merged from the end, newest first, until `limit`.
  const out: JobSummary[] = [];
  let h = held.length - 1;
  let g = gone.length - 1;
  while (out.length < limit && (h >= 0 || g >= 0)) {
    if (g < 0 || (h >= 0 && held[h]!.seq > gone[g]!.seq)) out.push(jobSummary(held[h--]!));
    else out.push(gone[g--]!.summary);
  }
  return { jobs: out.reverse(), total };
}

/**
 * A released job's allocated size over time, from its events (each start, adoption, grow, shrink and evolution gives
 * its size; the end gives 0). Decision: its non-preemptive and preemptive views ended with it and are not rebuilt:
 * both read 0 from its end.
 */
export function viewsFromEvents(events: readonly SchedulerEvent[], now: number): { now: number; nonPreemptive: ViewStep[]; preemptive: ViewStep[]; allocated: ViewStep[] } {
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
