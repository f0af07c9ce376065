// Grows in the simulator (issue 11): one single-processor local job per processor, as KOALA's malleable runner
// (paper V-A) and the live managers do; the application adapts to those that started, after its adapt time.
import { describe, expect, it } from 'vitest';
import { clusterSchema, jobSpecSchema } from '../../core/model/schemas.js';
import type { ApplicationMessage, ManagerMessage } from '../../core/ports.js';
import { SimulatedApplications } from '../../core/sim/applications.js';
import { EventEngine } from '../../core/sim/engine.js';
import { SimulatedCluster } from '../../core/sim/simulated-cluster.js';

function cluster(processors: number, launchDelayS = 0) {
  const engine = new EventEngine();
  const messages: ManagerMessage[] = [];
  const c = new SimulatedCluster(
    clusterSchema.parse({ name: 'a', processors }),
    0,
    engine,
    (m) => messages.push(m),
    { started: () => undefined, usage() {} },
    launchDelayS,
  );
  const run = () => {
    while (engine.step());
  };
  return { engine, messages, c, run };
}

describe('a grow in the simulated cluster', () => {
  it('starts one processor at a time as they come free, not all at once', () => {
    const { engine, messages, c, run } = cluster(10);
    c.addBackground(6, 100); // local users hold 6 until t = 100
    c.submit({ jobId: 'j', component: 0, processors: 2, program: 'app', args: [], tag: 't' }); // starts at once
    expect(messages).toEqual([{ type: 'started', cluster: 'a', jobId: 'j', component: 0, processors: 2 }]);
    messages.length = 0;
    c.grow('j', 4); // 2 free now, 2 more at t = 100
    expect(messages).toEqual([{ type: 'grown', cluster: 'a', jobId: 'j', processors: 2 }]);
    expect(c.allocatedTo('j')).toBe(4);
    run();
    expect(engine.now).toBe(100);
    expect(messages.slice(1)).toEqual([{ type: 'grown', cluster: 'a', jobId: 'j', processors: 2 }]);
    expect(c.allocatedTo('j')).toBe(6);
  });

  it('lets a background job queued behind part of a grow wait only for that part', () => {
    const { engine, messages, c, run } = cluster(8);
    c.submit({ jobId: 'j', component: 0, processors: 2, program: 'app', args: [], tag: 't' });
    c.addBackground(5, 50); // 1 free
    c.grow('j', 3); // 1 starts now, 2 wait behind nothing else
    expect(messages.filter((m) => m.type === 'grown')).toEqual([
      { type: 'grown', cluster: 'a', jobId: 'j', processors: 1 },
    ]);
    run();
    expect(engine.now).toBe(50);
    expect(messages.filter((m) => m.type === 'grown').map((m) => (m.type === 'grown' ? m.processors : 0))).toEqual([
      1, 2,
    ]);
  });

  it('announces the processors of one grow that start at one moment together, after the launch delay', () => {
    const { engine, messages, c, run } = cluster(10, 5);
    c.submit({ jobId: 'j', component: 0, processors: 2, program: 'app', args: [], tag: 't' });
    run();
    c.grow('j', 3);
    expect(messages.filter((m) => m.type === 'grown')).toEqual([]);
    run();
    expect(engine.now).toBe(10);
    expect(messages.filter((m) => m.type === 'grown')).toEqual([
      { type: 'grown', cluster: 'a', jobId: 'j', processors: 3 },
    ]);
  });
});

describe('a malleable application adapting to a new size', () => {
  const spec = jobSpecSchema.parse({
    id: 'j',
    kind: 'malleable',
    walltime: 1000,
    app: { model: 'amdahl', serial: 0, parallel: 8000 },
    components: [{ min: 2, max: 8, program: 'app' }],
  });

  function apps(adaptS: number) {
    const engine = new EventEngine();
    const messages: ApplicationMessage[] = [];
    const a = new SimulatedApplications(
      engine,
      (m) => messages.push(m),
      () => messages.push({ type: 'released', jobId: 'END', processors: 0 }),
      undefined,
      adaptS,
    );
    return { engine, messages, a };
  }

  it('runs on the processors it holds once its adapt time has passed, those started meanwhile included', () => {
    const { engine, a } = apps(10);
    a.start(spec, 'j', 2);
    expect(a.sizeOf('j')).toBe(2);
    a.resized('j', 3); // one processor of a grow started
    engine.at(4, () => a.resized('j', 4)); // another, during the adaptation
    while (engine.nextTime() <= 9) engine.step();
    expect(a.sizeOf('j')).toBe(2); // still adapting
    while (engine.nextTime() <= 10) engine.step();
    expect(engine.now).toBe(10);
    expect(a.sizeOf('j')).toBe(4);
  });

  it("lets a shrink's processors go once it has adapted", () => {
    const { engine, messages, a } = apps(10);
    a.start(spec, 'j', 6);
    a.requestShrink(1, 'j', 3, true);
    expect(messages).toEqual([{ type: 'shrinkAnswer', offerId: 1, jobId: 'j', accepted: 3 }]);
    while (engine.nextTime() <= 10) engine.step();
    expect(messages.at(-1)).toEqual({ type: 'released', jobId: 'j', processors: 3, offerId: 1 });
    expect(engine.now).toBe(10);
    expect(a.sizeOf('j')).toBe(3);
  });

  it('adapts at once with no adapt time', () => {
    const { a } = apps(0);
    a.start(spec, 'j', 2);
    a.resized('j', 5);
    expect(a.sizeOf('j')).toBe(5);
  });
});
