// The plan per cluster (plan.snapshot): loaded when the Plan view opens and refreshed while it is open, on a timer and
// soon after a job starts, ends or is submitted (events gathered for EVENT_DELAY_MS; one request in flight, one more
// queued), so a grid at full speed costs a few requests a second at most.
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ApiClient, MethodOutput, StreamMessage } from '../api/types.js';

export type PlanSnapshot = MethodOutput<'plan.snapshot'>;

/** Events are gathered this long before the plan is asked for again. */
export const EVENT_DELAY_MS = 250;

/** Events after which the plan is asked for again: they change what runs or waits. */
const PLAN_EVENTS: ReadonlySet<string> = new Set([
  'job.submitted',
  'job.started',
  'job.ended',
  'job.placed',
  'job.grown',
  'job.shrunk',
  'job.evolved',
]);

export function definePlanStore(client: ApiClient) {
  return defineStore('plan', () => {
    const plan = shallowRef<PlanSnapshot | null>(null);
    const error = ref('');
    let inFlight: Promise<void> | undefined;
    let again = false;

    async function load(): Promise<void> {
      if (inFlight) {
        again = true;
        return inFlight;
      }
      inFlight = (async () => {
        try {
          do {
            again = false;
            const result = await client.call('plan.snapshot', {});
            if (result.ok) {
              plan.value = result.value;
              error.value = '';
            } else error.value = result.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
          } while (again);
        } finally {
          inFlight = undefined;
        }
      })();
      return inFlight;
    }

    let timer: ReturnType<typeof setInterval> | undefined;
    let soon: ReturnType<typeof setTimeout> | undefined;
    let unsubscribe: (() => void) | undefined;
    const loadSoon = () => {
      soon ??= setTimeout(() => {
        soon = undefined;
        void load();
      }, EVENT_DELAY_MS);
    };
    /** Refreshes every `everyMs`, and after the events that change the plan (and a gap in the stream). */
    function startPolling(everyMs = 2000) {
      if (timer) return;
      void load();
      timer = setInterval(() => void load(), everyMs);
      unsubscribe = client.subscribe((message: StreamMessage) => {
        if (message.topic === 'gap' || (message.topic === 'event' && PLAN_EVENTS.has(message.event.type))) loadSoon();
      });
    }
    function stopPolling() {
      if (timer) clearInterval(timer);
      if (soon) clearTimeout(soon);
      timer = undefined;
      soon = undefined;
      unsubscribe?.();
      unsubscribe = undefined;
    }

    return { plan, error, load, startPolling, stopPolling };
  });
}
export type PlanStore = ReturnType<ReturnType<typeof definePlanStore>>;
