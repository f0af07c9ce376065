// The DBES paper's baselines as malleability policies: who is offered first on a grow, asked first on a shrink, and
// how much, with each job's answer given in full (the generator driven by hand).
import { describe, expect, it } from 'vitest';
import type { MalleabilityPolicy, PolicyProcedure } from '../../../core/malleability/policy.js';
import { malleabilityPolicy } from '../../../core/malleability/registry.js';
import type { ReadonlyJobRecord } from '../../../core/scheduler/job-record.js';

/** A running malleable job: held processors, min, max, start time, walltime. */
function job(
  id: string,
  held: number,
  min: number,
  max: number,
  startTime: number,
  walltime?: number,
): ReadonlyJobRecord {
  const spec = {
    kind: 'malleable',
    components: [{ min, max, program: 'x' }],
    ...(walltime === undefined ? {} : { walltime }),
  };
  return {
    id,
    held,
    min,
    max,
    cap: max,
    startTime,
    spec,
    releasing: 0,
    growable: max - held,
    shrinkable: held - min,
  } as unknown as ReadonlyJobRecord;
}

/** Runs a procedure, every job taking (or giving) all it is asked within its room; returns [id, processors] per step. */
function play(procedure: PolicyProcedure): Array<[string, number]> {
  const steps: Array<[string, number]> = [];
  let input = 0;
  for (;;) {
    const next = procedure.next(input);
    if (next.done) return steps;
    const step = next.value;
    input = 0;
    if (step.kind === 'awaitRelease' || step.kind === 'earmark') continue;
    const room = step.kind === 'offerGrow' ? step.job.growable : step.job.shrinkable;
    input = Math.min(room, step.processors);
    if (input > 0) steps.push([step.job.id, input]);
  }
}

// Listed in start order: a started first (at 0, walltime 1000: deadline 1000), b at 10 (walltime 5000: 5010), c at 20
// (walltime 300: 320). Each holds 4, min 2, max 8.
const jobs = [job('a', 4, 2, 8, 0, 1000), job('b', 4, 2, 8, 10, 5000), job('c', 4, 2, 8, 20, 300)];
const policy = (name: string): MalleabilityPolicy => malleabilityPolicy(name)!;

describe('the baselines: grow and shrink orders', () => {
  it.each([
    // 6 to hand out; each takes up to 4 more.
    [
      'esf',
      [
        ['a', 4],
        ['b', 2],
      ],
    ], // start order
    [
      'edf',
      [
        ['c', 4],
        ['a', 2],
      ],
    ], // deadlines 320, 1000, 5010
    [
      'ldf',
      [
        ['b', 4],
        ['a', 2],
      ],
    ], // deadlines 5010, 1000, 320
    [
      'ep',
      [
        ['a', 2],
        ['b', 2],
        ['c', 2],
      ],
    ], // sizes 4, 4, 4 → 6, 6, 6
    ['rigid', []],
  ])('%s grows %j', (name, expected) => {
    expect(play(policy(name as string).grow(jobs, 6))).toEqual(expected);
  });

  it.each([
    // 3 to reclaim; each can give 2.
    [
      'esf',
      [
        ['c', 2],
        ['b', 1],
      ],
    ], // latest started first
    [
      'edf',
      [
        ['b', 2],
        ['a', 1],
      ],
    ], // latest deadline first
    [
      'ldf',
      [
        ['c', 2],
        ['a', 1],
      ],
    ], // earliest deadline first
    ['rigid', []],
  ])('%s shrinks %j', (name, expected) => {
    expect(play(policy(name as string).shrink(jobs, 3))).toEqual(expected);
  });

  it('ep evens out sizes: the largest give back first, and the smallest grow first', () => {
    const uneven = [job('a', 8, 2, 8, 0), job('b', 4, 2, 8, 10), job('c', 2, 2, 8, 20)];
    // Shrink 5: a 8 → 4 (4), then a and b tie at 4 and the latest listed gives: b → 3 (1). Sizes 4, 3, 2.
    expect(play(policy('ep').shrink(uneven, 5))).toEqual([
      ['b', 1],
      ['a', 4],
    ]);
    // Grow 4: c 2 → 4 (2), then b and c at 4 → 5 each: b 1, c 3. Sizes 8, 5, 5.
    expect(play(policy('ep').grow(uneven, 4))).toEqual([
      ['b', 1],
      ['c', 3],
    ]);
  });

  it('a job without a walltime has the latest deadline', () => {
    const open = [job('x', 4, 2, 8, 0), job('y', 4, 2, 8, 5, 100)];
    expect(play(policy('edf').grow(open, 2))).toEqual([['y', 2]]);
    expect(play(policy('ldf').grow(open, 2))).toEqual([['x', 2]]);
  });
});
