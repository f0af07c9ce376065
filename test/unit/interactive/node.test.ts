// A worker node's ghosts (tasks that left it): they count in its admission test until the node is idle, and stop
// counting at their last instance's deadline only when every task of the test has D = T.
import { describe, expect, it } from 'vitest';
import { WorkerNodeState, type HostedTask } from '../../../core/interactive/node.js';
import { nodeSharings } from '../../../core/interactive/sharing.js';
import { EdfWorker, type Completion } from '../../../core/sim/interactive/worker.js';

const task = (jobId: string, costMs: number, deadlineMs: number, periodMs: number): HostedTask => ({
  jobId,
  index: 0,
  generation: 1,
  costMs,
  periodMs,
  deadlineMs,
});

/** A node hosting `stays`, from which `leaves` departed at 0 (its instance released then). */
const nodeAfterDeparture = (stays: HostedTask, leaves: HostedTask) => {
  const node = new WorkerNodeState(0);
  node.at(0);
  node.add(stays);
  node.add(leaves);
  node.remove(leaves.jobId);
  return node;
};

describe('WorkerNodeState ghosts', () => {
  it('D = T everywhere: a ghost stops counting at its last instance deadline, even on a node never idle', () => {
    // A (5, 10, 10) stays; b (5, 10, 10) leaves at 0: its instance's deadline is 10. The node is busy 0..10.
    const node = nodeAfterDeparture(task('a', 5, 10, 10), task('b', 5, 10, 10));
    const next = task('c', 5, 10, 10);
    node.at(5);
    expect(node.test([next])).toMatchObject({ feasible: false, code: 'utilization' });
    expect(node.report()).toMatchObject({ tasks: 1, ghosts: 1, utilization: 1 });
    node.at(10);
    expect(node.test([next])).toMatchObject({ feasible: true, utilization: 1 });
    expect(node.report()).toMatchObject({ tasks: 1, ghosts: 0, utilization: 0.5 });
  });

  it('a newcomer with D < T still meets the ghost after its deadline (until the node is idle)', () => {
    const node = nodeAfterDeparture(task('a', 5, 10, 10), task('b', 5, 10, 10));
    node.at(10);
    // Without the ghost, A and (5, 9, 10) pass the demand test (5 by 9, 10 by 10); with it, U = 1.5.
    expect(node.test([task('c', 5, 9, 10)])).toMatchObject({ feasible: false });
    node.idle();
    expect(node.test([task('c', 5, 9, 10)])).toMatchObject({ feasible: true });
  });

  it('with D < T a ghost counts past its deadline: dropping it then would admit a set that misses', () => {
    // A (5, 10, 10) stays; b (5, 5, 100) leaves at 0, its instance released with A's. At b's deadline (5) the node
    // is busy: A's instance still needs 5 by 10. A new (5, 5, 100) passes the demand test with A alone ...
    const node = nodeAfterDeparture(task('a', 5, 10, 10), task('b', 5, 5, 100));
    const next = task('c', 5, 5, 100);
    node.at(5);
    expect(node.test([next])).toMatchObject({ feasible: false, code: 'demand' });
    const alone = new WorkerNodeState(1);
    alone.add(task('a', 5, 10, 10));
    expect(alone.test([next]).feasible).toBe(true);
    // ... and the EDF schedule of what would then run misses a deadline at 10.
    const worker = new EdfWorker(0);
    const completions: Completion[] = [];
    const release = (jobId: string, atMs: number, deadlineMs: number) =>
      worker.release({
        jobId,
        taskIndex: 0,
        generation: 1,
        releaseMs: atMs,
        deadlineAtMs: atMs + deadlineMs,
        costMs: 5,
        demandMs: 5,
        seq: completions.length + worker.pending,
        executedMs: 0,
      });
    release('a', 0, 10);
    release('b', 0, 5);
    worker.advance(
      5,
      (c) => completions.push(c),
      () => {},
    );
    release('c', 5, 5);
    worker.advance(
      20,
      (c) => completions.push(c),
      () => {},
    );
    expect(completions.some((c) => c.missed)).toBe(true);
    // Once the node has been idle it holds A alone.
    node.idle();
    expect(node.test([next]).feasible).toBe(true);
  });

  it('idleByMs: when a node that sees no idle instant has certainly been idle', () => {
    // {A (5, 10, 10), b (5, 5, 100)}: L = ⌈10/10⌉·5 + ⌈10/100⌉·5 = 10, from the departure at 0.
    const node = nodeAfterDeparture(task('a', 5, 10, 10), task('b', 5, 5, 100));
    expect(node.idleByMs()).toBe(10);
    node.at(3);
    expect(node.idleByMs()).toBe(13);
    // A leaves too at 3: nothing is released any more, the last instances end by their deadlines (b's 5, A's 13).
    node.remove('a');
    expect(node.idleByMs()).toBe(13);
    // D = T reclaiming: c took the bandwidth of d's ghost (gone at 10), so tasks and ghosts sum to U > 1: no bound.
    const reclaimed = nodeAfterDeparture(task('a', 5, 10, 10), task('d', 5, 10, 10));
    reclaimed.at(10);
    reclaimed.add(task('c', 5, 10, 10));
    expect(reclaimed.idleByMs()).toBe(Number.POSITIVE_INFINITY);
    expect(new WorkerNodeState(2).idleByMs()).toBe(0);
  });

  it("exclusive: another job's ghost holds the node until its deadline, the job's own never", () => {
    const node = new WorkerNodeState(0);
    node.at(0);
    node.add(task('b', 5, 5, 100));
    node.remove('b');
    node.at(4);
    expect(nodeSharings.exclusive.accepts(node, task('c', 5, 10, 10), false)).toEqual({ ok: false, code: 'other-job' });
    expect(nodeSharings.exclusive.accepts(node, task('b', 5, 10, 10), false)).toMatchObject({ ok: true });
    node.at(5);
    expect(nodeSharings.exclusive.accepts(node, task('c', 5, 10, 10), false)).toMatchObject({ ok: true });
  });
});
