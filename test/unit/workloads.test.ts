// Workload and grid inputs: the paper's presets, synthetic generators, SWF and JSON import, and the sample assets.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildGrid, parseGrid } from '../../core/model/grid.js';
import { MAX_PROCESSORS, gridSpecSchema, jobSpecSchema, type JobSpec } from '../../core/model/schemas.js';
import { GRID_PRESETS, gridPreset, singleCluster, syntheticGrid } from '../../core/sim/grids.js';
import { WORKLOAD_PRESETS, koalaWorkload, workloadPreset } from '../../core/sim/workloads/koala.js';
import { syntheticDefaultInterarrival, syntheticWorkload } from '../../core/sim/workloads/synthetic.js';
import { parseSwf } from '../../core/sim/workloads/swf.js';
import { parseGridJson, parseJobsJson } from '../../core/sim/workloads/json.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const das3Spec = gridSpecSchema.parse(GRID_PRESETS.das3);
const das3 = buildGrid(das3Spec);

function mustOk<T>(r: { ok: true; value: T } | { ok: false; errors: unknown }): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.errors)}`);
  return r.value;
}

describe('KOALA paper workloads', () => {
  it('offers wm, wmr, wm-fast and wmr-fast, and wme (evolving jobs mixed in)', () => {
    expect(Object.keys(WORKLOAD_PRESETS).sort()).toEqual(['wm', 'wm-fast', 'wme', 'wmr', 'wmr-fast']);
    expect(workloadPreset('nope', 1)).toBeUndefined();
    expect(workloadPreset('toString', 1)).toBeUndefined();
  });

  it('wm: 300 malleable FT/GADGET-2 jobs every 120 s, min 2, initial 2, max 32 or 46', () => {
    const jobs = workloadPreset('wm', 42)!;
    expect(jobs).toHaveLength(300);
    jobs.forEach((job, i) => {
      expect(job.kind).toBe('malleable');
      expect(job.submitTime).toBe(i * 120);
      expect(job.id).toBe(`j${String(i + 1).padStart(4, '0')}`);
      const c = job.components[0]!;
      const model = job.app!.model;
      expect(['ft', 'gadget2']).toContain(model);
      expect(c.program).toBe(model);
      expect(job.name).toBe(`${model}-${String(i + 1).padStart(4, '0')}`);
      expect(c.min).toBe(2);
      expect(c.initial).toBe(2);
      expect(c.max).toBe(model === 'ft' ? 32 : 46);
      expect(job.placement).toBe('wf');
    });
    const ft = jobs.filter((j) => j.app!.model === 'ft').length;
    // Binomial(300, 1/2): sd ~8.7, so 110..190 is over 4 sd either side.
    expect(ft).toBeGreaterThan(110);
    expect(ft).toBeLessThan(190);
  });

  it('wme: about a fifth of W_m evolving, pre-allocating their maximum from 2, half announcing; the rest as in wm', () => {
    const wm = workloadPreset('wm', 5)!;
    const wme = workloadPreset('wme', 5)!;
    expect(wme).toHaveLength(300);
    const evolving = wme.filter((j) => j.kind === 'evolving');
    // Binomial(300, 1/5): sd ~6.9, so 30..90 is over 4 sd either side.
    expect(evolving.length).toBeGreaterThan(30);
    expect(evolving.length).toBeLessThan(90);
    wme.forEach((job, i) => {
      if (job.kind !== 'evolving') return expect(job).toEqual(wm[i]);
      const c = job.components[0]!;
      // Same application draw as wm's job i: its maximum is that application's.
      expect(c.max).toBe(wm[i]!.components[0]!.max);
      expect([c.min, c.initial, c.program, job.submitTime]).toEqual([2, 2, 'amr', i * 120]);
      expect(job.app).toMatchObject({ model: 'evolving', phases: 8, phaseS: 120 });
    });
    const announcing = evolving.filter((j) => j.app!.model === 'evolving' && j.app!.announceS > 0).length;
    expect(announcing).toBe(Math.floor(evolving.length / 2));
  });

  it('wmr: about half the jobs rigid of 2 processors, same applications as wm for the same seed', () => {
    const wm = workloadPreset('wm', 7)!;
    const wmr = workloadPreset('wmr', 7)!;
    expect(wmr).toHaveLength(300);
    const rigid = wmr.filter((j) => j.kind === 'rigid');
    expect(rigid.length).toBeGreaterThan(110);
    expect(rigid.length).toBeLessThan(190);
    for (const j of rigid) {
      expect(j.components[0]!.processors).toBe(2);
      expect(j.components[0]!.min).toBeUndefined();
      expect(j.components[0]!.program).toBe(j.app!.model);
    }
    for (const j of wmr.filter((j) => j.kind === 'malleable')) expect(j.components[0]!.initial).toBe(2);
    expect(wmr.map((j) => j.app!.model)).toEqual(wm.map((j) => j.app!.model));
  });

  it('the fast variants submit every 30 s', () => {
    for (const name of ['wm-fast', 'wmr-fast']) {
      const jobs = workloadPreset(name, 3)!;
      expect(jobs).toHaveLength(300);
      expect(jobs[299]!.submitTime).toBe(299 * 30);
    }
    expect(workloadPreset('wmr-fast', 3)!.some((j) => j.kind === 'rigid')).toBe(true);
    expect(workloadPreset('wm-fast', 3)!.every((j) => j.kind === 'malleable')).toBe(true);
  });

  it('is deterministic per seed and differs across seeds; count overrides 300', () => {
    expect(workloadPreset('wmr', 5)).toEqual(workloadPreset('wmr', 5));
    expect(workloadPreset('wmr', 5)).not.toEqual(workloadPreset('wmr', 6));
    expect(workloadPreset('wm', 5, 12)).toHaveLength(12);
    expect(koalaWorkload({ count: 0, interarrivalS: 120, rigidFraction: 0, seed: 1 })).toEqual([]);
  });

  it('every job fits the das3 grid', () => {
    for (const job of workloadPreset('wmr', 1)!) expect(parseGridFit(job)).toEqual([]);
  });
});

function parseGridFit(job: JobSpec) {
  const r = parseJobsJson(JSON.stringify([job]), 'job', das3);
  return r.ok ? [] : r.errors;
}

describe('grid presets', () => {
  it('das3 has 272 processors in 5 clusters and validates', () => {
    const grid = mustOk(parseGrid(gridPreset('das3')));
    expect(grid.clusters.map((c) => [c.name, c.processors])).toEqual([
      ['vu', 85],
      ['uva', 41],
      ['delft', 68],
      ['mn', 46],
      ['leiden', 32],
    ]);
    expect(grid.clusters.reduce((s, c) => s + c.processors, 0)).toBe(272);
    for (const c of grid.clusters) expect(c.threshold).toBe(c.processors - 2);
    expect(gridPreset('nope')).toBeUndefined();
  });

  it('das3 background load is 5–10 % per cluster (uniform sizes)', () => {
    for (const c of das3Spec.clusters) {
      const b = c.background!;
      const utilisation = (((b.minSize + b.maxSize) / 2) * b.meanDurationS) / (b.meanInterarrivalS * c.processors);
      expect(utilisation).toBeGreaterThan(0.05);
      expect(utilisation).toBeLessThan(0.1);
    }
  });

  it('das3 files give Close-to-Files transfers to weigh', () => {
    expect(das3.hasFile('gadget2-ic-256')).toBe(true);
    expect(das3.transferTime(['gadget2-ic-256'], 'vu')).toBe(0);
    // From vu over 10 Gb/s: about 2048 / 1250 s.
    expect(das3.transferTime(['gadget2-ic-256'], 'uva')).toBeCloseTo(2048 / 1250 + 0.0005, 6);
    expect(das3.transferTime(['ft-class-c'], 'leiden')).toBeGreaterThan(das3.transferTime(['ft-class-c'], 'vu'));
  });

  it('gridPreset returns a copy the caller may edit', () => {
    const copy = gridPreset('das3')!;
    copy.clusters[0]!.processors = 1;
    expect(gridPreset('das3')!.clusters[0]!.processors).toBe(85);
  });

  it('syntheticGrid is deterministic, sized 32..512 and valid', () => {
    const a = syntheticGrid(20, 9);
    expect(a).toEqual(syntheticGrid(20, 9));
    expect(a).not.toEqual(syntheticGrid(20, 10));
    const grid = mustOk(parseGrid(a));
    expect(grid.clusters).toHaveLength(20);
    for (const c of grid.clusters) {
      expect(c.processors).toBeGreaterThanOrEqual(32);
      expect(c.processors).toBeLessThanOrEqual(512);
      expect(c.spec.background).toBeUndefined();
    }
    expect(new Set(grid.clusters.map((c) => c.processors)).size).toBeGreaterThan(3);
    expect(() => syntheticGrid(0, 1)).toThrow(RangeError);
  });
});

/** Processor-seconds a job asks for at its starting size (what the default inter-arrival is computed from). */
function startWork(job: JobSpec): number {
  const c = job.components[0]!;
  const n = job.kind === 'rigid' ? c.processors! : c.min!;
  const app = job.app!;
  if (app.model === 'fixed') return n * app.runtime;
  if (app.model === 'amdahl') return n * (app.serial + app.parallel / n);
  throw new Error(`unexpected model ${app.model}`);
}

describe('synthetic workload', () => {
  const grid = gridSpecSchema.parse(syntheticGrid(8, 1));
  const largest = Math.max(...grid.clusters.map((c) => c.threshold ?? c.processors));

  it('generates 100,000 jobs', () => {
    // Its speed is measured by `npm run bench`, not asserted here.
    const jobs = syntheticWorkload({ jobs: 100_000, grid, seed: 1 });
    expect(jobs).toHaveLength(100_000);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(100_000);
  });

  it('is deterministic per seed, valid, and fits the grid', () => {
    const jobs = syntheticWorkload({ jobs: 2000, grid, seed: 4 });
    expect(jobs).toEqual(syntheticWorkload({ jobs: 2000, grid, seed: 4 }));
    expect(jobs).not.toEqual(syntheticWorkload({ jobs: 2000, grid, seed: 5 }));
    const g = buildGrid(grid);
    for (const job of jobs) {
      expect(jobSpecSchema.parse(job)).toEqual(job);
      const c = job.components[0]!;
      if (job.kind === 'rigid') {
        expect(c.processors!).toBeLessThanOrEqual(largest);
        expect(['fixed', 'amdahl']).toContain(job.app!.model);
      } else {
        expect(c.min!).toBeGreaterThanOrEqual(1);
        expect(c.min!).toBeLessThanOrEqual(8);
        expect(c.max!).toBeLessThanOrEqual(64);
        expect(c.max!).toBeGreaterThanOrEqual(c.min!);
        expect(job.app!.model).toBe('amdahl');
      }
      const runtime = startWork(job) / (job.kind === 'rigid' ? c.processors! : c.min!);
      expect(runtime).toBeGreaterThanOrEqual(60 - 1e-6);
      expect(runtime).toBeLessThanOrEqual(4 * 3600 + 1e-6);
      expect(g.largestThreshold).toBeGreaterThanOrEqual(c.processors ?? c.min!);
    }
    const malleable = jobs.filter((j) => j.kind === 'malleable').length / jobs.length;
    expect(malleable).toBeGreaterThan(0.25);
    expect(malleable).toBeLessThan(0.35);
    const powers = jobs.filter(
      (j) => j.kind === 'rigid' && Number.isInteger(Math.log2(j.components[0]!.processors!)),
    ).length;
    expect(powers / jobs.filter((j) => j.kind === 'rigid').length).toBeGreaterThan(0.7);
  });

  it('runs the grid at about 70 % offered load by default', () => {
    const jobs = syntheticWorkload({ jobs: 50_000, grid, seed: 2 });
    const capacity = grid.clusters.reduce((s, c) => s + (c.threshold ?? c.processors), 0);
    const span = jobs[jobs.length - 1]!.submitTime;
    const load = jobs.reduce((s, j) => s + startWork(j), 0) / (span * capacity);
    expect(load).toBeGreaterThan(0.63);
    expect(load).toBeLessThan(0.77);
    const mean = span / (jobs.length - 1);
    expect(mean / syntheticDefaultInterarrival(grid)).toBeCloseTo(1, 1);
  });

  it('honours an explicit mean inter-arrival and malleable fraction', () => {
    const jobs = syntheticWorkload({ jobs: 10_000, grid, seed: 3, meanInterarrivalS: 10, malleableFraction: 1 });
    expect(jobs.every((j) => j.kind === 'malleable')).toBe(true);
    expect(jobs[jobs.length - 1]!.submitTime / (jobs.length - 1)).toBeCloseTo(10, 0);
  });
});

describe('sample assets', () => {
  it('assets/grids/das3.json is the das3 preset and validates', () => {
    const text = readFileSync(path.join(repoRoot, 'assets', 'grids', 'das3.json'), 'utf8');
    expect(JSON.parse(text)).toEqual(GRID_PRESETS.das3);
    const spec = mustOk(parseGridJson(text, 'das3.json'));
    expect(spec.clusters).toHaveLength(5);
  });

  it('singleCluster(n) is already what gridSpecSchema makes of it (`--grid single:N` is not parsed)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_PROCESSORS }), (n) => {
        expect(gridSpecSchema.parse(singleCluster(n))).toStrictEqual(singleCluster(n));
      }),
      { numRuns: 50, examples: [[1], [MAX_PROCESSORS]] },
    );
  });

  it('assets/grids/single-32.json is --grid single:32: one cluster, no threshold, no background load', () => {
    const text = readFileSync(path.join(repoRoot, 'assets', 'grids', 'single-32.json'), 'utf8');
    const spec = mustOk(parseGridJson(text, 'single-32.json'));
    expect(spec).toEqual(gridSpecSchema.parse(singleCluster(32)));
    expect(spec.clusters).toEqual([{ name: 'single', processors: 32, supportsReservations: false }]);
  });

  it('assets/workloads/sample-malleable.json validates against das3', () => {
    const text = readFileSync(path.join(repoRoot, 'assets', 'workloads', 'sample-malleable.json'), 'utf8');
    const jobs = mustOk(parseJobsJson(text, 'sample-malleable.json', das3));
    expect(jobs.length).toBeGreaterThanOrEqual(8);
    expect(jobs.some((j) => j.kind === 'moldable')).toBe(true);
    expect(jobs.some((j) => j.kind === 'rigid' && j.components.length === 2)).toBe(true);
    expect(jobs.some((j) => j.placement === 'cf' && j.components.some((c) => c.inputFiles.length > 0))).toBe(true);
    expect(
      jobs.filter((j) => j.kind === 'malleable' && (j.app?.model === 'ft' || j.app?.model === 'gadget2')).length,
    ).toBeGreaterThan(4);
  });
});

describe('JSON import', () => {
  it('names source, line and column of a syntax error', () => {
    const text = '{\n  "jobs": [\n    {"kind": "rigid",}\n  ]\n}';
    const r = parseJobsJson(text, 'w.json');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.path).toBe('w.json:3:22');
    expect(r.errors[0]!.message).toMatch(/not valid JSON/);
    const end = parseJobsJson('[\n{"kind":', 'cut.json');
    expect(!end.ok && end.errors[0]!.path).toBe('cut.json:2:9');
  });

  it('names the path of each invalid field', () => {
    const text = JSON.stringify({
      jobs: [
        { kind: 'malleable', components: [{ min: 2, max: 8, program: 'a' }] },
        { kind: 'malleable', components: [{ min: 0, max: 8, program: 'a' }] },
        { kind: 'rigid', components: [{ processors: 4 }] },
      ],
    });
    const r = parseJobsJson(text, 'w.json');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const paths = r.errors.map((e) => e.path);
    expect(paths).toContain('jobs[1].components[0].min');
    expect(paths).toContain('jobs[2].components[0].program');
    expect(paths.some((p) => p.startsWith('jobs[0]'))).toBe(false);
  });

  it('accepts a bare array, gives default ids, and refuses duplicates naming both indexes', () => {
    const jobs = mustOk(
      parseJobsJson(
        JSON.stringify([
          { kind: 'rigid', components: [{ processors: 1, program: 'x' }] },
          { id: 'a', kind: 'rigid', components: [{ processors: 1, program: 'x' }] },
        ]),
        's',
      ),
    );
    expect(jobs.map((j) => j.id)).toEqual(['job-0', 'a']);
    const dup = parseJobsJson(
      JSON.stringify([
        { id: 'a', kind: 'rigid', components: [{ processors: 1, program: 'x' }] },
        { kind: 'rigid', components: [{ processors: 1, program: 'x' }] },
        { id: 'a', kind: 'rigid', components: [{ processors: 1, program: 'x' }] },
      ]),
      's',
    );
    expect(dup.ok).toBe(false);
    if (dup.ok) return;
    expect(dup.errors).toEqual([{ path: 'jobs[2].id', message: expect.stringMatching(/jobs\[0\].*jobs\[2\]/) }]);
  });

  it('checks jobs against the grid when given', () => {
    const text = JSON.stringify([
      { kind: 'rigid', components: [{ processors: 200, program: 'x' }] },
      { kind: 'rigid', placement: 'cf', components: [{ processors: 2, program: 'x', inputFiles: ['missing'] }] },
    ]);
    expect(parseJobsJson(text, 's').ok).toBe(true);
    const r = parseJobsJson(text, 's', das3);
    expect(!r.ok && r.errors.map((e) => e.path)).toEqual([
      'jobs[0].components[0].processors',
      'jobs[1].components[0].inputFiles[0]',
    ]);
  });

  it('refuses other shapes', () => {
    expect(parseJobsJson('42', 's').ok).toBe(false);
    expect(parseJobsJson('{"jobs": 3}', 's')).toEqual({
      ok: false,
      errors: [{ path: 'jobs', message: expect.any(String) }],
    });
    expect(parseJobsJson('{"jobs": [], "extra": 1}', 's').ok).toBe(false);
  });

  it('parseGridJson reports syntax and field errors', () => {
    const bad = parseGridJson('{\n  "clusters": [] "x"\n}', 'g.json');
    expect(!bad.ok && bad.errors[0]!.path).toBe('g.json:2:18');
    // Some engine messages carry no position: the error still names the source.
    const noPosition = parseGridJson('{"clusters": [}', 'g.json');
    expect(!noPosition.ok && noPosition.errors[0]!.path).toMatch(/^g\.json(:\d+:\d+)?$/);
    const r = parseGridJson(JSON.stringify({ clusters: [{ name: 'a', processors: 4, threshold: 8 }] }), 'g.json');
    expect(!r.ok && r.errors.map((e) => e.path)).toEqual(['clusters[0].threshold']);
  });
});

describe('SWF import', () => {
  const sample = [
    '; Version: 2.2',
    '; Computer: Test machine',
    '; Note: first line',
    ';       continued',
    ';',
    '  1   100  5  60  4  -1 -1  4  100 -1 1 1 1 -1 1 -1 -1 -1',
    '  2   160  5  60  4  -1 -1  4  100 -1 1 1 1 -1 1 -1 -1',
    '  3   200  5  -1  4  -1 -1  4  100 -1 1 1 1 -1 1 -1 -1 -1',
    '',
    '  4   260  5  60 -1  -1 -1 -1  100 -1 1 1 1 -1 1 -1 -1 -1',
  ].join('\n');

  it('keeps good lines and reports skipped ones with line numbers and reasons', () => {
    const { jobs, skipped, header } = mustOk(parseSwf(sample, 'test.swf'));
    expect(jobs).toEqual([
      {
        id: 'swf-1',
        kind: 'rigid',
        components: [{ processors: 4, program: 'swf', args: [], inputFiles: [] }],
        placement: 'wf',
        submitTime: 0,
        walltime: 100,
        app: { model: 'fixed', runtime: 60 },
      },
    ]);
    expect(jobSpecSchema.parse(jobs[0])).toEqual(jobs[0]);
    expect(skipped.map((s) => s.line)).toEqual([7, 8, 10]);
    expect(skipped[0]!.reason).toMatch(/17 fields/);
    expect(skipped[1]!.reason).toMatch(/run time -1/);
    expect(skipped[2]!.reason).toMatch(/processor/);
    expect(header).toEqual({ Version: '2.2', Computer: 'Test machine', Note: 'first line continued' });
  });

  it('falls back to requested processors, makes submit times relative, and honours maxJobs', () => {
    const text = [
      '5 1000 -1 30 -1 -1 -1 8 -1 -1 1 1 1 -1 1 -1 -1 -1',
      '6 1500 -1 30 16 -1 -1 8 -1 -1 1 1 1 -1 1 -1 -1 -1',
    ].join('\r\n');
    const { jobs } = mustOk(parseSwf(text, 't'));
    expect(jobs.map((j) => [j.id, j.components[0]!.processors, j.submitTime])).toEqual([
      ['swf-5', 8, 0],
      ['swf-6', 16, 500],
    ]);
    expect(mustOk(parseSwf(text, 't', { maxJobs: 1 })).jobs).toHaveLength(1);
    expect(mustOk(parseSwf(text, 't', { maxJobs: 0 })).jobs).toHaveLength(0);
  });

  it('counts maxJobs in jobs kept, and says how many records it read to get them and why it skipped the others', () => {
    const rec = (n: number, run: number, procs: number) =>
      `${n} ${n * 10} -1 ${run} ${procs} -1 -1 ${procs} -1 -1 1 1 1 -1 1 -1 -1 -1`;
    // Records 2 and 3 are skipped (run time 0, no processors): the 2nd job kept is record 4, the 4th data line.
    const text = [rec(1, 30, 2), rec(2, 0, 2), rec(3, 30, -1), rec(4, 30, 1), rec(5, 30, 1)].join('\n');
    const r = mustOk(parseSwf(text, 't', { maxJobs: 2 }));
    expect(r.jobs.map((j) => j.id)).toEqual(['swf-1', 'swf-4']);
    expect(r.records).toBe(4);
    expect(r.skipped.map((s) => [s.line, s.cause])).toEqual([
      [2, 'run time not positive'],
      [3, 'no processor count'],
    ]);
    expect(mustOk(parseSwf(text, 't')).records).toBe(5);
  });

  it('takes a maxJobs that is not a whole number, or below zero, as the loop reads it (the jobs are held in arrays sized by it)', () => {
    const rec = (n: number) => `${n} ${n * 10} -1 30 2 -1 -1 2 -1 -1 1 1 1 -1 1 -1 -1 -1`;
    const text = [rec(1), rec(2), rec(3)].join('\n');
    expect(mustOk(parseSwf(text, 't', { maxJobs: 1.5 })).jobs.map((j) => j.id)).toEqual(['swf-1', 'swf-2']);
    expect(mustOk(parseSwf(text, 't', { maxJobs: -1 })).jobs).toHaveLength(0);
    // One job a line, no newline at the end: the columns hold exactly as many jobs as the text has lines.
    expect(mustOk(parseSwf(text, 't')).jobs).toHaveLength(3);
  });

  it('measures the most processors each partition ran at once (field 16), ends freeing before starts at one instant', () => {
    // job, submit, wait, run, procs, ..., partition (field 16)
    const rec = (n: number, submit: number, wait: number, run: number, procs: number, partition: number) =>
      `${n} ${submit} ${wait} ${run} ${procs} -1 -1 ${procs} -1 -1 1 1 1 -1 1 ${partition} -1 -1`;
    const text = [
      rec(1, 0, 0, 100, 4, 2), // p2 holds 4 over [0, 100)
      rec(2, 10, 5, 100, 3, 2), // p2 holds 3 over [15, 115): 7 at once
      rec(3, 50, 50, 10, 6, 2), // p2 takes 6 at 100 as job 1 ends: 3 + 6 = 9
      rec(4, 0, -1, 10, 5, 1), // p1: unknown wait counts as none
      rec(5, 20, 0, 0, 50, 1), // skipped (run time 0): not counted
    ].join('\n');
    expect(mustOk(parseSwf(text, 't', { partitions: true })).partitions).toEqual([
      { partition: 1, peak: 5 },
      { partition: 2, peak: 9 },
    ]);
    expect(mustOk(parseSwf(text, 't')).partitions).toBeUndefined();
  });

  it('flags non-numeric fields as malformed', () => {
    const r = mustOk(parseSwf('1 0 -1 abc 2 -1 -1 2 -1 -1 1 1 1 -1 1 -1 -1 -1', 't'));
    expect(r.jobs).toEqual([]);
    expect(r.skipped).toEqual([
      { line: 1, reason: expect.stringMatching(/field 4 "abc" is not a number/), cause: 'malformed line' },
    ]);
    expect(mustOk(parseSwf('', 'empty'))).toEqual({
      jobs: [],
      skipped: [],
      records: 0,
      header: {},
      walltimeFromRunTime: 0,
    });
  });

  it('takes the requested time (field 9) as walltime, the run time where it is unknown, and counts those', () => {
    const text = [
      '1 0 -1 60 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1', // requested 100 s
      '2 10 -1 75 4 -1 -1 4 -1 -1 1 1 1 -1 1 -1 -1 -1', // unknown: its run time, 75 s
      '3 20 -1 90 4 -1 -1 4 0 -1 1 1 1 -1 1 -1 -1 -1', // 0, as some logs write unknown: 90 s
      '4 30 -1 130.5 4 -1 -1 4 120 -1 1 1 1 -1 1 -1 -1 -1', // ran past its request: kept, killed in the replay
    ].join('\n');
    const r = mustOk(parseSwf(text, 't'));
    expect(r.jobs.map((j) => [j.id, j.walltime, j.app])).toEqual([
      ['swf-1', 100, { model: 'fixed', runtime: 60 }],
      ['swf-2', 75, { model: 'fixed', runtime: 75 }],
      ['swf-3', 90, { model: 'fixed', runtime: 90 }],
      ['swf-4', 120, { model: 'fixed', runtime: 130.5 }],
    ]);
    expect(r.walltimeFromRunTime).toBe(2);
    for (const job of r.jobs) expect(jobSpecSchema.parse(job)).toEqual(job);
  });

  it('strict mode fails naming source:line', () => {
    const r = parseSwf(sample, 'test.swf', { strict: true });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([{ path: 'test.swf:7', message: expect.stringMatching(/17 fields/) }]);
    // Unusable but well-formed records are skipped even in strict mode.
    const good = sample
      .split('\n')
      .filter((_, i) => i !== 6)
      .join('\n');
    expect(mustOk(parseSwf(good, 'test.swf', { strict: true })).skipped).toHaveLength(2);
  });

  const tracesDir = path.resolve(repoRoot, '..', 'shared', 'traces');
  const nasa = path.join(tracesDir, 'NASA-iPSC-1993-3.1-cln.swf.gz');
  const haveNasa = existsSync(nasa);
  if (!haveNasa)
    console.warn(`Skipping the NASA iPSC trace test: ${nasa} does not exist (the shared traces folder is absent).`);

  it.skipIf(!haveNasa)('parses the 18,239-line NASA iPSC trace, accounting for every line', () => {
    const text = gunzipSync(readFileSync(nasa)).toString('utf8');
    const { jobs, skipped, header, walltimeFromRunTime } = mustOk(parseSwf(text, 'NASA-iPSC-1993-3.1-cln.swf'));
    // NASA iPSC records no requested time: every job's walltime is its run time.
    expect(walltimeFromRunTime).toBe(jobs.length);
    expect(jobs.every((j) => j.walltime === (j.app as { runtime: number }).runtime)).toBe(true);
    const dataLines = text.split('\n').filter((l) => l.trim() !== '' && !l.trimStart().startsWith(';')).length;
    expect(dataLines).toBe(18_239);
    expect(jobs.length + skipped.length).toBe(dataLines);
    expect(skipped.every((s) => /run time|processor/.test(s.reason))).toBe(true);
    expect(jobs.every((j) => j.components[0]!.processors! <= 128)).toBe(true);
    expect(jobs[0]!.submitTime).toBe(0);
    expect(header.MaxProcs).toBe('128');
  });
});
