// The DBES benchmark's evolving job (core/sim/apps/esp-evolving.ts): asks for 4 more cores at 16 % of its static run
// time, again at 25 % if refused, and runs faster in proportion once granted.
import { describe, expect, it } from 'vitest';
import { EspEvolvingRun, type EspEvolvingHost } from '../../../core/sim/apps/esp-evolving.js';
import { EventEngine } from '../../../core/sim/engine.js';
import { SimulatedApplications } from '../../../core/sim/applications.js';
import type { ApplicationMessage } from '../../../core/ports.js';
import { jobSpecSchema } from '../../../core/model/schemas.js';
import { ESP_TABLE } from '../../../core/sim/workloads/esp.js';

/** Runs one job on an engine: what it asked for and when, and when it ended. */
function harness(runtimeS: number, answer: (t: number, processors: number) => 'grant' | 'refuse') {
  const engine = new EventEngine();
  const asked: Array<{ t: number; processors: number }> = [];
  let endedAt = Number.NaN;
  const host: EspEvolvingHost = {
    now: () => engine.now,
    at: (t, action) => engine.at(t, action),
    request: (processors) => {
      asked.push({ t: engine.now, processors });
      // the batch system answers in a later action at the same instant
      engine.at(engine.now, () =>
        answer(engine.now, processors) === 'grant' ? run.resize(processors) : run.refused(),
      );
    },
    finished: () => (endedAt = engine.now),
  };
  const run = new EspEvolvingRun({ runtimeS, extra: 4, askAt: [0.16, 0.25] }, host);
  engine.at(0, () => run.start(8));
  while (Number.isFinite(engine.nextTime())) engine.step();
  return { asked, endedAt, run };
}

describe('ESP evolving job', () => {
  it('asks for its size + 4 at 16 % of its static time, again at 25 % when refused, then runs its static time', () => {
    const h = harness(1000, () => 'refuse');
    expect(h.asked).toEqual([
      { t: 160, processors: 12 },
      { t: 250, processors: 12 },
    ]);
    expect(h.endedAt).toBeCloseTo(1000, 9);
    expect(h.run.granted).toBeUndefined();
  });

  it('granted at 16 %, asks no more and runs the rest 12/8 times as fast: 160 + 840·8/12 = 720 s', () => {
    const h = harness(1000, () => 'grant');
    expect(h.asked).toEqual([{ t: 160, processors: 12 }]);
    expect(h.run.granted).toBe(160);
    expect(h.endedAt).toBeCloseTo(160 + (840 * 8) / 12, 9);
  });

  it('refused at 16 % and granted at 25 %: 250 + 750·8/12 = 750 s', () => {
    const h = harness(1000, (t) => (t < 200 ? 'refuse' : 'grant'));
    expect(h.asked.map((a) => a.t)).toEqual([160, 250]);
    expect(h.endedAt).toBeCloseTo(250 + (750 * 8) / 12, 9);
  });

  it("matches Table I's evolving times for a grant over the whole run on sizes of 128 cores (within 1 %)", () => {
    // F: 8 → 12 cores; G: 16 → 20; H: 21 → 25 (0.1582·128 = 20.2; 896 s fits 21)
    const sizes: Record<string, number> = { F: 8, G: 16, H: 21 };
    for (const t of ESP_TABLE.filter((x) => x.evolvingS !== undefined)) {
      const n = sizes[t.type]!;
      expect(Math.abs((t.staticS * n) / (n + 4) - t.evolvingS!) / t.evolvingS!, t.type).toBeLessThan(0.01);
    }
  });

  it('speaks through SimulatedApplications: an update for size + 4, retried after a refusal', () => {
    const engine = new EventEngine();
    const messages: Array<{ t: number; m: ApplicationMessage }> = [];
    let finished = Number.NaN;
    const apps = new SimulatedApplications(
      engine,
      (m) => messages.push({ t: engine.now, m }),
      () => (finished = engine.now),
    );
    const spec = jobSpecSchema.parse({
      id: 'F-1',
      kind: 'evolving',
      components: [{ min: 8, initial: 8, max: 12, program: 'esp-evolving' }],
      app: { model: 'esp-evolving', runtime: 1846, extra: 4 },
    });
    engine.at(0, () => apps.start(spec, 'F-1', 8));
    engine.at(300, () => apps.updateRefused('F-1', 'no room'));
    engine.at(500, () => apps.resized('F-1', 12));
    while (Number.isFinite(engine.nextTime())) engine.step();
    expect(messages.map(({ t, m }) => [t, m])).toEqual([
      [0.16 * 1846, { type: 'update', jobId: 'F-1', processors: 12 }],
      [0.25 * 1846, { type: 'update', jobId: 'F-1', processors: 12 }],
    ]);
    // granted at 500 s: the other 1346 s of work at 12/8 speed
    expect(finished).toBeCloseTo(500 + ((1846 - 500) * 8) / 12, 6);
  });
});
