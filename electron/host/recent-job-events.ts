// A host without a store remembers jobs' events for jobs.events in bounded memory: events by job, at most `limit` in
// all, the jobs least recently active dropped first. Events that are about no job (cluster polls) take no room, so
// at max speed a finished job's history is not pushed out by the grid's own events; a job's history is answered
// without scanning the others'.
import type { SchedulerEvent } from '../../core/events.js';

export class RecentJobEvents {
  /** In order of last activity, least recent first (a job's entry moves to the end when it has an event). */
  private readonly byJob = new Map<string, SchedulerEvent[]>();
  private count = 0;

  constructor(private readonly limit = 20_000) {}

  add(e: SchedulerEvent): void {
    if (!('jobId' in e)) return;
    const list = this.byJob.get(e.jobId) ?? [];
    this.byJob.delete(e.jobId);
    list.push(e);
    this.byJob.set(e.jobId, list);
    this.count++;
    while (this.count > this.limit) {
      const [oldest, events] = this.byJob.entries().next().value!;
      if (oldest === e.jobId) {
        // One job alone is over the limit: its oldest events go.
        this.count -= events.length - this.limit;
        events.splice(0, events.length - this.limit);
        break;
      }
      this.byJob.delete(oldest);
      this.count -= events.length;
    }
  }

  /** The job's events still held, oldest first. */
  of(jobId: string): SchedulerEvent[] {
    return this.byJob.get(jobId)?.slice() ?? [];
  }

  get size(): number {
    return this.count;
  }
}
