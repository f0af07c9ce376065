// The grid as the host last showed it: the latest snapshot, a bounded utilization history per cluster and for the
// whole grid (built from the snapshots received), the simulation speed and the virtual time, how far the simulation
// is behind its speed, and the run's state (resumed from the store, not resumable, read-only).
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type {
  ApiClient,
  ClusterSnapshot,
  ConnectionState,
  GridSnapshot,
  RunStatus,
  SchedulerEvent,
  Speed,
  StreamMessage,
} from '../api/types.js';

export const HISTORY_LIMIT = 300;

/** One point of a utilization chart. The five parts add up to `processors` (unless the cluster is overcommitted). */
export interface UsagePoint {
  t: number;
  processors: number;
  threshold: number;
  background: number;
  /** Concertina's non-preemptible processors, with earmarked ones (held, not usable). */
  nonPreemptible: number;
  /** Pre-allocated by evolving jobs and not in use by them: held for their growth, lent only preemptibly. */
  preallocated: number;
  preemptible: number;
  idle: number;
}

export function usageOf(c: ClusterSnapshot, t: number): UsagePoint {
  const nonPreemptible = c.nonPreemptible + c.earmarked;
  return {
    t,
    processors: c.processors,
    threshold: c.threshold,
    background: c.background,
    nonPreemptible,
    preallocated: c.preallocatedUnused,
    preemptible: c.preemptible,
    idle: Math.max(0, c.processors - c.background - nonPreemptible - c.preallocatedUnused - c.preemptible),
  };
}

/** The grid total: the sum of the clusters' points. */
export function totalOf(points: readonly UsagePoint[], t: number): UsagePoint {
  const total: UsagePoint = {
    t,
    processors: 0,
    threshold: 0,
    background: 0,
    nonPreemptible: 0,
    preallocated: 0,
    preemptible: 0,
    idle: 0,
  };
  for (const p of points) {
    total.processors += p.processors;
    total.threshold += p.threshold;
    total.background += p.background;
    total.nonPreemptible += p.nonPreemptible;
    total.preallocated += p.preallocated;
    total.preemptible += p.preemptible;
    total.idle += p.idle;
  }
  return total;
}

function pushBounded<T>(list: T[], item: T, limit: number): T[] {
  const next = list.length >= limit ? list.slice(list.length - limit + 1) : list.slice();
  next.push(item);
  return next;
}

