// builtOnFirstUse (core/model/built-on-first-use.ts): the schemas are built when first used, not when their module
// loads (issue 17's start-up), and behave as if built eagerly.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { builtOnFirstUse } from '../../core/model/built-on-first-use.js';
import { parseWith } from '../../core/model/result.js';

describe('builtOnFirstUse', () => {
  it('builds on the first access, once, not before', () => {
    let builds = 0;
    const value = builtOnFirstUse(() => {
      builds++;
      return { answer: 42 };
    });
    expect(builds).toBe(0);
    expect(value.answer).toBe(42);
    expect('answer' in value).toBe(true);
    expect(Object.keys(value)).toEqual(['answer']);
    expect(builds).toBe(1);
  });

  it('a zod schema behind it parses, composes and names the failing field as the schema itself would', () => {
    const processors = builtOnFirstUse(() => z.number().int('must be a whole number'));
    const cluster = builtOnFirstUse(() => z.strictObject({ name: z.string(), processors: processors.optional() }));
    expect(processors instanceof z.ZodNumber).toBe(true);
    expect(cluster.parse({ name: 'a', processors: 8 })).toEqual({ name: 'a', processors: 8 });
    const grid = z.strictObject({ clusters: z.array(cluster) });
    const parsed = parseWith(grid, { clusters: [{ name: 'a', processors: 1.5 }] });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok)
      expect(parsed.errors).toEqual([{ path: 'clusters[0].processors', message: 'must be a whole number' }]);
  });
});
