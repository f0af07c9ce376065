// `{assets}` in a live job's program and arguments: replaced by the cluster's staged folder, every occurrence, and
// nothing else of the request touched.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ASSETS_PLACEHOLDER, expandAssets } from '../../runners/live/assets-placeholder.js';

const request = (program: string, args: string[]) => ({
  jobId: 'j',
  component: 0,
  processors: 2,
  program,
  args,
  tag: 't',
});
const text = fc.string().filter((s) => !s.includes(ASSETS_PLACEHOLDER));

describe('expandAssets', () => {
  it('replaces every placeholder in the program and each argument by the folder, the rest unchanged', () => {
    fc.assert(
      fc.property(text, text, text, (a, b, dir) => {
        const out = expandAssets(
          request(`${a}${ASSETS_PLACEHOLDER}${b}`, [ASSETS_PLACEHOLDER + a + ASSETS_PLACEHOLDER, b]),
          dir,
        );
        expect(out).toEqual(request(`${a}${dir}${b}`, [dir + a + dir, b]));
      }),
    );
  });

  it('returns a request without the placeholder as it is', () => {
    const r = request('/bin/sh', ['-c', '{asset}s {ASSETS}']);
    expect(expandAssets(r, '/x')).toBe(r);
  });
});
