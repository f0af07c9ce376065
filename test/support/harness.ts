// A scheduler wired to recording fakes of its ports, so a test can play the clusters and the applications
// message by message, answering when it chooses.
import { buildGrid } from '../../core/model/grid.js';
import { gridSpecSchema, type GridSpecInput, type JobSpecInput } from '../../core/model/schemas.js';
import type { SchedulerEvent } from '../../core/events.js';
import type { ApplicationPort, LocalJobRequest, LocalManager } from '../../core/ports.js';
import { Scheduler, type SchedulerOptions } from '../../core/scheduler/scheduler.js';

export class FakeManager implements LocalManager {
  readonly submitted: LocalJobRequest[] = [];
  readonly grows: Array<{ jobId: string; processors: number }> = [];
  readonly shrinks: Array<{ jobId: string; processors: number }> = [];
  readonly cancelled: string[] = [];
  polls = 0;
  constructor(
    readonly cluster: string,
    readonly supportsReservations = false,
  ) {}
  submit(request: LocalJobRequest): void {
    this.submitted.push(request);
  }
  grow(jobId: string, processors: number): void {
    this.grows.push({ jobId, processors });
  }
  readonly grownCancelled: string[] = [];
  cancelGrow(jobId: string): void {
    this.grownCancelled.push(jobId);
  }
  shrink(jobId: string, processors: number): void {
    this.shrinks.push({ jobId, processors });
  }
  cancel(jobId: string): void {
    this.cancelled.push(jobId);
  }
  poll(): void {
    this.polls++;
  }
}

export interface Offer {
  offerId: number;
  jobId: string;
  processors: number;
  mandatory?: boolean;
  deadline?: number;
}

export class FakeApplications implements ApplicationPort {
  readonly growOffers: Offer[] = [];
  readonly shrinkRequests: Offer[] = [];
  readonly sizes = new Map<string, number>();
  offerGrow(offerId: number, jobId: string, processors: number): void {
    this.growOffers.push({ offerId, jobId, processors });
  }
  readonly refusals: Array<{ jobId: string; reason: string }> = [];
  requestShrink(offerId: number, jobId: string, processors: number, mandatory: boolean, deadline?: number): void {
    this.shrinkRequests.push(
      deadline === undefined
        ? { offerId, jobId, processors, mandatory }
        : { offerId, jobId, processors, mandatory, deadline },
    );
  }
  /** Accepted grows cut before they were granted: what the application was told. */
  readonly grants: Array<{ offerId: number; jobId: string; granted: number; accepted: number }> = [];
  growGranted(offerId: number, jobId: string, granted: number, accepted: number): void {
    this.grants.push({ offerId, jobId, granted, accepted });
  }
  resized(jobId: string, size: number): void {
    this.sizes.set(jobId, size);
  }
  updateRefused(jobId: string, reason: string): void {
    this.refusals.push({ jobId, reason });
  }
}

/** Clusters by name and processors; threshold equal to processors unless given. */
export function grid(
  clusters: Record<string, number | { processors: number; threshold?: number; supportsReservations?: boolean }>,
  extra: Partial<GridSpecInput> = {},
) {
  return buildGrid(
    gridSpecSchema.parse({
      ...extra,
      clusters: Object.entries(clusters).map(([name, c]) =>
        typeof c === 'number' ? { name, processors: c } : { name, ...c },
      ),
    }),
  );
}

export function malleable(
  id: string,
  min: number,
  max: number,
  extra: Partial<JobSpecInput> & { initial?: number; cluster?: string } = {},
): JobSpecInput {
  const { initial, cluster, ...rest } = extra;
  return { id, kind: 'malleable', components: [{ min, max, initial, cluster, program: 'app' }], ...rest };
}

export function rigid(
  id: string,
  processors: number,
  extra: Partial<JobSpecInput> & { cluster?: string } = {},
): JobSpecInput {
  const { cluster, ...rest } = extra;
  return { id, kind: 'rigid', components: [{ processors, cluster, program: 'app' }], ...rest };
}

export function harness(g: ReturnType<typeof grid>, options: Partial<SchedulerOptions> = {}) {
  const managers = g.clusters.map((c) => new FakeManager(c.name, c.supportsReservations));
  const apps = new FakeApplications();
  const scheduler = new Scheduler(g, managers, apps, options);
  const events: SchedulerEvent[] = [];
  scheduler.on((e) => events.push(e));
  let now = 0;
  const h = {
    scheduler,
    managers,
    apps,
    events,
    manager: (name: string) => managers.find((m) => m.cluster === name)!,
    get now() {
      return now;
    },
    at(t: number) {
      now = t;
      return h;
    },
    submit(spec: JobSpecInput) {
      const r = scheduler.submit(spec, now);
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      return r.value;
    },
    pass() {
      scheduler.requestPass();
      scheduler.advance(now);
    },
    /** The local managers start every component submitted and not started yet. */
    startAll() {
      for (const m of managers) {
        for (const r of m.submitted.splice(0))
          scheduler.receive(
            { type: 'started', cluster: m.cluster, jobId: r.jobId, component: r.component, processors: r.processors },
            now,
          );
      }
      scheduler.advance(now);
    },
    status(cluster: string, background: number) {
      const c = g.cluster(cluster)!;
      scheduler.receive(
        { type: 'status', cluster, status: { processors: c.processors, background, reachable: true } },
        now,
      );
      scheduler.advance(now);
    },
    /** A poll shows local users gave processors back (background one higher, then `background`): growth is due. */
    freed(cluster: string, background: number) {
      const c = g.cluster(cluster)!;
      scheduler.receive(
        { type: 'status', cluster, status: { processors: c.processors, background: background + 1, reachable: true } },
        now,
      );
      h.status(cluster, background);
    },
    answerGrow(offer: Offer, accepted: number) {
      scheduler.receive({ type: 'growAnswer', offerId: offer.offerId, jobId: offer.jobId, accepted }, now);
    },
    answerShrink(offer: Offer, accepted: number, release = true) {
      scheduler.receive({ type: 'shrinkAnswer', offerId: offer.offerId, jobId: offer.jobId, accepted }, now);
      if (release && accepted > 0)
        scheduler.receive({ type: 'released', jobId: offer.jobId, processors: accepted, offerId: offer.offerId }, now);
    },
    /** Active processors arrive for every grow the managers were asked for. */
    growAll() {
      for (const m of managers) {
        for (const g2 of m.grows.splice(0))
          scheduler.receive({ type: 'grown', cluster: m.cluster, jobId: g2.jobId, processors: g2.processors }, now);
      }
      scheduler.advance(now);
    },
    finish(jobId: string, state: 'completed' | 'failed' = 'completed') {
      const job = scheduler.job(jobId)!;
      scheduler.receive({ type: 'finished', cluster: job.components[0]!.cluster, jobId, state, reason: 'done' }, now);
      scheduler.advance(now);
    },
    ofType<T extends SchedulerEvent['type']>(type: T) {
      return events.filter((e): e is Extract<SchedulerEvent, { type: T }> => e.type === type);
    },
  };
  return h;
}
