// PlacementQueue.scan with `closed`: once it says so, the jobs not visited stay in order, unvisited; the jobs that
// left before are gone; jobs that arrived during the scan join the tail.
import { describe, expect, it } from 'vitest';
import { PlacementQueue } from '../../core/queue/placement-queue.js';
import type { JobRecord } from '../../core/scheduler/job-record.js';

// queuedIn, keepReason: how the queue tells a job it joined or left (what it then reads is tested elsewhere).
const job = (id: string) =>
  ({
    id,
    state: 'queued',
    triedInRound: -1,
    passOver: -1,
    queuedIn: () => {},
    keepReason: () => {},
  }) as unknown as JobRecord;
const ids = (q: PlacementQueue) => q.list().map((j) => j.id);

describe('PlacementQueue.scan closed', () => {
  it('keeps the rest unvisited and in order when nothing left before the close', () => {
    const q = new PlacementQueue(1000);
    for (const id of ['a', 'b', 'c', 'd']) q.push(job(id));
    const visited: string[] = [];
    q.scan(
      (j) => (visited.push(j.id), 'kept'),
      undefined,
      () => visited.length === 2,
    );
    expect(visited).toEqual(['a', 'b']);
    expect(ids(q)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('removes the placed jobs before the close and keeps the rest after them, in order', () => {
    const q = new PlacementQueue(1000);
    for (const id of ['a', 'b', 'c', 'd', 'e']) q.push(job(id));
    const visited: string[] = [];
    q.scan(
      (j) => {
        visited.push(j.id);
        if (j.id === 'a') {
          (j as { state: string }).state = 'running';
          q.push(job('late'));
          return 'placed';
        }
        return 'kept';
      },
      undefined,
      () => visited.length === 2,
    );
    expect(visited).toEqual(['a', 'b']);
    expect(ids(q)).toEqual(['b', 'c', 'd', 'e', 'late']);
  });
});
