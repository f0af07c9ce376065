// The modified ESP workload (core/sim/workloads/esp.ts) against Table I of the DBES paper and ESP's submission rules.
import { describe, expect, it } from 'vitest';
import { componentRequest } from '../../../core/model/job.js';
import type { JobSpec } from '../../../core/model/schemas.js';
import {
  ESP_ADAPTIVE_WALLTIME_MARGIN_S,
  ESP_INITIAL_BATCH_MACHINES,
  ESP_MALLEABLE_GROWTH,
  ESP_MALLEABLE_PERCENTS,
  ESP_MALLEABLE_TYPES,
  ESP_MIXED,
  ESP_PROCESSORS,
  ESP_TABLE,
  ESP_Z_PRIORITY,
  espMinimumTime,
  espShareOfJobs,
  espSize,
  espSubmission,
  espTypeOf,
  espWorkload,
  type EspType,
} from '../../../core/sim/workloads/esp.js';

const typeOf = (j: JobSpec) => espTypeOf(j.id!)!;
const countBy = (jobs: readonly JobSpec[]) => {
  const out = new Map<EspType, number>();
  for (const j of jobs) out.set(typeOf(j), (out.get(typeOf(j)) ?? 0) + 1);
  return out;
};

describe('ESP workload: Table I', () => {
  it("has the 230 jobs of 14 types with the paper's fractions, counts and static times", () => {
    // Table I row by row: type, size [% of system] as a fraction, count, static execution time [s]
    const table: Array<[EspType, number, number, number]> = [
      ['A', 0.03125, 75, 267],
      ['B', 0.0625, 9, 322],
      ['C', 0.5, 3, 534],
      ['D', 0.25, 3, 616],
      ['E', 0.5, 3, 315],
      ['F', 0.0625, 9, 1846],
      ['G', 0.125, 6, 1334],
      ['H', 0.1582, 6, 1067],
      ['I', 0.03125, 24, 1432],
      ['J', 0.0625, 24, 725],
      ['K', 0.0957, 15, 487],
      ['L', 0.125, 36, 366],
      ['M', 0.25, 15, 187],
      ['Z', 1, 2, 100],
    ];
    expect(ESP_TABLE.map((t) => [t.type, t.fraction, t.count, t.staticS])).toEqual(table);
    expect(ESP_TABLE.reduce((s, t) => s + t.count, 0)).toBe(230);
    expect(ESP_TABLE.filter((t) => t.evolvingS !== undefined).map((t) => [t.type, t.evolvingS])).toEqual([
      ['F', 1230],
      ['G', 1067],
      ['H', 896],
    ]);
  });

  it('sizes jobs as fractions of 15 × 8 = 120 cores, rounded to whole cores', () => {
    expect(ESP_PROCESSORS).toBe(120);
    // 0.03125·120 = 3.75 → 4; 0.0625·120 = 7.5 → 8; 0.1582·120 = 18.98 → 19; 0.0957·120 = 11.48 → 11
    const sizes = Object.fromEntries(ESP_TABLE.map((t) => [t.type, espSize(t.fraction)]));
    expect(sizes).toEqual({
      A: 4,
      B: 8,
      C: 60,
      D: 30,
      E: 60,
      F: 8,
      G: 15,
      H: 19,
      I: 4,
      J: 8,
      K: 11,
      L: 15,
      M: 30,
      Z: 120,
    });
  });

  it('generates every job of every type once, the sizes and run times of its type', () => {
    const jobs = espWorkload({ malleable: [], evolving: [] }, 1);
    expect(jobs).toHaveLength(230);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(230);
    const counts = countBy(jobs);
    for (const t of ESP_TABLE) expect(counts.get(t.type), t.type).toBe(t.count);
    for (const j of jobs) {
      const t = ESP_TABLE.find((x) => x.type === typeOf(j))!;
      expect(j.kind).toBe('rigid');
      expect(j.components[0]!.processors).toBe(espSize(t.fraction));
      expect(j.app).toEqual({ model: 'fixed', runtime: t.staticS });
      expect(j.walltime).toBe(t.staticS);
      // Only the full-machine Z jobs take precedence over the queue.
      expect(j.priority, j.id).toBe(t.type === 'Z' ? ESP_Z_PRIORITY : undefined);
    }
  });
});

