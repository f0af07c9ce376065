// DBES in live mode (issue 15, part 4): the host on its store, a live run on a real cluster on loopback reached over
// SSH (8 processors: Slurm, Grid Engine, or a plain host under the `local` manager), its queue scheduled under `dbes`
// chosen in Settings. The GADGET demo (malleable, 2..6) runs beside rigid jobs, grown and shrunk through the batch
// system (local jobs submitted and cancelled). Step 2 is an outcome the default policy would not give (under fpsma
// and PRA a waiting job never shrinks a running one: R waits for M's end); steps 1 and 3 carry DBES's reasons (the
// step, the job served):
// 1. Alone, M starts at its minimum and DBES's second step expands it to its maximum (for no job).
// 2. R (rigid, 4) arrives with 2 idle: the shrink phase takes 2 of M's second-step processors back for R (the
//    event names R) and R starts while M runs.
// 3. W (rigid, 8: the whole cluster) arrives: reserved at M's estimated end, it depends on M. When R ends, the first
//    expansion step gives the idle processors to M for W (the event names W) — never to the second step, which
//    would have taken them for no job — and W starts when M ends.
// Every step waits on a condition (events, sizes, a release file the test creates), never on elapsed time. DBES's
// decisions (each offer and shrink, its size and reason) are those of the same scenario in the simulator.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, jobSpecSchema } from '../../core/model/schemas.js';
import { SimWorld } from '../../core/sim/world.js';
import type { Host } from '../../electron/host/host.js';
import { openStore, type Store } from '../../electron/store/store.js';
import { repositoryAssetsDir } from '../../runners/live/live-world.js';
import { requireDaemons, waitFor } from './harness/common.js';
import { hostLogin, startHost } from './harness/host-login.js';
import { SGE_PACKAGES, startSge } from './harness/sge.js';
import { SLURM_PACKAGES, startSlurm } from './harness/slurm.js';
import { sshdMissing, startSshd, type Sshd } from './harness/sshd.js';

/** A batch system on loopback with 8 processors: what `clusters.save` adds for it, and how it stops. */
interface Site {
  readonly system: 'slurm' | 'sge' | 'local';
  readonly title: string;
  readonly packages: readonly string[];
  start(): Promise<{ readonly settings: Record<string, unknown>; stop(): Promise<void> }>;
}

const SITES: readonly Site[] = [
  {
    system: 'slurm',
    title: 'loopback Slurm',
    packages: SLURM_PACKAGES,
    start: async () => {
      const slurm = await startSlurm({ clusterName: 'cncdbes', nodes: 2, cpusPerNode: 4, minJobAgeS: 2 });
      return { settings: { env: slurm.env }, stop: () => slurm.stop() };
    },
  },
  {
    system: 'sge',
    title: 'loopback Grid Engine',
    packages: SGE_PACKAGES,
    start: async () => {
      const sge = await startSge({ slots: 8 });
      return { settings: { env: sge.env }, stop: () => sge.stop() };
    },
  },
  {
    system: 'local',
    title: 'a plain host (the local manager)',
    packages: [],
    start: () => Promise.resolve({ settings: { slots: 8 }, stop: () => Promise.resolve() }),
  },
];

function ready(site: Site): boolean {
  const suite = `the live DBES integration test on ${site.title}`;
  if (!requireDaemons(suite, ['openssh-server', ...site.packages])) return false;
  const missing = sshdMissing();
  if (!missing) return true;
  if (process.env.CI) throw new Error(`${suite} cannot run: ${missing}`);
  console.warn(`Skipping ${suite}: ${missing}.`);
  return false;
}

const NODE = process.execPath;
const GADGET = path.join(repositoryAssetsDir(), 'apps', 'gadget-demo.mjs');
/** Decision: few bodies, so that each step is cheap on the test's two loaded cores; steps enough to outlive the test. */
const GADGET_ARGS = [GADGET, '64', '100000000'];

function value<T>(r: { ok: true; value: T } | { ok: false; errors: unknown }): T {
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
}

type Offered = Extract<SchedulerEvent, { type: 'grow.offered' }>;
type ShrinkAsked = Extract<SchedulerEvent, { type: 'shrink.requested' }>;

/** An offer's or a shrink's size and reason, as DBES decided it. */
function decision(e: SchedulerEvent): string | undefined {
  if (e.type === 'grow.offered') return `grow ${e.jobId} +${e.processors} step ${e.step} for ${e.forJob ?? 'no job'}`;
  if (e.type === 'shrink.requested')
    return `shrink ${e.jobId} -${e.processors} ${e.phase} for ${e.forJob} from step ${e.fromStep}`;
  return undefined;
}

