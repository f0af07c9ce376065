// The queue as the host lists it (jobs.list), refreshed on a timer, with a state filter and a search box.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ApiClient, JobSummary } from '../api/types.js';
import type { JobState } from '../../../core/model/job.js';

export const JOB_STATES: readonly JobState[] = ['submitted', 'queued', 'claiming', 'running', 'completed', 'failed', 'cancelled'];

export function defineJobsStore(client: ApiClient) {
  return defineStore('jobs', () => {
    const jobs = shallowRef<JobSummary[]>([]);
    const total = ref(0);
    const states = ref<string[]>([]);
    const search = ref('');
    const loading = ref(false);
    const error = ref('');

    const filtered = computed(() => {
      const q = search.value.trim().toLowerCase();
      const wanted = new Set(states.value);
      return jobs.value.filter(
        (j) =>
          (wanted.size === 0 || wanted.has(j.state)) &&
          (!q || j.id.toLowerCase().includes(q) || j.name.toLowerCase().includes(q) || j.clusters.some((c) => c.toLowerCase().includes(q))),
      );
    });

    async function refresh() {
      loading.value = true;
      try {
        const result = await client.call('jobs.list', { limit: 100_000 });
        if (result.ok) {
          jobs.value = result.value.jobs;
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

    let timer: ReturnType<typeof setInterval> | undefined;
    function startPolling(everyMs = 2000) {
      if (timer) return;
      void refresh();
      timer = setInterval(() => void refresh(), everyMs);
    }
    function stopPolling() {
      if (timer) clearInterval(timer);
      timer = undefined;
    }

    return { jobs, total, states, search, loading, error, filtered, refresh, cancel, startPolling, stopPolling };
  });
}
export type JobsStore = ReturnType<ReturnType<typeof defineJobsStore>>;
