import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { NodePool } from '../../../core/coorm/node-pool.js';

describe('NodePool', () => {
  it('hands out the lowest free IDs first, released ones included', () => {
    const pool = new NodePool(6);
    expect(pool.take(3)).toEqual([0, 1, 2]);
    pool.give(1);
    expect(pool.take(2)).toEqual([1, 3]);
    expect(pool.list()).toEqual([4, 5]);
    expect(pool.size).toBe(2);
  });

  it('behaves as a sorted set under any sequence of takes and gives', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat({ max: 5 })), { maxLength: 60 }), (ops) => {
        const pool = new NodePool(12);
        const free = new Set(Array.from({ length: 12 }, (_, i) => i));
        const held: number[] = [];
        for (const [take, k] of ops) {
          if (take) {
            const n = Math.min(k, free.size);
            const expected = [...free].sort((a, b) => a - b).slice(0, n);
            expect(pool.take(n)).toEqual(expected);
            for (const id of expected) {
              free.delete(id);
              held.push(id);
            }
          } else if (held.length > 0) {
            const id = held.splice(k % held.length, 1)[0]!;
            pool.give(id);
            free.add(id);
          }
        }
        expect(pool.list()).toEqual([...free].sort((a, b) => a - b));
      }),
    );
  });
});
