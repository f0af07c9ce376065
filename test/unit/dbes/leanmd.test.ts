// The LeanMD speed-up model of the DBES benchmark's malleable jobs (core/sim/apps/leanmd.ts).
import { describe, expect, it } from 'vitest';
import { appModel } from '../../../core/sim/apps/model.js';
import {
  COMPUTES_PER_CELL,
  LEANMD_SERIAL_FRACTION,
  computeObjects,
  leanmd,
  leanmdRuntime,
} from '../../../core/sim/apps/leanmd.js';
import { ESP_TABLE, espSize } from '../../../core/sim/workloads/esp.js';

describe('LeanMD model', () => {
  it('counts 14 compute objects per cell', () => {
    expect(COMPUTES_PER_CELL).toBe(14);
    expect(computeObjects([6, 6, 6])).toBe(216 * 14);
    expect(computeObjects([4, 4, 4])).toBe(896);
  });

  it('runs exactly the static time at its ESP size, for every type of Table I', () => {
    for (const t of ESP_TABLE) {
      const size = espSize(t.fraction);
      expect(leanmdRuntime({ cells: t.cells, runtimeS: t.staticS, size })(size), t.type).toBeCloseTo(t.staticS, 9);
    }
  });

  it('never gets slower with more cores, never faster than linear, and is bounded by its serial share', () => {
    for (const t of ESP_TABLE) {
      const size = espSize(t.fraction);
      const run = leanmdRuntime({ cells: t.cells, runtimeS: t.staticS, size });
      let previous = Number.POSITIVE_INFINITY;
      for (let n = 1; n <= 4 * 120; n++) {
        const r = run(n);
        expect(r, `${t.type} at ${n}`).toBeLessThanOrEqual(previous + 1e-9);
        // speed-up over its size at most n / size (linear), and the serial share never goes away
        if (n >= size) expect(r, `${t.type} at ${n}`).toBeGreaterThanOrEqual((t.staticS * size) / n - 1e-9);
        expect(r).toBeGreaterThan(0);
        previous = r;
      }
      const floor =
        (t.staticS * LEANMD_SERIAL_FRACTION) / (LEANMD_SERIAL_FRACTION + (1 - LEANMD_SERIAL_FRACTION) / size);
      expect(run(100_000)).toBeGreaterThanOrEqual(floor - 1e-9);
    }
  });

  it('keeps about 90 % efficiency at four times its size (1 % serial): 4 → 16 cores is 3.58 times faster', () => {
    const run = leanmdRuntime({ cells: [6, 6, 6], runtimeS: 267, size: 4 });
    // (0.01 + 0.99/4) / (0.01 + 0.99/16) = 0.2575 / 0.071875 = 3.583 (216·14 = 3024 objects divide evenly by 4 and 16)
    expect(run(4) / run(16)).toBeCloseTo(3.583, 3);
  });

  it('stops gaining once every compute object has a core of its own', () => {
    const run = leanmdRuntime({ cells: [2, 2, 2], runtimeS: 100, size: 1 });
    expect(run(112)).toBe(run(500));
    expect(run(111)).toBeGreaterThan(run(112));
  });

  it('is what appModel gives for model leanmd, taking any size it is offered up to its max', () => {
    const spec = { model: 'leanmd' as const, cells: [8, 8, 8] as [number, number, number], runtime: 366, size: 15 };
    const m = appModel(spec, 1);
    expect(m.name).toBe('leanmd');
    expect(m.runtime(15)).toBeCloseTo(366, 9);
    expect(m.runtime(30)).toBeCloseTo(leanmd({ cells: [8, 8, 8], runtimeS: 366, size: 15 }).runtime(30), 9);
    expect(m.acceptGrow(15, 100, 60)).toBe(45);
    expect(m.acceptShrink(40, 100, 15)).toBe(25);
  });
});
