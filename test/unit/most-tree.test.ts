// The first index with the largest value, kept as values change (core/scheduler/most-tree.ts): what the scheduler
// asks for Worst-Fit and KOALA's scan instead of looking at every cluster. Checked against a plain scan.
import { describe, expect, it } from 'vitest';
import { MostTree } from '../../core/scheduler/most-tree.js';

/** The first index with the largest value, by a scan: what the tree must answer. */
function scanned(values: readonly number[]): number {
  let most = -1;
  for (let i = 0; i < values.length; i++) if (most < 0 || values[i]! > values[most]!) most = i;
  return most;
}

describe('MostTree', () => {
  it.each([
    // values, then the first index with the most
    { values: [], most: -1 },
    { values: [7], most: 0 },
    { values: [3, 9, 9, 1], most: 1 }, // a tie: the lower index
    { values: [0, 0, 0, 0, 0], most: 0 },
    { values: [1, 2, 3, 4, 5, 6, 7, 8, 9], most: 8 }, // nine leaves: past a power of two
  ])('answers $most for $values', ({ values, most }) => {
    const tree = new MostTree(values.length);
    values.forEach((v, i) => tree.set(i, v));
    expect(tree.most).toBe(most);
  });

  it('follows one value changing at a time as a scan would', () => {
    const values = new Array<number>(13).fill(0);
    const tree = new MostTree(values.length);
    values.forEach((v, i) => tree.set(i, v));
    // A fixed walk of changes (a linear congruential sequence), ties frequent: values 0..5.
    let x = 12345;
    for (let step = 0; step < 2000; step++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const i = x % values.length;
      const v = (x >> 8) % 6;
      values[i] = v;
      tree.set(i, v);
      expect(tree.most).toBe(scanned(values));
    }
    // Taken out (as a cluster with a plan built in a pass): the next one answers.
    const first = scanned(values);
    values[first] = Number.NEGATIVE_INFINITY;
    tree.set(first, Number.NEGATIVE_INFINITY);
    expect(tree.most).toBe(scanned(values));
  });
});