/**
 * The same scenario in the simulator: M (its walltime its run time at 2), R submitted once M is at 6 and ending on
 * its own, W submitted while R runs; W starts when M ends (there M runs to its end instead of being cancelled).
 */
function simulatedDecisions(cluster: string): { decisions: string[]; wStartsAtMEnd: boolean } {
  const spec = (id: string, submitTime: number, walltime: number, component: object, app: object, kind = 'rigid') =>
    jobSpecSchema.parse({ id, kind, submitTime, walltime, app, components: [{ program: 'x', ...component }] });
  const world = new SimWorld({
    grid: gridSpecSchema.parse({ clusters: [{ name: cluster, processors: 8 }] }),
    jobs: [
      spec('m', 0, 3600, { min: 2, max: 6 }, { model: 'amdahl', serial: 0, parallel: 7200 }, 'malleable'),
      spec('r', 10, 600, { processors: 4 }, { model: 'fixed', runtime: 100 }),
      spec('w', 50, 60, { processors: 8 }, { model: 'fixed', runtime: 1 }),
    ],
    seed: 1,
    background: false,
    scheduler: { policy: 'dbes' },
  });
  const events: SchedulerEvent[] = [];
  world.scheduler.on((e) => events.push(e));
  world.run();
  const mEnd = events.find((e) => e.type === 'job.ended' && e.jobId === 'm')!.t;
  const wStart = events.find((e) => e.type === 'job.started' && e.jobId === 'w')!.t;
  return {
    decisions: events.map(decision).filter((d): d is string => d !== undefined),
    wStartsAtMEnd: wStart === mEnd,
  };
}

