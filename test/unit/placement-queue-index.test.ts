// Issue 17: waiting costs nothing per pass when nothing changed. A scan steps over the jobs that fit nowhere (tried in
// this round, their pass-over bound above what any cluster has) without looking at them: the job fields read by a
// pass stay bounded however long the queue, where a walk would read every waiting job at every pass.
import { describe, expect, it } from 'vitest';
import { PlacementQueue, type PassOver, type TryOutcome } from '../../core/queue/placement-queue.js';
import type { JobRecord } from '../../core/scheduler/job-record.js';

interface FakeJob {
  id: string;
  state: string;
  triedInRound: number;
  passOver: number;
  min: number;
  /** The hooks by which the queue tells a job it joined or left (no-ops here). */
  queuedIn(): void;
  keepReason(): void;
}

/** Jobs whose field reads are counted (a Proxy over a plain record). */
function countedJobs(n: number, min: (i: number) => number) {
  const reads = { count: 0 };
  const jobs = Array.from({ length: n }, (_, i) => {
    const job: FakeJob = {
      id: `j${i}`,
      state: 'queued',
      triedInRound: -1,
      passOver: -1,
      min: min(i),
      queuedIn: () => {},
      keepReason: () => {},
    };
    return new Proxy(job, {
      get(target, key, receiver) {
        reads.count++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    }) as unknown as JobRecord;
  });
  return { jobs, reads };
}

/** A visit as KOALA's scan makes it: places a job whose minimum fits `free`, else keeps it with its minimum as bound. */
function visitWith(free: { n: number }, round: number, visited: string[]) {
  return (job: JobRecord): TryOutcome => {
    visited.push(job.id);
    const j = job as unknown as FakeJob;
    if (j.min <= free.n) {
      free.n -= j.min;
      j.state = 'claiming';
      return 'placed';
    }
    j.triedInRound = round;
    j.passOver = j.min;
    return 'kept';
  };
}

describe('PlacementQueue index', () => {
  it('reads a bounded number of job fields per pass when nothing changed, whatever the queue length', () => {
    const n = 20_000;
    const { jobs, reads } = countedJobs(n, () => 4);
    const q = new PlacementQueue(Number.POSITIVE_INFINITY);
    for (const job of jobs) q.push(job);
    const free = { n: 0 };
    const passOver: PassOver = { round: 0, limit: () => free.n };
    const visited: string[] = [];
    // The first pass tries every job once (none fits).
    q.scan(visitWith(free, 0, visited), passOver);
    expect(visited).toHaveLength(n);
    // Then 100 passes with nothing free: no visit, and (nearly) no job looked at.
    visited.length = 0;
    reads.count = 0;
    for (let pass = 0; pass < 100; pass++) q.scan(visitWith(free, 0, visited), passOver);
    expect(visited).toEqual([]);
    expect(reads.count).toBeLessThan(100);
    expect(q.length).toBe(n);
  });

  it('visits only the jobs that may fit once room comes, in queue order, and skips the rest', () => {
    // Jobs needing 4, except every 1000th which needs 1.
    const n = 10_000;
    const { jobs, reads } = countedJobs(n, (i) => (i % 1000 === 999 ? 1 : 4));
    const q = new PlacementQueue(Number.POSITIVE_INFINITY);
    for (const job of jobs) q.push(job);
    const free = { n: 0 };
    const passOver: PassOver = { round: 0, limit: () => free.n };
    const visited: string[] = [];
    q.scan(visitWith(free, 0, visited), passOver);
    visited.length = 0;
    reads.count = 0;
    // Two processors come free: the first two jobs needing 1 start; the scan then skips everything else.
    free.n = 2;
    const smallest = q.scan(visitWith(free, 0, visited), passOver);
    expect(visited).toEqual(['j999', 'j1999']);
    expect(smallest).toBe(1);
    expect(reads.count).toBeLessThan(200);
    expect(q.length).toBe(n - 2);
    expect(q.list()[999]!.id).toBe('j1000');
  });

  it('keeps its order through the compaction that follows many departures', () => {
    const n = 3000;
    const { jobs } = countedJobs(n, (i) => (i % 3 === 0 ? 1 : 2));
    const q = new PlacementQueue(Number.POSITIVE_INFINITY);
    for (const job of jobs) q.push(job);
    const free = { n: 1000 };
    const passOver: PassOver = { round: 0, limit: () => free.n };
    const visited: string[] = [];
    // The jobs (needing 1, 2, 2, 1, 2, 2, ...) start in queue order until the 1000 free processors are taken.
    q.scan(visitWith(free, 0, visited), passOver);
    expect(q.length).toBe(jobs.filter((j) => j.state === 'queued').length);
    // Removing most of the rest compacts the slots; order and pass-over still hold.
    for (const job of jobs.filter((j) => j.state === 'queued').slice(0, q.length - 10)) {
      (job as unknown as FakeJob).state = 'cancelled';
      q.remove(job);
    }
    const rest = jobs.filter((j) => j.state === 'queued').map((j) => j.id);
    expect(q.list().map((j) => j.id)).toEqual(rest);
    visited.length = 0;
    free.n = 1;
    q.scan(visitWith(free, 0, visited), passOver);
    expect(visited).toEqual(rest.filter((id) => Number(id.slice(1)) % 3 === 0).slice(0, 1));
    q.push(jobs[0]!);
    expect(q.list().at(-1)!.id).toBe('j0');
  });

  it('compacts a queue left empty (in place) and takes jobs again from the head', () => {
    const { jobs } = countedJobs(1500, () => 1);
    const q = new PlacementQueue(Number.POSITIVE_INFINITY);
    for (const job of jobs.slice(0, 1200)) q.push(job);
    for (const job of jobs.slice(0, 1200)) expect(q.remove(job)).toBe(true);
    expect(q.length).toBe(0);
    expect(q.list()).toEqual([]);
    expect(q.push(jobs[1200]!)).toBe(0);
    expect(q.push(jobs[1201]!)).toBe(1);
    expect(q.remove(jobs[0]!)).toBe(false);
    const visited: string[] = [];
    q.scan(visitWith({ n: 1 }, 0, visited), { round: 0, limit: () => 1 });
    expect(visited).toEqual(['j1200', 'j1201']);
    expect(q.list().map((j) => j.id)).toEqual(['j1201']);
  });
});
