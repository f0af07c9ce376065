// Every invalid job or grid is refused with a message naming the field and the rule.
import { describe, expect, it } from 'vitest';
import { parseJob } from '../../core/model/job.js';
import { parseGrid } from '../../core/model/grid.js';
import { describeErrors } from '../../core/model/result.js';
import { jobSpecSchema, storedJobSpecSchema } from '../../core/model/schemas.js';
import { grid, harness } from '../support/harness.js';

const g = grid(
  { a: 32, b: { processors: 64, threshold: 60 } },
  { files: [{ name: 'data', sizeMB: 10, replicas: ['a'] }] },
);
const errorsOf = (input: unknown) => {
  const r = parseJob(input, g);
  return r.ok ? '' : describeErrors(r.errors);
};
const m = (c: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  kind: 'malleable',
  components: [{ program: 'x', ...c }],
  ...extra,
});

describe('job specs', () => {
  it.each([
    ['min above max', m({ min: 4, max: 2 }), 'components[0].min: must not exceed max (min 4 > max 2)'],
    [
      'zero processors',
      { kind: 'rigid', components: [{ processors: 0, program: 'x' }] },
      'components[0].processors: must be at least 1',
    ],
    ['negative processors', m({ min: -1, max: 2 }), 'components[0].min: must be at least 1'],
    ['fractional processors', m({ min: 1.5, max: 2 }), 'components[0].min: must be a whole number of processors'],
    ['non-finite', m({ min: 1, max: Infinity }), 'components[0].max: must be finite'],
    ['not a number', m({ min: '2', max: 4 }), 'components[0].min: must be a number'],
    ['larger than every cluster', m({ min: 61, max: 80 }), 'components[0].min: is larger than every cluster (61 > 60)'],
    ['unknown cluster', m({ min: 1, max: 2, cluster: 'zz' }), 'components[0].cluster: names unknown cluster "zz"'],
    [
      'larger than its cluster',
      m({ min: 40, max: 50, cluster: 'a' }),
      'components[0].min: is larger than cluster a allows (40 > 32)',
    ],
    ['unknown policy', m({ min: 1, max: 2 }, { placement: 'best' }), 'placement: must be one of wf, cf, cm, fcm'],
    [
      'unknown kind',
      { kind: 'elastic', components: [{ program: 'x', processors: 1 }] },
      'kind: must be one of rigid, moldable, malleable',
    ],
    ['missing program', { kind: 'rigid', components: [{ processors: 1 }] }, 'components[0].program: is required'],
    [
      'empty program',
      { kind: 'rigid', components: [{ processors: 1, program: '  ' }] },
      'components[0].program: is required',
    ],
    [
      'arguments typed into the program',
      m({ min: 1, max: 2, program: '{assets}/apps/ft-demo.mjs 400000' }),
      'components[0].program: must be the program alone, one word without spaces: put its arguments in args',
    ],
    [
      'a tab in the program',
      m({ min: 1, max: 2, program: 'a\tb' }),
      'components[0].program: must be the program alone',
    ],
    [
      'a control character in the program',
      m({ min: 1, max: 2, program: 'a\u001b[2Jb' }),
      'components[0].program: must not contain control characters',
    ],
    [
      'a NUL in an argument',
      m({ min: 1, max: 2, args: ['ok', 'a\u0000b'] }),
      'components[0].args[1]: must not contain a NUL character',
    ],
    ['an argument that is not text', m({ min: 1, max: 2, args: [400] }), 'components[0].args[0]: must be a string'],
    ['no components', { kind: 'rigid', components: [] }, 'components: must hold at least one component'],
    [
      'rigid with min',
      { kind: 'rigid', components: [{ processors: 1, min: 1, program: 'x' }] },
      'components[0].min: is only for moldable, malleable and evolving jobs; use processors',
    ],
    ['malleable without max', m({ min: 1 }), 'components[0].max: is required for a malleable job'],
    ['initial outside bounds', m({ min: 2, max: 4, initial: 8 }), 'components[0].initial: must lie within min..max'],
    [
      'two malleable components',
      {
        kind: 'malleable',
        components: [
          { min: 1, max: 2, program: 'x' },
          { min: 1, max: 2, program: 'x' },
        ],
      },
      'components: a malleable job must have exactly one component',
    ],
    [
      'unknown file',
      m({ min: 1, max: 2, inputFiles: ['nope'] }),
      'components[0].inputFiles[0]: names unknown file "nope"',
    ],
    ['unknown field', m({ min: 1, max: 2 }, { urgency: 3 }), 'Unrecognized key: "urgency"'],
    ['negative submit time', m({ min: 1, max: 2 }, { submitTime: -5 }), 'submitTime: must not be negative'],
  ])('refuses %s', (_name, input, message) => {
    expect(errorsOf(input)).toContain(message);
  });

  it('accepts a valid malleable job and fills defaults', () => {
    const r = parseJob(m({ min: 2, max: 46 }), g);
    expect(r.ok && r.value).toMatchObject({
      placement: 'wf',
      submitTime: 0,
      components: [{ min: 2, max: 46, args: [], inputFiles: [] }],
    });
  });

  it('takes a program with its arguments apart, each argument as it is (quoted where it reaches a shell)', () => {
    const r = parseJob(
      m({
        min: 1,
        max: 2,
        program: ' {assets}/apps/ft-demo.mjs ',
        args: ['400000', 'two words', "it's"],
        cluster: 'a',
      }),
      g,
    );
    expect(r.ok && r.value.components[0]).toMatchObject({
      program: '{assets}/apps/ft-demo.mjs',
      args: ['400000', 'two words', "it's"],
      cluster: 'a',
    });
  });

  it('reads back a stored job whose program the earlier rules let through', () => {
    const stored = { kind: 'malleable', components: [{ min: 1, max: 2, program: 'app.mjs 400' }] };
    expect(storedJobSpecSchema.safeParse(stored).success).toBe(true);
    expect(jobSpecSchema.safeParse(stored).success).toBe(false);
  });

  it('a scheduler refuses such a program from a new submission, and takes it back from a store (replay, adoption)', () => {
    const spaced = { id: 'old', kind: 'rigid', components: [{ processors: 1, program: 'app.mjs 400' }] };
    const h = harness(g);
    expect(h.scheduler.submit(spaced, 0)).toMatchObject({ ok: false, errors: [{ path: 'components[0].program' }] });
    expect(h.scheduler.submit(spaced, 0, true).ok).toBe(true);
    expect(h.scheduler.adopt({ ...spaced, id: 'adopted' }, { cluster: 'a', processors: 1, submitTime: 0 }, 1).ok).toBe(
      true,
    );
  });

  it("words each failed check at its own component's field, in order (a later component, a later file)", () => {
    const coallocated = {
      kind: 'rigid',
      components: [
        { processors: 1, program: 'x' },
        { processors: 61, program: 'x', inputFiles: ['data', 'nope'] },
        { processors: 40, program: 'x', cluster: 'a' },
      ],
    };
    expect(errorsOf(coallocated)).toBe(
      [
        'components[1].processors: is larger than every cluster (61 > 60)',
        'components[1].inputFiles[1]: names unknown file "nope"',
        'components[2].processors: is larger than cluster a allows (40 > 32)',
      ].join('\n'),
    );
    const evolving = { kind: 'evolving', components: [{ min: 1, max: 61, program: 'x' }] };
    expect(errorsOf(evolving)).toBe('components[0].max: is larger than every cluster (61 > 60)');
  });

  it('lets flexible cluster minimization split a rigid job larger than any one cluster', () => {
    expect(errorsOf({ kind: 'rigid', placement: 'fcm', components: [{ processors: 90, program: 'x' }] })).toBe('');
    expect(errorsOf({ kind: 'rigid', placement: 'fcm', components: [{ processors: 93, program: 'x' }] })).toContain(
      'is larger than the whole grid (93 > 92)',
    );
  });
});

