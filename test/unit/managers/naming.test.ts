// Local job names: they carry the tag and the job id, hold only characters every batch system accepts, and read
// back exactly — for any job id, and never for another tag or a user's job.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeNamePart,
  encodeNamePart,
  localJobName,
  MAX_LOCAL_JOB_NAME,
  parseLocalJobName,
} from '../../../runners/managers/naming.js';

const anyText = fc.string({ unit: 'grapheme', maxLength: 40 });

describe('local job names', () => {
  it('read back exactly, for any tag and job id', () => {
    fc.assert(
      fc.property(
        anyText.filter((t) => t.length > 0),
        anyText,
        fc.nat(999),
        fc.boolean(),
        fc.nat(9999),
        (tag, jobId, component, malleable, member) => {
          const name = {
            tag,
            jobId,
            component,
            kind: malleable ? ('malleable' as const) : ('rigid' as const),
            member: malleable ? member : 0,
          };
          const text = localJobName(name);
          expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
          expect(parseLocalJobName(text, tag)).toEqual(name);
        },
      ),
    );
  });

  it("fit the batch systems' limits with a live run's tag, for generated ids and any ASCII id of up to 64 characters", () => {
    const runTag = fc.stringMatching(/^[a-z0-9]{6}$/).map((id) => `concertina-${id}`);
    const jobId = fc.oneof(
      fc.nat().map((n) => `job-${n}`),
      fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 64 }),
    );
    fc.assert(
      fc.property(runTag, jobId, (tag, id) => {
        expect(
          localJobName({ tag, jobId: id, component: 999_999, kind: 'malleable', member: 9_999_999 }).length,
        ).toBeLessThanOrEqual(MAX_LOCAL_JOB_NAME);
      }),
    );
    expect(localJobName({ tag: 'concertina-k3x9q2', jobId: 'job-7', component: 0, kind: 'malleable', member: 3 })).toBe(
      'cnc-concertina_2dk3x9q2-job_2d7-0-m3',
    );
  });

  it("are never read as another tag's", () => {
    fc.assert(
      fc.property(
        anyText.filter((t) => t.length > 0),
        anyText.filter((t) => t.length > 0),
        anyText,
        (tag, other, jobId) => {
          fc.pre(tag !== other);
          expect(
            parseLocalJobName(localJobName({ tag, jobId, component: 0, kind: 'rigid', member: 0 }), other),
          ).toBeUndefined();
        },
      ),
    );
  });

  it('look like the documented form', () => {
    expect(localJobName({ tag: 'concertina', jobId: 'j7', component: 0, kind: 'malleable', member: 3 })).toBe(
      'cnc-concertina-j7-0-m3',
    );
    expect(localJobName({ tag: 'concertina', jobId: "a b'c", component: 1, kind: 'rigid', member: 0 })).toBe(
      'cnc-concertina-a_20b_27c-1-r0',
    );
  });

  it("do not recognise users' jobs or malformed names", () => {
    for (const name of [
      'sleep',
      'cnc-concertina-',
      'cnc-concertina-j1-0',
      'cnc-concertina-j1-0-r1',
      'cnc-concertina-j1-0-x0',
      'cnc-concertina-j_zz-0-r0',
      'cnc-concertina-j1-01-r0',
      'cnc-other-j1-0-r0',
    ]) {
      expect(parseLocalJobName(name, 'concertina')).toBeUndefined();
    }
  });

  it('decoding refuses what encoding never produces (bad escapes, bytes that are not UTF-8)', () => {
    expect(decodeNamePart('a_4')).toBeUndefined();
    expect(decodeNamePart('a-b')).toBeUndefined();
    expect(decodeNamePart('_ff')).toBeUndefined();
    expect(decodeNamePart(encodeNamePart('naïve ☃'))).toBe('naïve ☃');
  });
});