describe('ESP workload: malleable and evolving types', () => {
  it("makes the paper's types malleable at 40 % and 50 %", () => {
    expect(ESP_MALLEABLE_TYPES[40]).toEqual(['F', 'G', 'H', 'I', 'K', 'L']);
    expect(ESP_MALLEABLE_TYPES[50]).toEqual(['F', 'I', 'J', 'K', 'L']);
  });

  it('at each percentage, makes malleable a share of the jobs within 6 points of it, never Z', () => {
    for (const p of ESP_MALLEABLE_PERCENTS) {
      const types = ESP_MALLEABLE_TYPES[p];
      expect(types, String(p)).not.toContain('Z');
      expect(Math.abs(espShareOfJobs(types) * 100 - p), String(p)).toBeLessThanOrEqual(6);
      const jobs = espWorkload({ malleable: types, evolving: [] }, 3);
      const malleable = jobs.filter((j) => j.kind === 'malleable');
      expect(new Set(malleable.map(typeOf))).toEqual(new Set(types));
      expect(malleable).toHaveLength(ESP_TABLE.filter((t) => types.includes(t.type)).reduce((s, t) => s + t.count, 0));
    }
    // 40 %: F 9 + G 6 + H 6 + I 24 + K 15 + L 36 = 96 of 230
    expect(espShareOfJobs(ESP_MALLEABLE_TYPES[40])).toBeCloseTo(96 / 230, 10);
  });

  it('starts a malleable job at its ESP size, lets it grow to four times that, and runs LeanMD with its cells', () => {
    const jobs = espWorkload({ malleable: ['L'], evolving: [] }, 1);
    const l = jobs.find((j) => j.id === 'L-1')!;
    expect(l.kind).toBe('malleable');
    expect(componentRequest(l, 0)).toEqual({ min: 15, initial: 15, max: 15 * ESP_MALLEABLE_GROWTH });
    expect(l.app).toEqual({ model: 'leanmd', cells: [8, 8, 8], runtime: 366, size: 15 });
    // a second beyond its static run time: the rounding of its progress over resizes never has it killed as it ends
    expect(l.walltime).toBe(366 + ESP_ADAPTIVE_WALLTIME_MARGIN_S);
    // never beyond the machine: C and E (60 cores) could reach 240
    const c = espWorkload({ malleable: ['C'], evolving: [] }, 1).find((j) => j.id === 'C-1')!;
    expect(componentRequest(c, 0).max).toBe(120);
  });

  it('makes F, G and H evolving and I, J, K, L malleable in the mixed scenario (Figure 7)', () => {
    const jobs = espWorkload({ malleable: ESP_MIXED.malleable, evolving: ESP_MIXED.evolving }, 1);
    const kinds = (kind: string) => new Set(jobs.filter((j) => j.kind === kind).map(typeOf));
    expect(kinds('evolving')).toEqual(new Set(['F', 'G', 'H']));
    expect(kinds('malleable')).toEqual(new Set(['I', 'J', 'K', 'L']));
    // 21 evolving jobs of 230 (9.1 %), 99 malleable (43.0 %)
    expect(jobs.filter((j) => j.kind === 'evolving')).toHaveLength(21);
    expect(jobs.filter((j) => j.kind === 'malleable')).toHaveLength(99);
    const f = jobs.find((j) => j.id === 'F-1')!;
    expect(componentRequest(f, 0)).toEqual({ min: 8, initial: 8, max: 12 });
    expect(f.app).toEqual({ model: 'esp-evolving', runtime: 1846, extra: 4, askAt: [0.16, 0.25] });
  });
});

describe('ESP workload: submission', () => {
  const jobs = espWorkload({ malleable: [], evolving: [] }, 7);
  const { spreadS, zAtS } = espSubmission();

  it('submits an initial batch at 0 asking for at least twice the machine, and no job more than needed for that', () => {
    const initial = jobs.filter((j) => j.submitTime === 0);
    const asked = initial.reduce((s, j) => s + j.components[0]!.processors!, 0);
    expect(asked).toBeGreaterThanOrEqual(ESP_INITIAL_BATCH_MACHINES * ESP_PROCESSORS);
    // without the batch's last job (the seeded order's last of it) it would ask for less than twice the machine
    const last = initial[initial.length - 1]!;
    expect(asked - last.components[0]!.processors!).toBeLessThan(ESP_INITIAL_BATCH_MACHINES * ESP_PROCESSORS);
    expect(initial.some((j) => typeOf(j) === 'Z')).toBe(false);
  });

  it('submits the rest one by one at a constant interval over half the minimum time, in submission order', () => {
    const rest = jobs.filter((j) => j.submitTime > 0 && typeOf(j) !== 'Z');
    const times = rest.map((j) => j.submitTime);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBe(times.length);
    expect(times[times.length - 1]).toBeCloseTo(spreadS, -1);
    expect(spreadS).toBe(Math.round(espMinimumTime() / 2));
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(Math.max(...gaps) - Math.min(...gaps)).toBeLessThanOrEqual(1);
    for (let i = 1; i < jobs.length; i++) expect(jobs[i]!.submitTime).toBeGreaterThanOrEqual(jobs[i - 1]!.submitTime);
  });

  it('submits the two Z jobs, the whole machine and rigid, at a third and two thirds of the minimum time', () => {
    const z = jobs.filter((j) => typeOf(j) === 'Z');
    expect(z.map((j) => j.submitTime)).toEqual([...zAtS]);
    expect(zAtS).toEqual([Math.round(espMinimumTime() / 3), Math.round((2 * espMinimumTime()) / 3)]);
    const all = espWorkload({ malleable: ESP_MALLEABLE_TYPES[100], evolving: [] }, 7).filter((j) => typeOf(j) === 'Z');
    for (const j of all) {
      expect(j.kind).toBe('rigid');
      expect(j.components[0]!.processors).toBe(120);
    }
  });

  it('orders jobs by the seed: the same seed the same workload, another seed another order', () => {
    expect(espWorkload({ malleable: [], evolving: [] }, 7)).toEqual(jobs);
    const other = espWorkload({ malleable: [], evolving: [] }, 8);
    expect(other.map((j) => j.id)).not.toEqual(jobs.map((j) => j.id));
    expect(new Set(other.map((j) => j.id))).toEqual(new Set(jobs.map((j) => j.id)));
  });

  it('has a minimum time of the work over 120 cores', () => {
    // Σ count · size · static / 120, sizes of 120 cores: 1,348,971 core-s / 120
    const work = ESP_TABLE.reduce((s, t) => s + t.count * espSize(t.fraction) * t.staticS, 0);
    expect(espMinimumTime()).toBeCloseTo(work / 120, 6);
    expect(espMinimumTime()).toBeGreaterThan(11_000);
    expect(espMinimumTime()).toBeLessThan(11_500);
  });
});