export function defineGridStore(client: ApiClient) {
  return defineStore('grid', () => {
    const snapshot = shallowRef<GridSnapshot | undefined>();
    const history = shallowRef<Record<string, UsagePoint[]>>({});
    const totalHistory = shallowRef<UsagePoint[]>([]);
    const speed = ref<Speed>('pause');
    const time = ref(0);
    const connection = ref<ConnectionState>('connecting');
    /** The event stream was open once: losing it now is news (before, the page is still connecting). */
    const everOpen = ref(false);
    /**
     * The page has lost its host: the stream dropped (tried again), or the host refuses the page's token (it was
     * restarted). What the page shows is as the host last said.
     */
    const hostLost = computed(() => connection.value === 'refused' || (everOpen.value && connection.value !== 'open'));
    const lastEvents = shallowRef<SchedulerEvent[]>([]);
    const errors = ref<string[]>([]);
    /** Why the host refused the last speed change ('' when it took it). */
    const speedError = ref('');
    /** Why the host refused to open the run read-only ('' when it did). */
    const runError = ref('');
    const openingReadOnly = ref(false);

    const run = computed<RunStatus>(() => snapshot.value?.run ?? { state: 'running' });
    const behindS = computed(() => snapshot.value?.behindS ?? 0);
    /** Why the speed cannot be changed now, as the host says it (a live run follows real time); '' when it can. */
    const speedFixed = computed(() => snapshot.value?.speedFixed ?? '');
    const clusters = computed(() => snapshot.value?.clusters ?? []);
    const current = computed(() => {
      const t = snapshot.value?.time ?? 0;
      const points = clusters.value.map((c) => usageOf(c, t));
      return {
        byCluster: Object.fromEntries(clusters.value.map((c, i) => [c.name, points[i]!])),
        total: totalOf(points, t),
      };
    });

    /** Forgets the grid and its history (a new run starts). */
    function clear() {
      snapshot.value = undefined;
      history.value = {};
      totalHistory.value = [];
      lastEvents.value = [];
    }

    function applySnapshot(s: GridSnapshot) {
      // Virtual time only goes back when the host started a new run (sim.reset): the old history is another grid's.
      if (snapshot.value && s.time < snapshot.value.time) clear();
      snapshot.value = s;
      time.value = s.time;
      speed.value = s.speed;
      const points = s.clusters.map((c) => usageOf(c, s.time));
      const next: Record<string, UsagePoint[]> = { ...history.value };
      s.clusters.forEach((c, i) => {
        next[c.name] = pushBounded(next[c.name] ?? [], points[i]!, HISTORY_LIMIT);
      });
      history.value = next;
      totalHistory.value = pushBounded(totalHistory.value, totalOf(points, s.time), HISTORY_LIMIT);
    }

    function receive(message: StreamMessage) {
      if (message.topic === 'snapshot') applySnapshot(message.snapshot);
      else if (message.topic === 'event') lastEvents.value = pushBounded(lastEvents.value, message.event, 100);
    }

    async function refresh() {
      const result = await client.call('grid.snapshot', {});
      if (!result.ok) errors.value = result.errors.map((e) => e.message);
      // An answer older than a snapshot the stream brought meanwhile is stale, not a new run.
      else if (!(snapshot.value && result.value.time < snapshot.value.time)) applySnapshot(result.value);
    }

    /** Puts the host's downsampled history of the run before what this console has seen itself. */
    async function loadHistory() {
      const result = await client.call('grid.history', {});
      if (!result.ok) return;
      const firstSeen = totalHistory.value[0]?.t ?? Number.POSITIVE_INFINITY;
      const older = result.value.samples.filter((s) => s.time < firstSeen);
      if (older.length === 0) return;
      const next: Record<string, UsagePoint[]> = { ...history.value };
      const byCluster = new Map<string, UsagePoint[]>();
      for (const sample of older)
        for (const c of sample.clusters) {
          const list = byCluster.get(c.name) ?? [];
          list.push(usageOf(c, sample.time));
          byCluster.set(c.name, list);
        }
      for (const [name, points] of byCluster) next[name] = [...points, ...(next[name] ?? [])].slice(-HISTORY_LIMIT);
      history.value = next;
      const totals = older.map((sample) =>
        totalOf(
          sample.clusters.map((c) => usageOf(c, sample.time)),
          sample.time,
        ),
      );
      totalHistory.value = [...totals, ...totalHistory.value].slice(-HISTORY_LIMIT);
    }

    async function setSpeed(next: Speed) {
      speedError.value = '';
      const result = await client.call('sim.setSpeed', { speed: next });
      if (result.ok) speed.value = result.value.speed;
      else speedError.value = result.errors.map((e) => e.message).join('; ');
    }

    /** Gives up resuming the stored run (or one that cannot be) and shows it read-only (run.openReadOnly). */
    async function openReadOnly(): Promise<boolean> {
      runError.value = '';
      openingReadOnly.value = true;
      try {
        const result = await client.call('run.openReadOnly', {});
        if (!result.ok) {
          runError.value = result.errors.map((e) => e.message).join('; ');
          return false;
        }
        // Shown at once, not at the next snapshot.
        if (snapshot.value) snapshot.value = { ...snapshot.value, run: result.value };
        return true;
      } finally {
        openingReadOnly.value = false;
      }
    }

    let stop: (() => void) | undefined;
    function connect() {
      if (stop) return;
      const unsubscribe = client.subscribe(receive);
      const unwatch = client.onConnection?.((state) => {
        connection.value = state;
        if (state === 'open') everOpen.value = true;
      });
      stop = () => {
        unsubscribe();
        unwatch?.();
      };
      void refresh().then(loadHistory);
    }
    function disconnect() {
      stop?.();
      stop = undefined;
    }

    return {
      snapshot,
      history,
      totalHistory,
      speed,
      time,
      connection,
      hostLost,
      lastEvents,
      errors,
      speedError,
      runError,
      openingReadOnly,
      run,
      behindS,
      speedFixed,
      clusters,
      current,
      clear,
      applySnapshot,
      receive,
      refresh,
      loadHistory,
      setSpeed,
      openReadOnly,
      connect,
      disconnect,
    };
  });
}
export type GridStore = ReturnType<ReturnType<typeof defineGridStore>>;
