// A trace replayed from columns (swf-jobs.ts): each job's spec is built as it arrives, and the schedule is the one its
// specs, built all at once, give (issue 17).
import { describe, expect, it } from 'vitest';
import { gridSpecSchema, jobSpecSchema, type JobSpec } from '../../core/model/schemas.js';
import { singleCluster } from '../../core/sim/grids.js';
import type { JobSequence } from '../../core/sim/job-sequence.js';
import { SimWorld } from '../../core/sim/world.js';
import { parseSwf, parseSwfTrace } from '../../core/sim/workloads/swf.js';

function mustOk<T>(r: { ok: true; value: T } | { ok: false; errors: unknown }): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.errors)}`);
  return r.value;
}

const record = (n: number, submit: number, run: number, procs: number) =>
  `${n} ${submit} -1 ${run} ${procs} -1 -1 ${procs} ${run + 10} -1 1 1 1 -1 1 -1 -1 -1`;
// Out of submit order (SWF asks for it, some logs break it), with ties: job 4 and job 2 share second 100.
const unsorted = [
  record(1, 50, 30, 2),
  record(2, 100, 40, 4),
  record(3, 20, 60, 3),
  record(4, 100, 20, 1),
  record(5, 70, 10, 4),
].join('\n');

function world(jobs: readonly JobSpec[] | JobSequence): SimWorld {
  return new SimWorld({ grid: gridSpecSchema.parse(singleCluster(4)), jobs, seed: 1, background: false });
}

describe('a trace held as columns', () => {
  it('gives the specs parseSwf gives, in file order, and in submit order (ties in file order) as a sequence', () => {
    const trace = mustOk(parseSwfTrace(unsorted, 't')).jobs;
    const specs = mustOk(parseSwf(unsorted, 't')).jobs;
    expect(trace.specs()).toEqual(specs);
    for (const spec of specs) expect(jobSpecSchema.parse(spec)).toEqual(spec);
    const inOrder = Array.from({ length: trace.length }, (_, k) => trace.spec(k));
    expect(inOrder.map((s) => s.id)).toEqual(['swf-3', 'swf-1', 'swf-5', 'swf-2', 'swf-4']);
    expect(inOrder.map((s, k) => trace.submitTime(k) - s.submitTime)).toEqual([0, 0, 0, 0, 0]);
    // A fresh spec each time: the simulator may keep one while the job runs, and nothing else holds it.
    expect(trace.spec(0)).not.toBe(trace.spec(0));
    trace.placement = 'cf';
    expect(trace.spec(0).placement).toBe('cf');
  });

  it('has each spec built once, as its job arrives, and replays as the specs built beforehand do', () => {
    const trace = mustOk(parseSwfTrace(unsorted, 't')).jobs;
    const builtAt: Array<[string, number]> = [];
    const counted: JobSequence = {
      length: trace.length,
      submitTime: (k) => trace.submitTime(k),
      spec: (k) => {
        const spec = trace.spec(k);
        builtAt.push([spec.id!, lazy.engine.now]);
        return spec;
      },
    };
    const lazy = world(counted);
    lazy.run();
    expect(builtAt).toEqual([
      ['swf-3', 0],
      ['swf-1', 30],
      ['swf-5', 50],
      ['swf-2', 80],
      ['swf-4', 80],
    ]);
    const eager = world(mustOk(parseSwf(unsorted, 't')).jobs);
    eager.run();
    expect(lazy.metrics.jobs()).toEqual(eager.metrics.jobs());
    expect(lazy.metrics.jobs()).toHaveLength(5);
  });

  it("reads every job back across the columns' chunks (4096 rows each), out of order too", () => {
    // 3 chunks and a bit; every 1000th job submitted a second before the one ahead of it, so the file is out of order.
    const n = 3 * 4096 + 5;
    const submitOf = (i: number) => 1_000 + 2 * i - (i % 1000 === 999 ? 3 : 0);
    const text = Array.from({ length: n }, (_, i) => record(i + 1, submitOf(i), 10 + (i % 97), 1 + (i % 7))).join('\n');
    const trace = mustOk(parseSwfTrace(text, 't')).jobs;
    const expected = Array.from({ length: n }, (_, i) => ({
      id: `swf-${i + 1}`,
      kind: 'rigid',
      components: [{ processors: 1 + (i % 7), program: 'swf', args: [], inputFiles: [] }],
      placement: 'wf',
      submitTime: submitOf(i) - submitOf(0),
      walltime: 10 + (i % 97) + 10,
      app: { model: 'fixed', runtime: 10 + (i % 97) },
    }));
    expect(trace.specs()).toEqual(expected);
    const bySubmit = [...expected].sort((a, b) => a.submitTime - b.submitTime);
    expect(Array.from({ length: n }, (_, k) => trace.spec(k))).toEqual(bySubmit);
    expect(Array.from({ length: n }, (_, k) => trace.submitTime(k))).toEqual(bySubmit.map((s) => s.submitTime));
  });
});
