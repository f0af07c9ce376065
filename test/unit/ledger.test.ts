// The capacity ledger (core/scheduler/ledger.ts), the one owner of the counters placed jobs move: hand-computed
// cases of what each change does to a cluster's capacity classes.
import { describe, expect, it } from 'vitest';
import { jobSpecSchema, type JobSpecInput } from '../../core/model/schemas.js';
import { placementPolicy } from '../../core/placement/registry.js';
import { ClusterState } from '../../core/scheduler/cluster-state.js';
import { JobRecord } from '../../core/scheduler/job-record.js';
import { CapacityLedger } from '../../core/scheduler/ledger.js';
import { ReusedList } from '../../core/scheduler/reused-list.js';
import { grid, malleable, rigid } from '../support/harness.js';

function setup() {
  const g = grid({ a: 16, b: 8 });
  const clusters = g.clusters.map((c) => new ClusterState(c));
  const freed: string[] = [];
  const ledger = new CapacityLedger(g, clusters, (s) => freed.push(s.cluster.name));
  const record = (input: JobSpecInput, cluster = 0) => {
    const spec = jobSpecSchema.parse(input);
    const job = new JobRecord(spec, spec.id!, 0, 0, placementPolicy(spec.placement)!);
    job.clusterIndex = cluster;
    job.components = [{ cluster: g.clusters[cluster]!.name, processors: job.min }];
    return job;
  };
  const counters = (i = 0) => {
    const s = clusters[i]!;
    return {
      nonPreemptible: s.nonPreemptible,
      preemptible: s.preemptible,
      preallocatedUnused: s.preallocatedUnused,
      offered: s.offered,
      reserved: s.reserved,
    };
  };
  return { clusters, ledger, freed, record, counters };
}

const evolving = (id: string, min: number, max: number, initial: number): JobSpecInput => ({
  id,
  kind: 'evolving',
  components: [{ min, max, initial, program: 'amr' }],
});

