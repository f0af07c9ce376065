// The baselines' iteration (core/dbes/standard.ts) on scripted clusters: shrink for the next reserved job, else an
// expand phase before backfilling, in each baseline's order.
import { describe, expect, it } from 'vitest';
import type { DbesAction, DbesRunningJob } from '../../../core/dbes/model.js';
import {
  earliestDeadline,
  earliestStarted,
  evenSizes,
  latestDeadline,
  never,
  standardIteration,
} from '../../../core/dbes/standard.js';
import { cluster, malleable, rigid, secondStep, waiting } from './builders.js';

const at = (job: DbesRunningJob, started: number, deadline: number): DbesRunningJob => ({ ...job, started, deadline });
const summary = (actions: readonly DbesAction[]) =>
  actions.map((a) =>
    a.kind === 'start'
      ? `start ${a.jobId} ${a.how}`
      : a.kind === 'expand' || a.kind === 'shrink'
        ? `${a.kind} ${a.jobId} ${a.processors}`
        : a.kind,
  );

describe('the baselines’ iteration', () => {
  // 12: a (started 0, deadline 5000) and b (started 10, deadline 1000), each 2 + 2 (second step), until 4000; 4 idle.
  const running = () => [
    at(malleable('a', 2, 8, 4000, [secondStep(2)]), 0, 5000),
    at(malleable('b', 2, 8, 4000, [secondStep(2)]), 10, 1000),
  ];

  it.each([
    ['esf', earliestStarted, ['shrink b 2', 'shrink a 1', 'start W shrinkPhase']],
    ['edf', earliestDeadline, ['shrink a 2', 'shrink b 1', 'start W shrinkPhase']],
    ['ldf', latestDeadline, ['shrink b 2', 'shrink a 1', 'start W shrinkPhase']],
    ['ep', evenSizes, ['shrink a 1', 'shrink b 2', 'start W shrinkPhase']],
  ] as const)('%s shrinks expanded jobs for the next reserved job in its order', (_name, order, expected) => {
    // W needs 7: 4 idle + 3 from the expansions.
    const out = standardIteration(cluster(12, running(), [waiting('W', 7, 100)]), order);
    expect(summary(out.actions)).toEqual(expected);
  });

  it('rigid never shrinks nor expands: W waits, the small job is backfilled', () => {
    const out = standardIteration(
      cluster(12, running(), [waiting('W', 7, 100), waiting('s', 2, 100)], { reservationDepth: 1 }),
      never,
    );
    expect(summary(out.actions)).toEqual(['start s backfill']);
  });

  it('when shrinking is not enough, the expand phase takes the idle processors before backfilling', () => {
    // W needs 12: 4 idle + 4 of expansions are too few. ESF hands the 4 idle to a (started first); s, which would have
    // fitted in them before W's reservation, is not backfilled.
    const out = standardIteration(
      cluster(12, running(), [waiting('W', 12, 100), waiting('s', 2, 100)], { reservationDepth: 1 }),
      earliestStarted,
    );
    expect(summary(out.actions)).toEqual(['expand a 4']);
  });

  it('EP evens sizes out in its expand phase; EDF and LDF follow deadlines', () => {
    const uneven = () => [
      at(malleable('a', 2, 8, 4000, [secondStep(3)]), 0, 5000),
      at(malleable('b', 2, 8, 4000), 10, 1000),
      rigid('r', 3, 9000),
    ];
    // 12 - 5 - 2 - 3 = 2 idle, nobody waiting.
    expect(summary(standardIteration(cluster(12, uneven(), []), evenSizes).actions)).toEqual(['expand b 2']);
    expect(summary(standardIteration(cluster(12, uneven(), []), earliestDeadline).actions)).toEqual(['expand b 2']);
    expect(summary(standardIteration(cluster(12, uneven(), []), latestDeadline).actions)).toEqual(['expand a 2']);
  });
});
