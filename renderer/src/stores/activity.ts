// Grow and shrink activity: the host's counts over the whole run (activity.history, bucketed and bounded in the host),
// loaded when the view opens and refreshed while it is open; from the event stream, a bounded list of those events
// (job.grown, job.shrunk) — counted per bucket of virtual time per cluster when the host's history is not there —
// evolving jobs' updates (evolve.requested, job.evolved, evolve.refused, fpe.growFailed, fpe.mutualWait), malleable
// jobs' failed grows (job.growFailed), and every job's own events (bounded per job and in the number of jobs).
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ApiClient, MethodOutput, SchedulerEvent, StreamMessage } from '../api/types.js';

/** The host's activity over the whole run (activity.history). */
export type ActivityHistory = MethodOutput<'activity.history'>;

/** At most this many grow/shrink events are kept. */
export const ACTIVITY_LIMIT = 5000;
/** At most this many events are kept per job. */
export const JOB_EVENTS_LIMIT = 200;
/** At most this many jobs have their events kept (the least recently active are dropped first). */
export const JOB_LIMIT = 2000;
export const BUCKET_SECONDS = 60;
export const BUCKET_COUNT = 60;
export const LATEST_COUNT = 50;
/** After a gap in the stream, the histories of at most this many jobs are fetched again. */
export const RESYNC_JOBS = 100;

export type ResizeEvent = Extract<SchedulerEvent, { type: 'job.grown' | 'job.shrunk' }>;

export function isResize(e: SchedulerEvent): e is ResizeEvent {
  return e.type === 'job.grown' || e.type === 'job.shrunk';
}

export type EvolveEvent = Extract<
  SchedulerEvent,
  { type: 'evolve.requested' | 'job.evolved' | 'evolve.refused' | 'fpe.growFailed' | 'fpe.mutualWait' }
>;

export function isEvolve(e: SchedulerEvent): e is EvolveEvent {
  return (
    e.type === 'evolve.requested' ||
    e.type === 'job.evolved' ||
    e.type === 'evolve.refused' ||
    e.type === 'fpe.growFailed' ||
    e.type === 'fpe.mutualWait'
  );
}

/** A malleable job's grow that failed: processors granted that will not come. */
export type FailedGrowEvent = Extract<SchedulerEvent, { type: 'job.growFailed' }>;

export function isFailedGrow(e: SchedulerEvent): e is FailedGrowEvent {
  return e.type === 'job.growFailed';
}

/** Interactive jobs' deadline misses and re-placements after an overrun. */
export type InteractiveEvent = Extract<SchedulerEvent, { type: 'interactive.missed' | 'interactive.replaced' }>;

export function isInteractive(e: SchedulerEvent): e is InteractiveEvent {
  return e.type === 'interactive.missed' || e.type === 'interactive.replaced';
}

/** What the Activity view lists. */
export type ActivityEvent = ResizeEvent | EvolveEvent | FailedGrowEvent | InteractiveEvent;

/** The job an event is about, if any. */
export function jobOf(e: SchedulerEvent): string | undefined {
  return 'jobId' in e ? e.jobId : undefined;
}

export interface Buckets {
  /** Seconds per bucket. */
  bucketS: number;
  /** Start time of each bucket, oldest first. */
  starts: number[];
  clusters: string[];
  /** Per cluster, the grow (and shrink) operations per bucket, aligned with `starts`. */
  grows: Record<string, number[]>;
  shrinks: Record<string, number[]>;
}

/** Counts grow and shrink operations per cluster in the `count` buckets of `size` seconds ending at the latest one. */
export function bucketize(
  events: readonly ResizeEvent[],
  now: number,
  size = BUCKET_SECONDS,
  count = BUCKET_COUNT,
): Buckets {
  const last = Math.floor(Math.max(0, now) / size);
  const first = Math.max(0, last - count + 1);
  const starts: number[] = [];
  for (let b = first; b <= last; b++) starts.push(b * size);
  const clusters = [...new Set(events.map((e) => e.cluster))].sort();
  const grows: Record<string, number[]> = {};
  const shrinks: Record<string, number[]> = {};
  for (const c of clusters) {
    grows[c] = starts.map(() => 0);
    shrinks[c] = starts.map(() => 0);
  }
  for (const e of events) {
    const b = Math.floor(e.t / size);
    if (b < first || b > last) continue;
    const into = e.type === 'job.grown' ? grows : shrinks;
    into[e.cluster]![b - first]! += 1;
  }
  return { bucketS: size, starts, clusters, grows, shrinks };
}

/**
 * A value as JSON with every object's keys sorted: the same event from the stream and from jobs.events (whose schema
 * puts `type` and `t` first) gives the same text.
 */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `held` and `fetched` as one list, each event once, in time order, the last ACTIVITY_LIMIT. */
