// The queue policies in live mode, on real processes (a `local` cluster of this machine, so no daemon is needed):
// a live world built as the host builds it (createLiveWorldFromConfig) with the run's queue settings runs EASY
// backfilling — Concertina decides, the cluster's batch system executes. A wide job blocked behind a running one
// gets a reservation at the running job's start plus its walltime; a short job behind it starts at once into the
// free slot (it ends before the reservation); a long one that would delay the reservation waits; the reservation
// never moves, and the head starts no later than it. Every step waits on a condition (the running job ends when the
// test creates its release file), never on elapsed time.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { createLiveWorldFromConfig } from '../../electron/live/live-run.js';
import { liveClusterSchema } from '../../runners/live/config.js';
import type { LiveWorld } from '../../runners/live/types.js';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';
import { waitFor } from './harness/common.js';
import { endLiveRun, localCluster } from './harness/local-cluster.js';

let dir: string;
let world: LiveWorld;
const events: SchedulerEvent[] = [];

const eventOf = (type: SchedulerEvent['type'], jobId: string) =>
  events.find((e) => e.type === type && (e as { jobId?: string }).jobId === jobId);
const waitEvent = (type: SchedulerEvent['type'], jobId: string) =>
  waitFor(`${type} of ${jobId}`, () => eventOf(type, jobId) !== undefined, 60_000, 50);
const job = (id: string) => world.scheduler.job(id)!;

function submit(id: string, processors: number, walltime: number, script: string): void {
  const r = world.act((s, now) =>
    s.submit(
      { id, kind: 'rigid', walltime, components: [{ processors, program: '/bin/sh', args: ['-c', script] }] },
      now,
    ),
  );
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
}

describe('EASY backfilling in live mode on a plain host (this machine)', () => {
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-live-easy-'));
    const cluster = liveClusterSchema.parse(localCluster(path.join(dir, 'work')));
    world = createLiveWorldFromConfig({
      clusters: [cluster],
      knownHosts: new KnownHosts(path.join(dir, 'known_hosts'), []),
      secrets: { get: async () => undefined },
      queue: { queue: 'easy', reservationDepth: undefined, priority: 'submit' },
    });
    world.on((e) => events.push(e));
    await world.start();
  }, 60_000);

  afterAll(() => endLiveRun(world, dir));

  it("backfills a short job past the blocked head, refuses a long one, and keeps the head's reservation", async () => {
    expect(world.scheduler.queuePolicyName).toBe('easy');
    expect(world.scheduler.grid.clusters.map((c) => [c.name, c.processors])).toEqual([['here', 4]]);
    const release = path.join(dir, 'release-a');

    // A holds 3 of the 4 slots until the test releases it; the plan has it end at its start plus its walltime.
    submit('a', 3, 60, `while [ ! -e '${release}' ]; do sleep 0.1; done`);
    await waitEvent('job.started', 'a');
    const reservation = job('a').startTime + 60;

    // B needs all 4: blocked, it is the head and reserved at A's planned end. C (1 slot, 10 s) ends before that: it
    // starts now, past B.
    submit('b', 4, 30, 'true');
    submit('c', 1, 10, 'true');
    await waitEvent('job.started', 'c');
    expect(job('b').state).toBe('queued');
    expect(eventOf('job.started', 'b')).toBeUndefined();
    expect(job('b').plannedStart).toEqual({ cluster: 0, start: reservation });
    await waitEvent('job.ended', 'c');
    expect(eventOf('job.ended', 'c')).toMatchObject({ state: 'completed' });

    // D (1 slot, 300 s) would fit in the free slot now but would still hold it at B's reservation: it waits.
    submit('d', 1, 300, 'true');
    await waitFor("d refused for b's reservation", () => /reservation/.test(job('d').lastFailure ?? ''), 60_000, 50);
    expect(job('d').state).toBe('queued');
    expect(eventOf('job.started', 'd')).toBeUndefined();
    expect(job('b').plannedStart).toEqual({ cluster: 0, start: reservation });

    // A ends (early, as jobs do): B starts, no later than its reservation; D only after B.
    writeFileSync(release, '');
    await waitEvent('job.started', 'b');
    const bStart = eventOf('job.started', 'b')!.t;
    expect(bStart).toBeLessThanOrEqual(reservation);
    expect(bStart).toBeGreaterThanOrEqual(eventOf('job.ended', 'a')!.t);
    await waitEvent('job.ended', 'd');
    expect(eventOf('job.started', 'd')!.t).toBeGreaterThanOrEqual(eventOf('job.ended', 'b')!.t);
    for (const id of ['a', 'b', 'c', 'd']) expect(eventOf('job.ended', id)).toMatchObject({ state: 'completed' });
  }, 180_000);
});
