// The staged assets by name (`{assets}`) in a live run on this machine (no daemons needed): a demo application
// chosen as the Submit form offers it runs from the cluster's staged copy, and the expansion stays quoted even
// when the cluster's work folder holds quotes, `$()`, `;` and non-ASCII.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import type { JobSpecInput } from '../../core/model/schemas.js';
import { DEMO_APPS } from '../../runners/live/assets-placeholder.js';
import { createLiveWorld, runTag } from '../../runners/live/live-world.js';
import type { LiveAppEvent, LiveWorld } from '../../runners/live/types.js';
import { jobDirName } from '../../runners/managers/naming.js';
import { waitFor } from './harness/common.js';

let dir: string;
let workRoot: string;
let world: LiveWorld;
const events: SchedulerEvent[] = [];
const appEvents: LiveAppEvent[] = [];

const of = (type: SchedulerEvent['type'], jobId: string) =>
  events.filter((e) => e.type === type && (e as { jobId?: string }).jobId === jobId);
const waitEvent = (type: SchedulerEvent['type'], jobId: string, timeoutMs = 30_000) =>
  waitFor(`${type} of ${jobId}`, () => of(type, jobId).length > 0, timeoutMs, 50).then(() => of(type, jobId)[0]!);

function submit(spec: JobSpecInput): void {
  const r = world.act((s, now) => s.submit(spec, now));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
}

describe("{assets} in a live job's program and arguments", () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-assets-'));
    workRoot = path.join(dir, `wörk 'q' "$(touch pwned)"; touch pwned2`);
    world = createLiveWorld({
      clusters: [{ name: 'here', login: { via: 'local' }, system: 'local', slots: 2, workRoot, pollIntervalS: 1 }],
      scheduler: { approach: 'pra', policy: 'fpsma' },
      idleWatchIntervalMs: 500,
      log: () => {},
    });
    world.on((e) => events.push(e));
    world.onApplication((e) => appEvents.push(e));
    await world.start();
  }, 30_000);

  afterAll(async () => {
    await world?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("runs a demo application as the Submit form names it, from the cluster's staged copy", async () => {
    const gadget = DEMO_APPS.find((a) => a.model === 'gadget2')!;
    submit({
      id: 'demo',
      kind: 'malleable',
      components: [{ min: 1, max: 2, initial: 1, program: gadget.program, args: ['50', '5'] }],
    });
    const ended = await waitEvent('job.ended', 'demo');
    expect(ended).toMatchObject({ state: 'completed' });
    // The application's last messages are read once more as the job ends.
    await waitFor('done from demo', () => appEvents.some((e) => e.type === 'done' && e.jobId === 'demo'), 10_000, 50);
    expect(appEvents.find((e) => e.type === 'done' && e.jobId === 'demo')).toMatchObject({ ok: true });
  }, 60_000);

  it('stages again on demand only on a cluster in the run, copying nothing while the copies match', async () => {
    expect(await world.stageAssets!('nope')).toEqual([]);
    const [again] = await world.stageAssets!('here');
    expect(again).toMatchObject({ dir: `${workRoot}/assets`, copied: [] });
    expect(again!.unchanged).toEqual(expect.arrayContaining(['apps/ft-demo.mjs', 'apps/gadget-demo.mjs']));
  });

  it("expands it in arguments too, as one word each, and nothing in the folder's name is executed", async () => {
    submit({
      id: 'args',
      kind: 'rigid',
      components: [
        {
          processors: 1,
          program: '/bin/sh',
          args: ['-c', 'printf "%s\\n" "$1" "$2" > seen.txt', 'sh', '{assets}/apps', 'x{assets}y{assets}'],
        },
      ],
    });
    expect(await waitEvent('job.ended', 'args')).toMatchObject({ state: 'completed' });
    const assets = world.assetsDir!('here')!;
    const jobDir = path.join(workRoot, 'jobs', jobDirName(runTag('concertina', world.persistentState().runId), 'args'));
    expect(assets).toBe(`${workRoot}/assets`);
    const seen = readFileSync(path.join(jobDir, 'seen.txt'), 'utf8');
    expect(seen).toBe(`${assets}/apps\nx${assets}y${assets}\n`);
    for (const name of ['pwned', 'pwned2']) {
      for (const where of [dir, process.cwd(), os.homedir()]) expect(existsSync(path.join(where, name))).toBe(false);
      expect(existsSync(path.join(jobDir, name))).toBe(false);
    }
  }, 30_000);
});
