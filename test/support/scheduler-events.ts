// The scheduler's events as a test reads them back: those of one type, for one job or all.
import type { SchedulerEvent } from '../../core/events.js';

/** The events of `type` (of job `jobId` when given), typed as that event. */
export const eventsOf = <T extends SchedulerEvent['type']>(
  events: readonly SchedulerEvent[],
  type: T,
  jobId?: string,
): Array<Extract<SchedulerEvent, { type: T }>> =>
  events.filter(
    (e): e is Extract<SchedulerEvent, { type: T }> =>
      e.type === type && (jobId === undefined || (e as { jobId?: string }).jobId === jobId),
  );
