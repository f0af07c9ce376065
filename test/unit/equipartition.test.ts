// Equipartition with filling: the share arithmetic as tables (expected arithmetic in the comments), and the policy
// played message by message through the malleability manager.
import { describe, expect, it } from 'vitest';
import { levelDown, levelUp } from '../../core/malleability/equipartition.js';
import { malleabilityPolicy } from '../../core/malleability/registry.js';
import { grid, harness, malleable } from '../support/harness.js';

describe('levelUp: handing out processors to even out extras', () => {
  it.each([
    // extras 0, 4, 10; 10 to hand out: level 7 takes 7 + 3 + 0 = 10 → 7, 7, 10.
    [[0, 4, 10], [20, 20, 20], 10, [7, 3, 0]],
    // first job has room for 2 only: level 4 takes 2 + 4 + 4 = 10.
    [[0, 0, 0], [2, 20, 20], 10, [2, 4, 4]],
    // level 2 takes 1 + 1 + 1 = 3; the 1 left goes to the earliest job at the level.
    [[1, 1, 1], [10, 10, 10], 4, [2, 1, 1]],
    // more than all the room: everyone gets its room (3 + 1).
    [[0, 5], [3, 1], 50, [3, 1]],
    // nothing to hand out.
    [[0, 0], [5, 5], 0, [0, 0]],
    // a job with no room gets nothing: level 3 takes 0 + 3 = 3.
    [[0, 0], [0, 9], 3, [0, 3]],
  ])('extras %j, room %j, %i to hand out → %j', (have, room, total, expected) => {
    const give = levelUp(have, room, total);
    expect(give).toEqual(expected);
    expect(give.reduce((a, b) => a + b, 0)).toBe(
      Math.min(
        total,
        room.reduce((a, b) => a + b, 0),
      ),
    );
  });
});

describe('levelDown: reclaiming processors from the jobs with the most extras', () => {
  it.each([
    // extras 8, 4, 0; 6 to reclaim: down to level 3 takes 5 + 1 + 0 = 6.
    [[8, 4, 0], 6, [5, 1, 0]],
    // level 4 takes 1 + 1 + 1 = 3; the 1 left comes from the latest job at the level.
    [[5, 5, 5], 4, [1, 1, 2]],
    // more than all the extras: everything (3 + 1).
    [[3, 1], 10, [3, 1]],
    [[3, 1], 0, [0, 0]],
  ])('extras %j, %i to reclaim → %j', (have, total, expected) => {
    expect(levelDown(have, total)).toEqual(expected);
  });
});

describe('the equipartition policy', () => {
  it('is registered by name beside fpsma and egs', () => {
    expect(malleabilityPolicy('equipartition')?.name).toBe('equipartition');
    expect(malleabilityPolicy('fpsma')?.name).toBe('fpsma');
    expect(malleabilityPolicy('egs')?.name).toBe('egs');
  });

  function threeRunning(approach: 'pra' | 'pwa' = 'pra') {
    const h = harness(grid({ a: 20 }), { policy: 'equipartition', approach });
    for (const [t, id] of [
      [0, 'j1'],
      [1, 'j2'],
      [2, 'j3'],
    ] as const) {
      h.at(t).submit(malleable(id, 2, 10));
      h.pass();
      h.startAll();
    }
    return h;
  }

  it('offers equal shares, then what one job declined to those that took all of theirs (filling)', () => {
    const h = threeRunning();
    // 20 - 3 × 2 = 14 free; extras 0, 0, 0 with room 8 each: level 4 takes 12, the 2 left to j1, j2 → 5, 5, 4.
    h.at(3).freed('a', 0);
    h.answerGrow(h.apps.growOffers[0]!, 2); // j1 (FT-like) keeps a power of two: takes 2 of 5
    h.answerGrow(h.apps.growOffers[1]!, 5);
    h.answerGrow(h.apps.growOffers[2]!, 4);
    expect(h.apps.growOffers.slice(0, 3).map((o) => [o.jobId, o.processors])).toEqual([
      ['j1', 5],
      ['j2', 5],
      ['j3', 4],
    ]);
    // 3 left for j2 (extras 5, room 3) and j3 (extras 4, room 4): level 6 takes 1 + 2 = 3.
    h.answerGrow(h.apps.growOffers[3]!, 1);
    h.answerGrow(h.apps.growOffers[4]!, 2);
    expect(h.apps.growOffers.slice(3).map((o) => [o.jobId, o.processors])).toEqual([
      ['j2', 1],
      ['j3', 2],
    ]);
    expect(h.apps.growOffers).toHaveLength(5);
    expect(h.manager('a').grows.reduce((s, g) => s + g.processors, 0)).toBe(14);
  });

  it('shrinks the jobs with the most extras first (PWA making room)', () => {
    const h = threeRunning('pwa');
    h.at(3).freed('a', 0);
    // Offers 5, 5, 4 all taken: extras 5, 5, 4 (sizes 7, 7, 6), 20 used.
    for (let i = 0; i < 3; i++) h.answerGrow(h.apps.growOffers[i]!, h.apps.growOffers[i]!.processors);
    h.growAll();
    expect(h.scheduler.snapshot()[0]).toMatchObject({ preemptible: 14, idle: 0 });
    // A malleable job of minimum 4 needs 4: extras 5, 5, 4 → level 4 takes 1 + 1 + 0 = 2; the 2 left come from the
    // latest jobs at the level: j3 (4 → 3), then j2 (4 → 3) → requests 1, 2, 1, asked newest first.
    h.at(4).submit(malleable('w', 4, 4));
    h.pass();
    for (let i = 0; i < 3; i++) h.answerShrink(h.apps.shrinkRequests[i]!, h.apps.shrinkRequests[i]!.processors);
    expect(h.apps.shrinkRequests.map((r) => [r.jobId, r.processors, r.mandatory])).toEqual([
      ['j3', 1, true],
      ['j2', 2, true],
      ['j1', 1, true],
    ]);
    h.pass();
    h.startAll();
    expect(h.scheduler.job('w')!.state).toBe('running');
  });
});