describe('the capacity ledger', () => {
  it('counts a malleable job up to its minimum as non-preemptible and above it as preemptible', () => {
    const { ledger, record, counters } = setup();
    const m = record(malleable('m', 2, 10));
    // 5 claimed: 2 (its minimum) non-preemptible, 3 preemptible.
    ledger.account(m, () => (m.claimed = 5));
    expect(counters()).toMatchObject({ nonPreemptible: 2, preemptible: 3 });
    // Started with 5, then 4 more accepted: held 9 = 2 + 7.
    ledger.account(m, () => {
      m.claimed = 0;
      m.size = 5;
    });
    ledger.account(m, () => (m.pendingGrow += 4));
    expect(counters()).toMatchObject({ nonPreemptible: 2, preemptible: 7 });
    // Down to 1 (below its minimum: only what it holds counts): 1 non-preemptible, 0 preemptible.
    ledger.account(m, () => {
      m.pendingGrow = 0;
      m.size = 1;
    });
    expect(counters()).toMatchObject({ nonPreemptible: 1, preemptible: 0 });
  });

  it('moves what an evolving job uses between its unused pre-allocation and non-preemptible use', () => {
    const { clusters, ledger, record, counters } = setup();
    const e = record(evolving('e', 2, 12, 4));
    ledger.holdPreallocation(e);
    expect(counters()).toMatchObject({ preallocatedUnused: 12, nonPreemptible: 0 });
    expect(clusters[0]!.evolvingJobs).toEqual([e]);
    // Uses 4 of its 12; then 3 more promised to an update: 7 in use, 5 unused.
    ledger.account(e, () => (e.claimed = 4));
    ledger.account(e, () => (e.promised += 3));
    expect(counters()).toMatchObject({ preallocatedUnused: 5, nonPreemptible: 7 });
    // Ended: everything given back, its cluster told once per component.
    ledger.unaccount(e);
    expect(counters()).toMatchObject({ preallocatedUnused: 0, nonPreemptible: 0 });
    expect(clusters[0]!.evolvingJobs).toEqual([]);
  });

  it('gives back a rigid job on every cluster it was placed on, and says each freed', () => {
    const { clusters, ledger, freed, record, counters } = setup();
    const r = record(rigid('r', 6));
    r.components = [
      { cluster: 'a', processors: 4 },
      { cluster: 'b', processors: 2 },
    ];
    ledger.holdRigid(clusters[0]!, 4);
    ledger.holdRigid(clusters[1]!, 2);
    expect([counters(0).nonPreemptible, counters(1).nonPreemptible]).toEqual([4, 2]);
    ledger.unaccount(r);
    expect([counters(0).nonPreemptible, counters(1).nonPreemptible]).toEqual([0, 0]);
    expect(freed).toEqual(['a', 'b']);
  });

  it('earmarks processors for grow offers and takes them back', () => {
    const { clusters, ledger, counters } = setup();
    ledger.earmark(clusters[0]!, 6);
    ledger.unearmark(clusters[0]!, 2); // a job took 2 of the 6
    expect(counters().offered).toBe(4);
    ledger.unearmark(clusters[0]!, 4); // the operation ended
    expect(counters().offered).toBe(0);
  });

  it('records what a job agreed to release, and by when the earliest deadline falls', () => {
    const { ledger, record } = setup();
    const m = record(malleable('m', 2, 10));
    ledger.agreeToRelease(m, 3, undefined); // at once
    expect([m.releasing, m.releasingByDeadline, m.releaseBy]).toEqual([3, 0, Number.NaN]);
    ledger.agreeToRelease(m, 2, 50);
    ledger.agreeToRelease(m, 1, 40);
    ledger.agreeToRelease(m, 0, 10); // nothing agreed: no deadline
    expect([m.releasing, m.releasingByDeadline, m.releaseBy]).toEqual([6, 3, 40]);
  });

  it('sets processors aside for a waiting job and gives them back', () => {
    const { clusters, ledger, record, counters } = setup();
    const w = record(rigid('w', 6));
    ledger.reserve(w, clusters[1]!, 6);
    expect(w.waitingOn).toEqual([1]);
    expect(counters(1).reserved).toBe(6);
    expect(clusters[1]!.availableFor('w')).toBe(8);
    expect(clusters[1]!.availableFor()).toBe(2);
    ledger.dropReservations(w);
    expect([w.waitingOn, counters(1).reserved]).toEqual([[], 0]);
  });

  it('notes, while watched, each cluster whose version moved once until drained (a planned pass refreshes only those)', () => {
    const { clusters, ledger, record } = setup();
    const moved = () => {
      const out: number[] = [];
      ledger.drainMoved((i) => out.push(i));
      return out;
    };
    const r = record(rigid('r', 4), 1);
    ledger.place(r);
    // Not watched: nothing noted.
    expect(moved()).toEqual([]);
    ledger.watchChanges(true);
    ledger.holdRigid(clusters[1]!, 4);
    ledger.started(r);
    expect(moved()).toEqual([1]);
    expect(moved()).toEqual([]);
    ledger.unaccount(r);
    ledger.remove(r);
    expect(moved()).toEqual([1]);
  });

  it("tells a cluster's availability watch once of each change to what availableFor reads, until it is seen", () => {
    const { clusters } = setup();
    const stale = new ReusedList<ClusterState>();
    const listed = () => stale.items.slice(0, stale.count);
    const s = clusters[0]!;
    s.watchAvailability(stale);
    // Joins at once: nothing was seen yet.
    expect(listed()).toEqual([s]);
    stale.clear();
    s.availabilitySeen();
    s.background = 3;
    s.nonPreemptible = 2;
    expect(listed()).toEqual([s]);
    stale.clear();
    s.availabilitySeen();
    // A cluster going unreachable has nothing available: that is a change too.
    s.reachable = false;
    expect(listed()).toEqual([s]);
    stale.clear();
    s.availabilitySeen();
    s.reserve('w', 2);
    expect(listed()).toEqual([s]);
    stale.clear();
    s.availabilitySeen();
    // The same value again changes nothing.
    s.reachable = false;
    s.background = 3;
    expect(listed()).toEqual([]);
  });
});
