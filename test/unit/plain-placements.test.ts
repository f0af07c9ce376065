// Whether every placed job is held the plain way (core/scheduler/plain-placements.ts): the certificate that lets a
// planned pass answer from what is available, without holdings.
import { describe, expect, it } from 'vitest';
import { PlainPlacements, type PlainJob } from '../../core/scheduler/plain-placements.js';

type Job = { spec: { walltime?: number }; startTime: number; malleable: boolean; evolving: boolean };

const rigid = (walltime: number | undefined, startTime = Number.NaN): Job => ({
  spec: walltime === undefined ? {} : { walltime },
  startTime,
  malleable: false,
  evolving: false,
});

/** The ledger's side: a placed set, and the plain placements kept beside it. */
function ledger(): {
  plain: PlainPlacements;
  place(j: Job): void;
  start(j: Job, t: number): void;
  remove(j: Job): void;
} {
  const placed = new Set<PlainJob>();
  const plain = new PlainPlacements(placed);
  return {
    plain,
    place(j) {
      placed.add(j);
      plain.place(j);
    },
    start(j, t) {
      j.startTime = t;
      plain.started(j);
    },
    remove(j) {
      placed.delete(j);
      plain.remove(j);
    },
  };
}

describe('plain placements', () => {
  it('are plain until a placed job passes its estimated end (start plus walltime), and again once it leaves', () => {
    const l = ledger();
    const a = rigid(10);
    const b = rigid(undefined);
    expect(l.plain.plainAt(0)).toBe(true);
    l.place(a);
    l.place(b);
    l.start(a, 5);
    l.start(b, 5);
    expect(l.plain.plainAt(14)).toBe(true);
    // At 15 a holds nothing in the plans while it is still placed.
    expect(l.plain.plainAt(15)).toBe(false);
    l.remove(a);
    expect(l.plain.plainAt(15)).toBe(true);
    // b has no walltime: it holds for ever.
    expect(l.plain.plainAt(1e9)).toBe(true);
  });

  it('skip the end of a job that left before it, even when a job still placed has the same end', () => {
    const l = ledger();
    const [a, b, c] = [rigid(10), rigid(10), rigid(4)];
    for (const j of [a, b, c]) l.place(j);
    l.start(a, 0);
    l.start(b, 0);
    l.start(c, 6);
    l.remove(a);
    l.remove(c);
    expect(l.plain.plainAt(9)).toBe(true);
    expect(l.plain.plainAt(10)).toBe(false);
    l.remove(b);
    expect(l.plain.plainAt(10)).toBe(true);
    expect(l.plain.plainAt(20)).toBe(true);
  });

  it('count the jobs already placed and started when first asked', () => {
    const l = ledger();
    const a = rigid(10);
    l.place(a);
    l.start(a, 0);
    expect(l.plain.plainAt(10)).toBe(false);
  });

  it('are not plain while a malleable or evolving job, one with a walltime of 0, or a grow offer is there', () => {
    const l = ledger();
    const m = { ...rigid(10), malleable: true };
    l.place(m);
    expect(l.plain.plainAt(0)).toBe(false);
    l.remove(m);
    expect(l.plain.plainAt(0)).toBe(true);
    const zero = rigid(0);
    l.place(zero);
    expect(l.plain.plainAt(0)).toBe(false);
    l.remove(zero);
    l.plain.offered(3);
    expect(l.plain.plainAt(0)).toBe(false);
    l.plain.offered(-3);
    expect(l.plain.plainAt(0)).toBe(true);
  });
});
