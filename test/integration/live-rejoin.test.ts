// A cluster that cannot be reached when a live run starts joins it once it can (issue 4, section 4): against a real
// sshd stopped at the start and started later, the cluster is tried again with backoff, its jobs are read by tag
// (the restored run's job there adopted, never submitted again), and work waiting for it is placed there; until
// then the grid's other cluster takes what it can.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import type { JobSpecInput } from '../../core/model/schemas.js';
import { createLiveWorld, runTag, type LiveWorldOptions } from '../../runners/live/live-world.js';
import type { LiveWorld } from '../../runners/live/types.js';
import { jobDirName } from '../../runners/managers/naming.js';
import { requireDaemons, waitFor } from './harness/common.js';
import { hostLogin, sshOptions } from './harness/host-login.js';
import { sshdMissing, startSshd, type Sshd } from './harness/sshd.js';

const ready = requireDaemons('the live-mode rejoin tests', ['openssh-server']) && sshdOk();

function sshdOk(): boolean {
  const missing = sshdMissing();
  if (!missing) return true;
  if (process.env.CI) throw new Error(`the live-mode rejoin tests cannot run: ${missing}`);
  console.warn(`Skipping the live-mode rejoin tests: ${missing}.`);
  return false;
}

const TAG = 'concertina';
let sshd: Sshd;
let dir: string;
let world: LiveWorld | undefined;
let options: LiveWorldOptions;
const events: SchedulerEvent[] = [];

const of = (type: SchedulerEvent['type'], jobId: string) =>
  events.filter((e) => e.type === type && (e as { jobId?: string }).jobId === jobId);
const waitEvent = (type: SchedulerEvent['type'], jobId: string, timeoutMs = 30_000) =>
  waitFor(`${type} of ${jobId}`, () => of(type, jobId).length > 0, timeoutMs, 50);
/** The run's tag: the scheduler's and the run's id. */
const tag = () => runTag(TAG, world!.persistentState().runId);
const jobDir = (cluster: string, jobId: string) => path.join(dir, cluster, 'jobs', jobDirName(tag(), jobId));

function submit(w: LiveWorld, spec: JobSpecInput): void {
  const r = w.act((s, now) => s.submit(spec, now));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
}

async function startWorld(restore?: unknown): Promise<LiveWorld> {
  const w = createLiveWorld({ ...options, ...(restore !== undefined && { restore }) });
  w.on((e) => events.push(e));
  world = w;
  await w.start();
  return w;
}

describe.skipIf(!ready)('a cluster unreachable at start joins the live run over a real sshd', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-rejoin-'));
    sshd = await startSshd();
    const access = hostLogin(sshd, dir);
    options = {
      clusters: [
        {
          name: 'here',
          login: { via: 'local' },
          system: 'local',
          slots: 1,
          workRoot: path.join(dir, 'here'),
          pollIntervalS: 1,
        },
        // No slots: the cluster's size is its processor count, unknown until it is reached.
        {
          name: 'remote',
          login: access.login,
          system: 'local',
          workRoot: path.join(dir, 'remote'),
          pollIntervalS: 1,
        },
      ],
      scheduler: { approach: 'pra', policy: 'fpsma', tag: TAG },
      ...sshOptions(access),
      commandTimeoutMs: 15_000,
      idleWatchIntervalMs: 500,
      rejoin: { initialDelayMs: 200, maxDelayMs: 1_000 },
      log: () => {},
    };
  }, 60_000);

  afterAll(async () => {
    await world?.stop();
    await sshd?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('tries the cluster again until sshd is back, adopts its job by tag without submitting it again, and places waiting work there', async () => {
    // An earlier run launched `kept` on the remote cluster; each run of its program appends a line.
    const first = await startWorld();
    submit(first, {
      id: 'kept',
      kind: 'rigid',
      components: [
        { processors: 1, cluster: 'remote', program: '/bin/sh', args: ['-c', 'echo run >> runs.txt; sleep 300'] },
      ],
    });
    await waitEvent('job.started', 'kept');
    const state = JSON.parse(JSON.stringify(first.persistentState()));
    await first.stop();

    await sshd.stop();
    const w = await startWorld(state);
    expect(w.clusters().find((c) => c.name === 'remote')).toMatchObject({
      connection: 'lost',
      lastError: expect.stringMatching(/^remote: /),
      capacity: { processors: 0 },
    });
    expect(w.recovered().find((r) => r.jobId === 'kept')).toMatchObject({
      outcome: 'refused',
      detail: expect.stringMatching(/unreachable .*not submitted again/),
    });
    expect(w.scheduler.job('kept')).toBeUndefined();
    // Work naming the unreachable cluster waits for it; work free to go anywhere runs on the other cluster.
    submit(w, {
      id: 'waits',
      kind: 'rigid',
      components: [{ processors: 1, cluster: 'remote', program: '/bin/sh', args: ['-c', 'echo here > where.txt'] }],
    });
    submit(w, { id: 'anywhere', kind: 'rigid', components: [{ processors: 1, program: '/bin/true' }] });
    await waitEvent('job.started', 'anywhere');
    expect(of('job.started', 'anywhere')[0]).toMatchObject({ cluster: 'here' });
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // several failed tries
    expect(of('job.started', 'waits')).toEqual([]);
    expect(w.persistentState().jobs.map((j) => j.spec.id)).toContain('kept');

    await sshd.start();
    await waitFor(
      'remote to join',
      () => w.clusters().find((c) => c.name === 'remote')!.connection === 'open',
      30_000,
      50,
    );
    await waitEvent('job.adopted', 'kept');
    expect(w.scheduler.job('kept')!.state).toBe('running');
    expect(
      w
        .recovered()
        .filter((r) => r.jobId === 'kept')
        .map((r) => r.outcome),
    ).toEqual(['refused', 'adopted']);
    await waitEvent('job.ended', 'waits');
    expect(of('job.ended', 'waits')[0]).toMatchObject({ state: 'completed' });
    expect(readFileSync(path.join(jobDir('remote', 'waits'), 'where.txt'), 'utf8')).toBe('here\n');
    // Adopted, not submitted again: its program ran once.
    expect(readFileSync(path.join(jobDir('remote', 'kept'), 'runs.txt'), 'utf8')).toBe('run\n');
    expect(of('job.submitted', 'kept')).toHaveLength(1);
    // The grid's placeholder size never shows: the scheduler sees no more than the cluster's own processors.
    const capacity = w.clusters().find((c) => c.name === 'remote')!.capacity!;
    expect(capacity.processors).toBeGreaterThanOrEqual(1);
    const snapshot = w.scheduler.snapshot().find((c) => c.name === 'remote')!;
    expect(snapshot.reachable).toBe(true);
    expect(snapshot.idle).toBeLessThanOrEqual(capacity.processors - 1);
    w.act((s, now) => s.cancel('kept', now));
    await waitEvent('job.ended', 'kept');
  }, 120_000);
});