function mergeEvents<E extends SchedulerEvent>(held: readonly E[], fetched: readonly E[]): E[] {
  const byText = new Map<string, E>();
  for (const e of [...held, ...fetched]) byText.set(canonical(e), e);
  return [...byText.values()].sort((a, b) => a.t - b.t).slice(-ACTIVITY_LIMIT);
}

export function defineActivityStore(client: ApiClient) {
  return defineStore('activity', () => {
    /** Grow/shrink events, oldest first, at most ACTIVITY_LIMIT. */
    const events = shallowRef<ResizeEvent[]>([]);
    /** Evolving jobs' updates, oldest first, at most ACTIVITY_LIMIT. */
    const updates = shallowRef<EvolveEvent[]>([]);
    /** Malleable jobs' failed grows, oldest first, at most ACTIVITY_LIMIT. */
    const failedGrows = shallowRef<FailedGrowEvent[]>([]);
    /** Interactive jobs' misses and re-placements, oldest first, at most ACTIVITY_LIMIT. */
    const interactive = shallowRef<InteractiveEvent[]>([]);
    /** Per job, its events, oldest first, at most JOB_EVENTS_LIMIT each. */
    const jobEvents = shallowRef<Map<string, SchedulerEvent[]>>(new Map());
    /** The latest virtual time seen on the stream. */
    const now = ref(0);
    /** The host's counts over the whole run, once loaded (loadHistory). */
    const history = shallowRef<ActivityHistory | null>(null);
    const historyError = ref('');

    /** The whole run's counts from the host; before they come, what the stream brought since the page opened. */
    const buckets = computed<Buckets>(() => history.value ?? bucketize(events.value, now.value));
    /** Operations over the whole run (the host's totals), or those the stream brought. */
    const totals = computed(() => {
      if (history.value) return { failedGrows: 0, misses: 0, replacements: 0, ...history.value.totals };
      const grows = events.value.filter((e) => e.type === 'job.grown').length;
      const misses = interactive.value.filter((e) => e.type === 'interactive.missed').length;
      return {
        grows,
        shrinks: events.value.length - grows,
        failedGrows: failedGrows.value.length,
        updates: updates.value.length,
        misses,
        replacements: interactive.value.length - misses,
      };
    });
    /** The latest grow, shrink and update events, newest first. */
    const latest = computed<ActivityEvent[]>(() => {
      const merged: ActivityEvent[] = [
        ...events.value.slice(-LATEST_COUNT),
        ...updates.value.slice(-LATEST_COUNT),
        ...failedGrows.value.slice(-LATEST_COUNT),
        ...interactive.value.slice(-LATEST_COUNT),
      ];
      merged.sort((a, b) => a.t - b.t);
      return merged.slice(-LATEST_COUNT).reverse();
    });

    function add(e: SchedulerEvent) {
      if (e.t > now.value) now.value = e.t;
      if (isResize(e)) {
        const list = events.value;
        events.value =
          list.length >= ACTIVITY_LIMIT ? [...list.slice(list.length - ACTIVITY_LIMIT + 1), e] : [...list, e];
      } else if (isEvolve(e)) {
        const list = updates.value;
        updates.value =
          list.length >= ACTIVITY_LIMIT ? [...list.slice(list.length - ACTIVITY_LIMIT + 1), e] : [...list, e];
      } else if (isFailedGrow(e)) {
        const list = failedGrows.value;
        failedGrows.value =
          list.length >= ACTIVITY_LIMIT ? [...list.slice(list.length - ACTIVITY_LIMIT + 1), e] : [...list, e];
      } else if (isInteractive(e)) {
        const list = interactive.value;
        interactive.value =
          list.length >= ACTIVITY_LIMIT ? [...list.slice(list.length - ACTIVITY_LIMIT + 1), e] : [...list, e];
      }
      const jobId = jobOf(e);
      if (jobId !== undefined) {
        const map = new Map(jobEvents.value);
        const prior = map.get(jobId) ?? [];
        map.delete(jobId); // re-inserted last: the map's order is least recently active first
        map.set(
          jobId,
          prior.length >= JOB_EVENTS_LIMIT ? [...prior.slice(prior.length - JOB_EVENTS_LIMIT + 1), e] : [...prior, e],
        );
        while (map.size > JOB_LIMIT) map.delete(map.keys().next().value!);
        jobEvents.value = map;
      }
    }

    function receive(message: StreamMessage) {
      if (message.topic === 'event') add(message.event);
      else if (message.topic === 'gap') void resync();
      else if (message.topic === 'snapshot') {
        // Virtual time only goes back when the host started a new run (sim.reset): the old events are another run's.
        if (message.snapshot.time < now.value) clear();
        if (message.snapshot.time > now.value) now.value = message.snapshot.time;
      }
    }

    /**
     * Brings in a job's whole history from the host (events from before this console opened): the host's list, then
     * any the stream brought that it did not have yet.
     */
    async function loadJob(jobId: string): Promise<string> {
      const result = await client.call('jobs.events', { jobId });
      if (!result.ok) return result.errors.map((e) => e.message).join('; ');
      const fetched = result.value.events as unknown as SchedulerEvent[];
      const known = new Set(fetched.map(canonical));
      const live = (jobEvents.value.get(jobId) ?? []).filter((e) => !known.has(canonical(e)));
      const map = new Map(jobEvents.value);
      map.delete(jobId);
      map.set(jobId, [...fetched, ...live].slice(-JOB_EVENTS_LIMIT));
      while (map.size > JOB_LIMIT) map.delete(map.keys().next().value!);
      jobEvents.value = map;
      return '';
    }

    let resyncing: Promise<void> | undefined;
    /**
     * After a gap in the stream (events the host dropped for a connection that fell behind): the histories of the
     * jobs most likely to have changed — the running ones, then the most recently active — fetched again, and the
     * activity lists rebuilt from them with what they already held.
     */
    function resync(): Promise<void> {
      resyncing ??= (async () => {
        try {
          const running = await client.call('jobs.list', { states: ['running'], limit: RESYNC_JOBS });
          const runningIds = running.ok ? running.value.jobs.map((j) => j.id) : [];
          const recentIds = [...jobEvents.value.keys()].reverse();
          const ids = [...new Set([...runningIds, ...recentIds])].slice(0, RESYNC_JOBS);
          await Promise.all(ids.map(loadJob));
          const fetched = ids.flatMap(eventsOf);
          events.value = mergeEvents(events.value, fetched.filter(isResize));
          updates.value = mergeEvents(updates.value, fetched.filter(isEvolve));
          failedGrows.value = mergeEvents(failedGrows.value, fetched.filter(isFailedGrow));
          interactive.value = mergeEvents(interactive.value, fetched.filter(isInteractive));
          for (const e of fetched) if (e.t > now.value) now.value = e.t;
        } finally {
          resyncing = undefined;
        }
      })();
      return resyncing;
    }

    let loadingHistory: Promise<void> | undefined;
    /** The host's totals when its latest operations were last merged into the lists. */
    let mergedTotals = '';
    /**
     * The host's activity over the whole run: its bucketed counts for the chart, and its latest operations merged
     * into the lists (each event once), so a page opened late shows what one open from the start shows.
     */
    function loadHistory(): Promise<void> {
      loadingHistory ??= (async () => {
        try {
          const result = await client.call('activity.history', {});
          if (!result.ok) {
            historyError.value = result.errors.map((e) => e.message).join('; ');
            return;
          }
          historyError.value = '';
          const h = result.value;
          history.value = h;
          // The lists are merged again only when the host has had operations since its last answer.
          const totals = `${h.totals.grows}:${h.totals.shrinks}:${h.totals.failedGrows ?? 0}:${h.totals.updates}:${h.totals.misses ?? 0}:${h.totals.replacements ?? 0}`;
          if (totals !== mergedTotals) {
            mergedTotals = totals;
            const latest = h.latest as unknown as SchedulerEvent[];
            events.value = mergeEvents(events.value, latest.filter(isResize));
            updates.value = mergeEvents(updates.value, latest.filter(isEvolve));
            failedGrows.value = mergeEvents(failedGrows.value, latest.filter(isFailedGrow));
            interactive.value = mergeEvents(interactive.value, latest.filter(isInteractive));
          }
          if (h.now > now.value) now.value = h.now;
        } finally {
          loadingHistory = undefined;
        }
      })();
      return loadingHistory;
    }

    function eventsOf(jobId: string): SchedulerEvent[] {
      return jobEvents.value.get(jobId) ?? [];
    }

    /** The job's size over time as far as its events tell (started, grown, shrunk, ended → 0). */
    function sizeSeries(jobId: string): Array<[number, number]> {
      const out: Array<[number, number]> = [];
      for (const e of eventsOf(jobId)) {
        if (
          e.type === 'job.started' ||
          e.type === 'job.grown' ||
          e.type === 'job.shrunk' ||
          e.type === 'job.evolved' ||
          (e.type === 'job.adopted' && e.state === 'running')
        )
          out.push([e.t, e.size]);
        else if (e.type === 'job.ended' && out.length > 0) out.push([e.t, 0]);
      }
      return out;
    }

    function clear() {
      events.value = [];
      updates.value = [];
      failedGrows.value = [];
      interactive.value = [];
      jobEvents.value = new Map();
      now.value = 0;
      history.value = null;
      mergedTotals = '';
    }

    let stop: (() => void) | undefined;
    function connect() {
      if (!stop) stop = client.subscribe(receive);
    }
    function disconnect() {
      stop?.();
      stop = undefined;
    }

    return {
      events,
      updates,
      failedGrows,
      interactive,
      jobEvents,
      now,
      history,
      historyError,
      buckets,
      totals,
      latest,
      add,
      receive,
      loadJob,
      loadHistory,
      resync,
      eventsOf,
      sizeSeries,
      clear,
      connect,
      disconnect,
    };
  });
}
export type ActivityStore = ReturnType<ReturnType<typeof defineActivityStore>>;
