// The queue as the host lists it (jobs.list), refreshed on a timer, with a state filter and a search box.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ApiClient, JobSummary, JobViews } from '../api/types.js';
import type { JobState } from '../../../core/model/job.js';

export const JOB_STATES: readonly JobState[] = [
  'submitted',
  'queued',
  'claiming',
  'running',
  'completed',
  'failed',
  'cancelled',
];

export function defineJobsStore(client: ApiClient) {
  return defineStore('jobs', () => {
    const jobs = shallowRef<JobSummary[]>([]);
    const total = ref(0);
    const states = ref<string[]>([]);
    const search = ref('');
    /** Only the jobs placed on this cluster (a Grid card's link), or all. */
    const cluster = ref<string | null>(null);
    const loading = ref(false);
    const error = ref('');

    /** The version of the list held, so that a poll when nothing changed costs nothing. */
    let version: string | undefined;

    const filtered = computed(() => {
      const q = search.value.trim().toLowerCase();
      const wanted = new Set(states.value);
      // Unfiltered, the table gets the list itself: a new array would make it reprocess 10,000 rows.
      const on = cluster.value;
      if (!q && wanted.size === 0 && on === null) return jobs.value;
      return jobs.value.filter(
        (j) =>
          (wanted.size === 0 || wanted.has(j.state)) &&
          (on === null || j.clusters.includes(on)) &&
          (!q ||
            j.id.toLowerCase().includes(q) ||
            j.name.toLowerCase().includes(q) ||
            j.clusters.some((c) => c.toLowerCase().includes(q))),
      );
    });

    async function refresh() {
      loading.value = true;
      try {
        const result = await client.call('jobs.list', { limit: 100_000, since: version });
        if (result.ok) {
          if (!result.value.unchanged) jobs.value = result.value.jobs;
          version = result.value.version;
          total.value = result.value.total;
          error.value = '';
        } else error.value = result.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
      } finally {
        loading.value = false;
      }
    }

    /** Cancels a job; answers '' if the host accepted, else why it refused. */
    async function cancel(jobId: string): Promise<string> {
      const result = await client.call('jobs.cancel', { jobId });
      const refused = result.ok ? '' : result.errors.map((e) => e.message).join('; ');
      if (refused) error.value = refused;
      await refresh();
      if (refused) error.value = refused;
      return refused;
    }

    /**
     * An operator's grow (delta > 0) or shrink (delta < 0) of a running malleable job: what the host set going, or
     * why it refused (its messages, the field first).
     */
    async function resize(
      jobId: string,
      delta: number,
    ): Promise<{ ok: true; text: string } | { ok: false; text: string }> {
      const result = await client.call('jobs.resize', { jobId, delta });
      if (!result.ok)
        return {
          ok: false,
          text: result.errors
            .map((e) => (e.path && e.path !== 'jobId' ? `${e.path}: ${e.message}` : e.message))
            .join('; '),
        };
      const { processors, cluster, direction } = result.value;
      void refresh();
      return {
        ok: true,
        text:
          direction === 'grow'
            ? `offered ${processors} more on ${cluster}`
            : `asked to give back ${processors} on ${cluster}`,
      };
    }

    /** A job's views and size history (jobs.views), or why the host could not give them. */
    async function views(jobId: string): Promise<{ ok: true; value: JobViews } | { ok: false; text: string }> {
      const result = await client.call('jobs.views', { jobId });
      return result.ok ? result : { ok: false, text: result.errors.map((e) => e.message).join('; ') };
    }

    let timer: ReturnType<typeof setInterval> | undefined;
    let unsubscribe: (() => void) | undefined;
    /**
     * Refreshes every `everyMs`, and at once when the event stream had a gap (events dropped for a connection that
     * fell behind), except while `busy()` says the view is being used (a scroll stays smooth).
     */
    function startPolling(everyMs = 2000, busy: () => boolean = () => false) {
      if (timer) return;
      void refresh();
      timer = setInterval(() => {
        if (!busy()) void refresh();
      }, everyMs);
      unsubscribe = client.subscribe((message) => {
        if (message.topic === 'gap' && !busy()) void refresh();
      });
    }
    function stopPolling() {
      if (timer) clearInterval(timer);
      timer = undefined;
      unsubscribe?.();
      unsubscribe = undefined;
    }

    return {
      jobs,
      total,
      states,
      search,
      cluster,
      loading,
      error,
      filtered,
      refresh,
      cancel,
      resize,
      views,
      startPolling,
      stopPolling,
    };
  });
}
export type JobsStore = ReturnType<ReturnType<typeof defineJobsStore>>;