for (const site of SITES) {
  describe.skipIf(!ready(site))(`DBES in a live run on ${site.title} over SSH`, () => {
    const cluster = site.system;
    let sshd: Sshd | undefined;
    let batch: { settings: Record<string, unknown>; stop(): Promise<void> } | undefined;
    let dir: string;
    let host: Host | undefined;
    let store: Store | undefined;

    const jobOf = (jobId: string) => value(host!.call('jobs.list', {})).jobs.find((j) => j.id === jobId);
    const eventsOf = (jobId: string): SchedulerEvent[] => {
      const r = host!.call('jobs.events', { jobId });
      return r.ok ? (r.value.events as SchedulerEvent[]) : [];
    };
    const offers = (jobId: string) => eventsOf(jobId).filter((e): e is Offered => e.type === 'grow.offered');
    const shrinks = (jobId: string) => eventsOf(jobId).filter((e): e is ShrinkAsked => e.type === 'shrink.requested');
    const started = (jobId: string) => eventsOf(jobId).find((e) => e.type === 'job.started');
    const ended = (jobId: string) =>
      eventsOf(jobId).find((e): e is Extract<SchedulerEvent, { type: 'job.ended' }> => e.type === 'job.ended');

    beforeAll(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), `cnc-live-dbes-${cluster}-`));
      [sshd, batch] = await Promise.all([startSshd(), site.start()]);
    }, 90_000);

    afterAll(async () => {
      if (host) {
        for (const id of ['m', 'r', 'w'])
          if (['queued', 'claiming', 'running'].includes(jobOf(id)?.state ?? ''))
            host.call('jobs.cancel', { jobId: id });
        await host.stop();
      }
      store?.close();
      await Promise.all([batch?.stop(), sshd?.dispose()]);
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it('shrinks the malleable job for a waiting rigid job, expands it for the job reserved behind it, and starts that job when it ends', async () => {
      const access = hostLogin(sshd!, dir);
      store = openStore(path.join(dir, 'run.db'));
      host = startHost(store, access);
      value(
        host.call('clusters.save', {
          name: cluster,
          login: access.login,
          system: site.system,
          ...batch!.settings,
          workRoot: path.join(dir, cluster),
          pollIntervalS: 1,
        }),
      );
      value(await host.call('run.startLive', {}));
      const seen: SchedulerEvent[] = [];
      host.subscribe((e) => seen.push(e));
      // The site chooses DBES for its live run in Settings, as an operator does.
      expect(value(host.call('settings.set', { policy: 'dbes' })).policy).toBe('dbes');
      expect(value(host.call('grid.snapshot', {})).clusters.find((c) => c.name === cluster)?.processors).toBe(8);

      // 1. M alone: started at its minimum, then expanded by the second step (for no job) to its maximum.
      value(
        host.call('jobs.submit', {
          id: 'm',
          kind: 'malleable',
          walltime: 3600,
          components: [{ min: 2, max: 6, initial: 2, cluster, program: NODE, args: GADGET_ARGS }],
        }),
      );
      await waitFor('m expanded to 6', () => jobOf('m')?.size === 6, 120_000, 200);
      expect(started('m')).toMatchObject({ size: 2 });
      expect(offers('m').map((e) => [e.step, e.forJob])).toEqual([[2, undefined]]);

      // 2. R needs 4 with 2 idle: the shrink phase takes 2 of M's second-step expansion back for R, and R starts.
      const releaseR = path.join(dir, 'release-r');
      value(
        host.call('jobs.submit', {
          id: 'r',
          kind: 'rigid',
          walltime: 600,
          components: [
            {
              processors: 4,
              cluster,
              program: '/bin/sh',
              args: ['-c', `while [ ! -e '${releaseR}' ]; do sleep 0.2; done`],
            },
          ],
        }),
      );
      await waitFor('r started', () => started('r') !== undefined, 120_000, 200);
      expect(shrinks('m')).toEqual([
        expect.objectContaining({ processors: 2, mandatory: true, phase: 'startLater', forJob: 'r', fromStep: 2 }),
      ]);
      expect(jobOf('m')).toMatchObject({ state: 'running', size: 4 });
      expect(started('r')!.t).toBeGreaterThanOrEqual(eventsOf('m').find((e) => e.type === 'job.shrunk')!.t);

      // 3. W needs the whole cluster: it waits, reserved at M's end (M outlasts R), so it depends on M.
      value(
        host.call('jobs.submit', {
          id: 'w',
          kind: 'rigid',
          walltime: 60,
          components: [{ processors: 8, cluster, program: '/bin/sh', args: ['-c', 'true'] }],
        }),
      );
      await waitFor('w reserved after m', () => /after m\b/.test(jobOf('w')?.lastFailure ?? ''), 60_000, 200);
      expect(jobOf('w')!.state).toBe('queued');
      // R ends: its 4 idle processors cannot start W (8); the first step expands M by 2 (to its max) for W.
      writeFileSync(releaseR, '');
      await waitFor('r ended', () => ended('r') !== undefined, 120_000, 200);
      await waitFor('m expanded for w', () => offers('m').some((e) => e.forJob === 'w'), 120_000, 200);
      expect(offers('m').map((e) => [e.step, e.forJob])).toEqual([
        [2, undefined],
        [1, 'w'],
      ]);
      await waitFor('m at 6 again', () => jobOf('m')?.size === 6, 120_000, 200);
      expect(jobOf('w')!.state).toBe('queued');
      expect(jobOf('w')!.lastFailure).toMatch(/after m\b/);

      // M ends (the operator cancels it): W starts on the whole cluster.
      value(host.call('jobs.cancel', { jobId: 'm' }));
      await waitFor('w started', () => started('w') !== undefined, 120_000, 200);
      expect(started('w')).toMatchObject({ size: 8 });
      expect(started('w')!.t).toBeGreaterThanOrEqual(ended('m')!.t);
      await waitFor('w ended', () => ended('w') !== undefined, 120_000, 200);
      expect(ended('w'), JSON.stringify(ended('w'))).toMatchObject({ state: 'completed' });
      expect(ended('r'), JSON.stringify(ended('r'))).toMatchObject({ state: 'completed' });

      // Exactly the decisions DBES makes in the simulator on the same scenario.
      const live = [...eventsOf('m'), ...eventsOf('r'), ...eventsOf('w')]
        .sort((a, b) => a.t - b.t)
        .map(decision)
        .filter((d) => d !== undefined);
      const simulated = simulatedDecisions(cluster);
      expect(live).toEqual([
        'grow m +4 step 2 for no job',
        'shrink m -2 startLater for r from step 2',
        'grow m +2 step 1 for w',
      ]);
      expect(simulated.decisions).toEqual(live);
      expect(simulated.wStartsAtMEnd).toBe(true);
      // Every grow was granted whole: none was cut because processors seemed to vanish meanwhile.
      expect(eventsOf('m').filter((e) => e.type === 'grow.answered' && e.answered !== undefined)).toEqual([]);
      // Nothing but this run's jobs ever ran there: no poll saw load, not even while M's given-back local jobs were
      // still ending on the cluster (after the shrink and the cancel) or the grows' local jobs were starting.
      expect(seen.filter((e) => e.type === 'job.started').map((e) => e.jobId)).toEqual(['m', 'r', 'w']);
      expect(seen.filter((e) => e.type === 'cluster.polled' && e.background > 0)).toEqual([]);
    }, 600_000);
  });
}