describe('grid specs', () => {
  it.each([
    [
      'duplicate clusters',
      {
        clusters: [
          { name: 'a', processors: 1 },
          { name: 'a', processors: 2 },
        ],
      },
      'clusters[1].name: duplicates cluster "a"',
    ],
    [
      'threshold above processors',
      { clusters: [{ name: 'a', processors: 4, threshold: 5 }] },
      'clusters[0].threshold: must not exceed the cluster processors',
    ],
    ['no clusters', { clusters: [] }, 'clusters: must hold at least one cluster'],
    [
      'fractional processors',
      { clusters: [{ name: 'a', processors: 2.5 }] },
      'clusters[0].processors: must be a whole number of processors',
    ],
    [
      'unknown replica',
      { clusters: [{ name: 'a', processors: 2 }], files: [{ name: 'f', sizeMB: 1, replicas: ['b'] }] },
      'files[0].replicas[0]: names unknown cluster "b"',
    ],
    [
      'unknown link end',
      {
        clusters: [{ name: 'a', processors: 2 }],
        network: { links: [{ from: 'a', to: 'c', bandwidthMBps: 1, latencyS: 0 }] },
      },
      'network.links[0].to: names unknown cluster "c"',
    ],
    [
      'background sizes reversed',
      {
        clusters: [
          { name: 'a', processors: 8, background: { meanInterarrivalS: 10, minSize: 4, maxSize: 2, meanDurationS: 5 } },
        ],
      },
      'clusters[0].background.minSize: must not exceed maxSize',
    ],
  ])('refuses %s', (_name, input, message) => {
    const r = parseGrid(input);
    expect(r.ok ? '' : describeErrors(r.errors)).toContain(message);
  });
});

describe('the bound on processors', () => {
  it('is written with its thousands separated', () => {
    const r = parseGrid({ clusters: [{ name: 'huge', processors: 10_000_001 }] });
    expect(r.ok ? '' : describeErrors(r.errors)).toBe('clusters[0].processors: must be at most 10,000,000');
  });
});
