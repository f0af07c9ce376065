// @vitest-environment happy-dom
// The views composable: step points that hold the last value, the span shown, and one request at a time for the
// job that is open (late answers for another job dropped, events meanwhile served by one more request).
import { describe, expect, it } from 'vitest';
import { nextTick, ref, shallowRef } from 'vue';
import {
  horizon,
  stepPoints,
  useJobViews,
  viewsChartOption,
  type ViewsFetch,
} from '../../renderer/src/composables/job-views.js';
import type { JobViews, SchedulerEvent } from '../../renderer/src/api/types.js';

const flat = (now: number, v: number): JobViews => ({
  now,
  nonPreemptive: [{ t: 0, v }],
  preemptive: [{ t: 0, v }],
  allocated: [{ t: 0, v }],
});

/** A fetch whose answers the test releases one by one. */
function controlledFetch() {
  const pending: Array<{ jobId: string; resolve: (v: Awaited<ReturnType<ViewsFetch>>) => void }> = [];
  const fetch: ViewsFetch = (jobId) => new Promise((resolve) => pending.push({ jobId, resolve }));
  return { fetch, pending };
}
const settle = async () => {
  for (let i = 0; i < 5; i++) await nextTick();
};

describe('job views composable', () => {
  it('holds the last value of each view until the end of the span, which runs past now and the last change', () => {
    expect(
      stepPoints(
        [
          { t: 10, v: 3 },
          { t: 50, v: 5 },
        ],
        80,
      ),
    ).toEqual([
      [10, 3],
      [50, 5],
      [80, 5],
    ]);
    // Already ending at the span's end, or empty: nothing added.
    expect(stepPoints([{ t: 80, v: 2 }], 80)).toEqual([[80, 2]]);
    expect(stepPoints([], 80)).toEqual([]);
    // 0..1000 shown, a quarter past the last change at 1000.
    expect(
      horizon({ now: 600, nonPreemptive: [{ t: 0, v: 4 }], preemptive: [{ t: 1000, v: 2 }], allocated: [] }),
    ).toEqual({ from: 0, until: 1250 });
    // A short span still shows a minute past its end.
    expect(horizon(flat(10, 1))).toEqual({ from: 0, until: 70 });
    const option = viewsChartOption(flat(10, 1));
    expect(option.xAxis).toMatchObject({ min: 0, max: 70 });
    expect(option.series.every((s) => s.step === 'end')).toBe(true);
  });

  it('asks for the open job’s views, drops a late answer for another job, and coalesces events into one more request', async () => {
    const { fetch, pending } = controlledFetch();
    const jobId = ref<string | null>('a');
    const events = shallowRef<SchedulerEvent[]>([]);
    const state = useJobViews(
      () => jobId.value,
      () => events.value,
      () => true,
      fetch,
    );
    expect(pending.map((p) => p.jobId)).toEqual(['a']);

    jobId.value = 'b'; // opened another job while a's answer is out
    await settle();
    pending[0]!.resolve({ ok: true, value: flat(5, 9) });
    await settle();
    expect(state.data.value).toBeUndefined(); // a's answer is not shown for b
    expect(pending.map((p) => p.jobId)).toEqual(['a', 'b']);
    pending[1]!.resolve({ ok: true, value: flat(6, 3) });
    await settle();
    expect(state.data.value?.now).toBe(6);
    expect(state.loaded.value).toBe(true);

    const evolved = (t: number): SchedulerEvent => ({
      type: 'job.evolved',
      t,
      jobId: 'b',
      cluster: 'c',
      size: 4,
      preallocation: 8,
    });
    events.value = [evolved(7)];
    await settle();
    expect(pending).toHaveLength(3);
    events.value = [evolved(7), evolved(8)];
    await settle();
    events.value = [evolved(7), evolved(8), evolved(9)];
    await settle();
    expect(pending).toHaveLength(3); // one out: the others wait for it
    pending[2]!.resolve({ ok: false, text: 'gone' });
    await settle();
    expect(state.error.value).toBe('gone');
    expect(state.data.value?.now).toBe(6); // the last good views stay
    expect(pending).toHaveLength(4);
    // An event that does not change the views asks nothing.
    pending[3]!.resolve({ ok: true, value: flat(9, 4) });
    events.value = [
      ...events.value,
      { type: 'grow.offered', t: 10, jobId: 'b', cluster: 'c', offerId: 1, processors: 1 },
    ];
    await settle();
    expect(pending).toHaveLength(4);
    expect(state.error.value).toBe('');
  });

  it('asks nothing while disabled (a job without views)', async () => {
    const { fetch, pending } = controlledFetch();
    const enabled = ref(false);
    const state = useJobViews(
      () => 'r',
      () => [],
      () => enabled.value,
      fetch,
    );
    await settle();
    expect(pending).toHaveLength(0);
    enabled.value = true; // its kind became known
    await settle();
    expect(pending).toHaveLength(1);
    pending[0]!.resolve({ ok: true, value: flat(1, 1) });
    await settle();
    expect(state.data.value?.now).toBe(1);
  });
});
