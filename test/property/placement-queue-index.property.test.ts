// The indexed placement queue (issue 17) against a plain walk of the queue, as the scan was before it: over random
// pushes, removals, scans with and without pass-over (by a poll round's bounds, or by need, with what fits or not, on
// queues shorter and longer than `byNeedFrom`), closed scans and arrivals-only scans, both visit the same jobs in the
// same order, return the same smallest key, and leave the same queue.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlacementQueue, type PassOver, type TryOutcome } from '../../core/queue/placement-queue.js';
import type { JobRecord } from '../../core/scheduler/job-record.js';

interface Job {
  id: string;
  state: string;
  triedInRound: number;
  passOver: number;
  /** What a scan by need reads: pinned, or not (components[0].cluster), evolving or not, its need. */
  spec: { components: Array<{ cluster: string | undefined }>; walltime?: number | undefined };
  kind: string;
  need: number;
  /** The hooks by which the queue tells a job it joined or left (no-ops here). */
  queuedIn(): void;
  keepReason(): void;
}

/** A job's key in a scan by need, written out: an unpinned job's need, unless it is evolving or needs nothing. */
function walkedNeedKey(job: Job): number | undefined {
  return job.spec.components[0]!.cluster === undefined && job.kind !== 'evolving' && job.need > 0
    ? job.need
    : undefined;
}

/** A job's key in a scan with `passOver`, or undefined when it is always visited. */
function walkedKey(job: Job, passOver: PassOver): number | undefined {
  if ('byNeed' in passOver) return walkedNeedKey(job);
  return job.triedInRound === passOver.round && job.passOver >= 0 ? job.passOver : undefined;
}

/** The reference: every scan walks every job, passing over those above the limit one by one. */
class WalkingQueue {
  jobs: Job[] = [];
  push(job: Job): void {
    this.jobs.push(job);
  }
  remove(job: Job): void {
    const i = this.jobs.indexOf(job);
    if (i >= 0) this.jobs.splice(i, 1);
  }
  scanOnly(only: readonly Job[], visit: (job: Job) => TryOutcome): void {
    for (const job of only) {
      if (job.state !== 'queued') continue;
      if (visit(job) === 'kept') continue;
      const i = this.jobs.lastIndexOf(job);
      if (i >= 0) this.jobs.splice(i, 1);
    }
  }
  /** As PlacementQueue.scan, `byNeedFrom` its own. */
  scan(visit: (job: Job) => TryOutcome, passOver?: PassOver, closed?: () => boolean, byNeedFrom = 0): number {
    let smallest = Number.POSITIVE_INFINITY;
    const kept: Job[] = [];
    const jobs = this.jobs;
    if (passOver !== undefined && 'byNeed' in passOver && jobs.length < byNeedFrom) passOver = undefined;
    const fits = passOver !== undefined && 'fits' in passOver ? passOver.fits : undefined;
    let i = 0;
    let limit = Number.NaN;
    for (; i < jobs.length; i++) {
      const job = jobs[i]!;
      if (job.state !== 'queued') continue;
      const key = passOver === undefined ? undefined : walkedKey(job, passOver);
      if (key !== undefined) {
        if (Number.isNaN(limit)) limit = passOver!.limit();
        if (key > limit || (fits !== undefined && !fits(key, job.spec.walltime ?? Infinity))) {
          kept.push(job);
          smallest = Math.min(smallest, key);
          continue;
        }
      }
      const outcome = visit(job);
      limit = Number.NaN;
      if (outcome === 'kept') kept.push(job);
      if (closed?.()) {
        i++;
        break;
      }
    }
    for (; i < jobs.length; i++) if (jobs[i]!.state === 'queued') kept.push(jobs[i]!);
    this.jobs = kept;
    return smallest;
  }
}

const noop = (): void => {};

const opArb = fc.oneof(
  fc.record({
    op: fc.constant('push' as const),
    n: fc.integer({ min: 1, max: 40 }),
    // The jobs' needs, pinned or evolving ones among them, in turn.
    needs: fc.array(fc.integer({ min: 0, max: 8 }), { minLength: 1, maxLength: 5 }),
    walltimes: fc.array(fc.oneof(fc.integer({ min: 1, max: 9 }), fc.constant(Infinity)), {
      minLength: 1,
      maxLength: 5,
    }),
    pinned: fc.nat({ max: 4 }),
    evolving: fc.nat({ max: 4 }),
  }),
  fc.record({ op: fc.constant('remove' as const), which: fc.nat() }),
  fc.record({
    op: fc.constant('scan' as const),
    round: fc.integer({ min: 0, max: 2 }),
    passOver: fc.boolean(),
    byNeed: fc.boolean(),
    // By need: whether it asks what fits too, and from how many waiting jobs.
    fits: fc.boolean(),
    byNeedFrom: fc.constantFrom(0, 20, 64),
    closeAfter: fc.option(fc.integer({ min: 1, max: 30 })),
  }),
  fc.record({
    op: fc.constant('only' as const),
    last: fc.integer({ min: 1, max: 10 }),
    round: fc.integer({ min: 0, max: 2 }),
  }),
);

