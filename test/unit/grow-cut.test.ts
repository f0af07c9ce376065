// An accepted grow cut before it is granted (the cluster lost processors between the offer and the answer: background
// load rose, as a processor given back that still runs on Slurm for a moment): the application is told what it gets,
// so that its target follows its allocation and it takes later offers again.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jobSpecSchema } from '../../core/model/schemas.js';
import type { ApplicationMessage } from '../../core/ports.js';
import { SimulatedApplications } from '../../core/sim/applications.js';
import { EventEngine } from '../../core/sim/engine.js';
import { RemoteApplications } from '../../runners/protocol/application-port.js';
import { AppChannel } from '../../runners/protocol/channel.js';
import { decodeToApp } from '../../runners/protocol/messages.js';
import { LocalRunner } from '../../runners/shell/local-runner.js';
import { grid, harness, malleable } from '../support/harness.js';

/** A GADGET-like job 2..6 running at 2 on an 8-processor cluster, offered 4 when local users free the cluster. */
function offered() {
  const h = harness(grid({ a: 8 }), { policy: 'fpsma' });
  h.submit(malleable('g', 2, 6));
  h.pass();
  h.startAll();
  h.at(1).freed('a', 0);
  expect(h.apps.growOffers).toEqual([{ offerId: 1, jobId: 'g', processors: 4 }]);
  return h;
}

describe('an accepted grow cut before it is granted', () => {
  it('tells the application what it gets when capacity fell between offer and answer', () => {
    const h = offered();
    h.at(2).status('a', 3); // 3 processors taken by others meanwhile: room for 8 - 3 - 2 = 3 more
    h.answerGrow(h.apps.growOffers[0]!, 4);
    expect(h.ofType('grow.answered')).toMatchObject([{ jobId: 'g', accepted: 3, answered: 4 }]);
    expect(h.manager('a').grows).toEqual([{ jobId: 'g', processors: 3 }]);
    expect(h.apps.grants).toEqual([{ offerId: 1, jobId: 'g', granted: 3, accepted: 4 }]);
  });

  it('tells it that nothing comes when the whole grow is cut', () => {
    const h = offered();
    h.at(2).status('a', 6); // only the job's own 2 are left
    h.answerGrow(h.apps.growOffers[0]!, 4);
    expect(h.manager('a').grows).toEqual([]);
    expect(h.apps.grants).toEqual([{ offerId: 1, jobId: 'g', granted: 0, accepted: 4 }]);
  });

  it('says nothing when the grow is granted whole', () => {
    const h = offered();
    h.answerGrow(h.apps.growOffers[0]!, 4);
    expect(h.manager('a').grows).toEqual([{ jobId: 'g', processors: 4 }]);
    expect(h.apps.grants).toEqual([]);
  });
});

describe('a simulated application whose accepted grow is cut', () => {
  const spec = jobSpecSchema.parse({
    id: 'g',
    kind: 'malleable',
    walltime: 1000,
    components: [{ min: 2, max: 6, program: 'app' }],
  });

  it('counts only what comes, and takes the next offer up to its max again', () => {
    const answers: ApplicationMessage[] = [];
    const apps = new SimulatedApplications(
      new EventEngine(),
      (m) => answers.push(m),
      () => {},
    );
    apps.start(spec, 'g', 4);
    apps.offerGrow(1, 'g', 2);
    apps.growGranted(1, 'g', 0, 2); // neither processor comes
    apps.offerGrow(2, 'g', 2);
    expect(answers.map((m) => m.type === 'growAnswer' && m.accepted)).toEqual([2, 2]);
  });
});

describe('a cut grow over the application protocol (local job directory)', () => {
  const runner = new LocalRunner({ defaultTimeoutMs: 10_000 });
  afterAll(() => runner.close());

  it('writes `granted` with what comes and what the application accepted', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'concertina-grow-cut-'));
    try {
      const channel = new AppChannel(runner);
      const jobDir = path.join(dir, 'job');
      await channel.create(jobDir);
      const port = new RemoteApplications({
        deliver: () => {},
        onViolation: () => {},
        jobs: [['g', { channel, jobDir }]],
      });
      port.growGranted(7, 'g', 1, 2);
      const file = path.join(jobDir, 'to-app.jsonl');
      // The port's sends are not awaited: wait for the line.
      for (let i = 0; i < 500 && !readFileSync(file, 'utf8').includes('\n'); i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(decodeToApp(readFileSync(file, 'utf8').trimEnd())).toEqual({
        ok: true,
        message: { v: 1, seq: 1, type: 'granted', offerId: 7, processors: 1, accepted: 2 },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
