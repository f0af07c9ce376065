// Ghosts on the scheduler's path, which sees no idle instants: a departed task counts in its node's admission test
// until the node's `idleByMs` (the synchronous busy period of its tasks and ghosts, recomputed at each departure and
// admission). Property: on random small task sets arriving and leaving, every newcomer tried as early as the rule lets
// it in, what the node admitted never misses a deadline under the EDF worker, whatever the tasks' phases.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WorkerNodeState, type HostedTask } from '../../core/interactive/node.js';
import { EdfWorker, type Completion } from '../../core/sim/interactive/worker.js';

interface Candidate {
  /** The first instant it asks (ms); refused, it asks again every ms. */
  readonly from: number;
  /** How long it stays once admitted (ms), or undefined: to the end. */
  readonly stay: number | undefined;
  readonly costMs: number;
  readonly deadlineMs: number;
  readonly periodMs: number;
}

const candidateArb: fc.Arbitrary<Candidate> = fc.integer({ min: 2, max: 12 }).chain((periodMs) =>
  fc.integer({ min: 1, max: periodMs }).chain((deadlineMs) =>
    fc.record({
      from: fc.integer({ min: 0, max: 20 }),
      stay: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
      costMs: fc.integer({ min: 1, max: deadlineMs }),
      deadlineMs: fc.constant(deadlineMs),
      periodMs: fc.constant(periodMs),
    }),
  ),
);

const HORIZON_MS = 200;

/** Runs the scenario on one node; returns the completions that missed. */
function run(candidates: readonly Candidate[]): Completion[] {
  const node = new WorkerNodeState(0);
  const worker = new EdfWorker(0);
  const missed: Completion[] = [];
  const onComplete = (c: Completion) => {
    if (c.missed) missed.push(c);
  };
  const live = new Map<number, { task: HostedTask; since: number; until: number }>();
  const waiting = new Set(candidates.keys());
  let ghostsGoAt = Number.POSITIVE_INFINITY;
  let seq = 0;
  const release = (task: HostedTask, t: number) =>
    worker.release({
      jobId: task.jobId,
      taskIndex: 0,
      generation: 1,
      releaseMs: t,
      deadlineAtMs: t + task.deadlineMs,
      costMs: task.costMs,
      demandMs: task.costMs,
      seq: seq++,
      executedMs: 0,
    });
  const watch = () => {
    ghostsGoAt = node.ghosts.length === 0 ? Number.POSITIVE_INFINITY : node.idleByMs();
  };
  for (let t = 0; t <= HORIZON_MS; t++) {
    worker.advance(t, onComplete, () => {});
    node.at(t);
    if (t >= ghostsGoAt) {
      node.idle();
      ghostsGoAt = Number.POSITIVE_INFINITY;
    }
    // Releases first, then departures: a task leaves just after releasing (its last instance then pending longest).
    for (const { task, since } of live.values()) if ((t - since) % task.periodMs === 0) release(task, t);
    let changed = false;
    for (const [i, l] of live) {
      if (t < l.until) continue;
      live.delete(i);
      node.remove(l.task.jobId);
      changed = true;
    }
    for (const i of waiting) {
      const c = candidates[i]!;
      if (t < c.from) continue;
      const task: HostedTask = { jobId: `t${i}`, index: 0, generation: 1, ...c };
      if (!node.test([task], { withSlack: false }).feasible) continue;
      node.add(task);
      waiting.delete(i);
      live.set(i, { task, since: t, until: c.stay === undefined ? Number.POSITIVE_INFINITY : t + c.stay });
      release(task, t);
      changed = true;
    }
    if (changed) watch();
  }
  // No more releases: whatever is pending completes (late or not).
  worker.advance(HORIZON_MS + 10_000, onComplete, () => {});
  return missed;
}

describe('ghosts without an idle signal', () => {
  it('no task set admitted under the busy-period rule misses a deadline under EDF', () => {
    fc.assert(
      fc.property(fc.array(candidateArb, { minLength: 2, maxLength: 8 }), (candidates) => {
        expect(run(candidates)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('admits the counterexample to the former rule (a ghost gone D after it left) only when it is safe', () => {
    // A = (5, 10, 10) and b = (5, 5, 100) from 0, b leaving at 1; c = (5, 5, 100) asks from 1. With b dropped at 5
    // (D after it left) c came in then and missed at 10; the busy period of {A, b} keeps b until 10.
    const a = { from: 0, stay: undefined, costMs: 5, deadlineMs: 10, periodMs: 10 };
    const b = { from: 0, stay: 1, costMs: 5, deadlineMs: 5, periodMs: 100 };
    const c = { from: 1, stay: undefined, costMs: 5, deadlineMs: 5, periodMs: 100 };
    expect(run([a, b, c])).toEqual([]);
  });
});