describe('indexed placement queue', () => {
  it('visits, keeps and returns as a walk of the whole queue does', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: -1, max: 6 }), { minLength: 1, maxLength: 50 }),
        (ops, decisions) => {
          // Two copies of every job: each queue mutates its own.
          const a: Job[] = [];
          const b: Job[] = [];
          const indexed = new PlacementQueue(Number.POSITIVE_INFINITY);
          const walking = new WalkingQueue();
          let next = 0;
          for (const op of ops) {
            if (op.op === 'push') {
              for (let k = 0; k < op.n; k++) {
                const id = `j${next++}`;
                const x: Job = {
                  id,
                  state: 'queued',
                  triedInRound: -1,
                  passOver: -1,
                  spec: {
                    components: [{ cluster: op.pinned === 1 + (k % 5) ? 'c0' : undefined }],
                    walltime: ((w) => (w === Infinity ? undefined : w))(op.walltimes[k % op.walltimes.length]!),
                  },
                  kind: op.evolving === 1 + (k % 5) ? 'evolving' : 'rigid',
                  need: op.needs[k % op.needs.length]!,
                  queuedIn: noop,
                  keepReason: noop,
                };
                a.push(x);
                b.push({ ...x, spec: { ...x.spec, components: [{ ...x.spec.components[0]! }] } });
                indexed.push(x as unknown as JobRecord);
                walking.push(b[b.length - 1]!);
              }
            } else if (op.op === 'remove') {
              if (a.length === 0) continue;
              const i = op.which % a.length;
              if (a[i]!.state !== 'queued') continue;
              a[i]!.state = b[i]!.state = 'cancelled';
              indexed.remove(a[i]! as unknown as JobRecord);
              walking.remove(b[i]!);
            } else {
              // One visit script for both: the k-th visit's decision (-1 places; d >= 0 keeps with bound d or, for an
              // odd d, with none), and a limit that changes with the visits made.
              const run = (
                jobs: Job[],
                queue: { scan: WalkingQueue['scan'] } | { scanOnly: WalkingQueue['scanOnly'] },
              ) => {
                const visited: string[] = [];
                let visits = 0;
                const visit = (job: Job): TryOutcome => {
                  visited.push(job.id);
                  const d = decisions[visits++ % decisions.length]!;
                  job.triedInRound = op.round;
                  if (d < 0) {
                    job.state = 'claiming';
                    return 'placed';
                  }
                  job.passOver = d % 2 === 1 ? -1 : d;
                  return 'kept';
                };
                let smallest: number | undefined;
                if ('scanOnly' in queue) queue.scanOnly(jobs.slice(-(op as { last: number }).last), visit);
                else {
                  const s = op as {
                    passOver: boolean;
                    byNeed: boolean;
                    fits: boolean;
                    byNeedFrom: number;
                    closeAfter: number | null;
                  };
                  const limit = () => (visits * 3) % 7;
                  // Monotone in need and walltime, changing with the visits made.
                  const fits = (need: number, walltime: number) => need + Math.min(walltime, 12) <= (visits * 5) % 17;
                  const passOver: PassOver | undefined = !s.passOver
                    ? undefined
                    : s.byNeed
                      ? s.fits
                        ? { byNeed: true, limit, fits }
                        : { byNeed: true, limit }
                      : { round: op.round, limit };
                  smallest = queue.scan(
                    visit,
                    passOver,
                    s.closeAfter === null ? undefined : () => visits >= s.closeAfter!,
                    s.byNeedFrom,
                  );
                }
                return { visited, smallest };
              };
              const ia = run(
                a,
                op.op === 'only'
                  ? {
                      scanOnly: (o, v) =>
                        indexed.scanOnly(o as unknown as JobRecord[], v as unknown as (j: JobRecord) => TryOutcome),
                    }
                  : {
                      scan: (v, p, c, f) => {
                        indexed.byNeedFrom = f ?? 0;
                        return indexed.scan(v as unknown as (j: JobRecord) => TryOutcome, p, c);
                      },
                    },
              );
              const wb = run(
                b,
                op.op === 'only'
                  ? { scanOnly: (o, v) => walking.scanOnly(o, v) }
                  : { scan: (v, p, c, f) => walking.scan(v, p, c, f) },
              );
              expect(ia).toEqual(wb);
            }
            expect(indexed.list().map((j) => j.id)).toEqual(walking.jobs.map((j) => j.id));
            expect(indexed.length).toBe(walking.jobs.length);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
