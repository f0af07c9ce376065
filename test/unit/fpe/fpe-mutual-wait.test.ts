// Who breaks a mutual wait among stalled profiled jobs, and how (core/scheduler/fpe-mutual-wait.ts), from the jobs'
// figures: each row's arithmetic in its name.
import { describe, expect, it } from 'vitest';
import { breakMutualWait, type StalledStep } from '../../../core/scheduler/fpe-mutual-wait.js';

/** A stalled job: `held` processors, `more` for its next step, `rest` to its end (its next step's unless given). */
function stalled(id: string, seq: number, held: number, more: number, free: number, rest = more): StalledStep {
  return { id, seq, held, more, rest, free };
}

describe('breakMutualWait', () => {
  const cases: Array<{ name: string; jobs: StalledStep[]; background?: number; expected: unknown }> = [
    {
      name: 'one job waits on no other',
      jobs: [stalled('a', 0, 3, 5, 4)],
      expected: undefined,
    },
    {
      name: "a's step fits once the local users' 1 leaves (5 <= 4 + 1): no mutual wait",
      jobs: [stalled('a', 0, 3, 5, 4), stalled('b', 1, 3, 5, 4)],
      background: 1,
      expected: undefined,
    },
    {
      name: 'b yields the 4 free to a, and runs to its end with them (4 <= 4): b takes its step',
      jobs: [stalled('a', 0, 1, 5, 4), stalled('b', 1, 5, 4, 4)],
      expected: { action: 'stepTaken', job: 'b' },
    },
    {
      name: 'the earliest that can run to its end takes its step (b: 3 <= 4, c: 2 <= 4)',
      jobs: [stalled('a', 0, 1, 5, 4), stalled('b', 1, 2, 3, 4), stalled('c', 2, 2, 2, 4)],
      expected: { action: 'stepTaken', job: 'b' },
    },
    {
      name: 'b could take its next step (4 <= 4) but not run to its end (5 > 4): the latest ends',
      jobs: [stalled('a', 0, 1, 5, 4), stalled('b', 1, 5, 4, 4, 5)],
      expected: { action: 'ended', job: 'b' },
    },
    {
      name: "c's 1 lets no one run to its end (a: 5 > 2 + 1, b: 4 > 2 + 1), b's 3 lets a (5 <= 2 + 3): b ends",
      jobs: [stalled('a', 0, 4, 5, 2), stalled('b', 1, 3, 4, 2), stalled('c', 2, 1, 8, 2)],
      expected: { action: 'ended', job: 'b' },
    },
    {
      name: "only a's 4 let another run to its end (b: 4 <= 2 + 4; a: 6 > 2 + 3): a ends, earliest as it is",
      jobs: [stalled('a', 0, 4, 6, 2), stalled('b', 1, 3, 4, 2)],
      expected: { action: 'ended', job: 'a' },
    },
    {
      name: 'no single end lets another run to its end (a: 7 > 1 + 2, b: 7 > 1 + 2): the latest ends',
      jobs: [stalled('a', 0, 2, 7, 1), stalled('b', 1, 2, 7, 1)],
      expected: { action: 'ended', job: 'b' },
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const decision = breakMutualWait(c.jobs, c.background ?? 0);
      expect(decision && { action: decision.action, job: decision.job.id }).toEqual(c.expected);
    });
});
