// Placement policies, table-driven: a grid, what Concertina may take on each cluster, a job, and the expected choice
// with its arithmetic. Placements are written "cluster:processors", one per returned component.
import { describe, expect, it } from 'vitest';
import { buildGrid, type Grid } from '../../core/model/grid.js';
import {
  gridSpecSchema,
  jobSpecSchema,
  PLACEMENT_POLICIES,
  type GridSpecInput,
  type JobSpec,
} from '../../core/model/schemas.js';
import type { Placement, PlacementContext, PlacementPolicy } from '../../core/placement/policy.js';
import { closeToFiles } from '../../core/placement/close-to-files.js';
import { clusterMinimization } from '../../core/placement/cluster-minimization.js';
import { flexibleClusterMinimization } from '../../core/placement/flexible-cluster-minimization.js';
import { placementPolicies, placementPolicy } from '../../core/placement/registry.js';
import { noClusterReason, sizeFor } from '../../core/placement/sizing.js';
import { worstFit } from '../../core/placement/worst-fit.js';

// ---- builders -------------------------------------------------------------------------------------------------------

/** Clusters in the given order, each with 128 processors unless said otherwise. */
function grid(names: readonly string[], extra: Omit<GridSpecInput, 'clusters'> = {}): Grid {
  return buildGrid(gridSpecSchema.parse({ clusters: names.map((name) => ({ name, processors: 128 })), ...extra }));
}

const DLU = grid(['delft', 'leiden', 'utrecht']);

/** What Concertina may take now, by cluster name; clusters not named have 0. */
function ctx(g: Grid, available: Record<string, number>): PlacementContext {
  return { grid: g, available: (i) => available[g.clusters[i]!.name] ?? 0 };
}

type Pin = { cluster?: string; inputFiles?: string[] };
const component = (fields: Record<string, unknown>, pin: Pin = {}) => ({ program: 'app', ...fields, ...pin });

/** A rigid job; a size may be [size, pin] to pin it or give it input files. */
function rigid(...sizes: (number | [number, Pin])[]): JobSpec {
  return jobSpecSchema.parse({
    kind: 'rigid',
    components: sizes.map((s) =>
      typeof s === 'number' ? component({ processors: s }) : component({ processors: s[0] }, s[1]),
    ),
  });
}

function malleable(min: number, max: number, initial?: number, pin: Pin = {}): JobSpec {
  return jobSpecSchema.parse({
    kind: 'malleable',
    components: [component({ min, max, ...(initial === undefined ? {} : { initial }) }, pin)],
  });
}

function moldable(min: number, max: number, pin: Pin = {}): JobSpec {
  return jobSpecSchema.parse({ kind: 'moldable', components: [component({ min, max }, pin)] });
}

/** "delft:8 leiden:4", or the failure reason. */
function show(p: Placement): string {
  return p.ok ? p.components.map((c) => `${c.cluster}:${c.processors}`).join(' ') : `fail: ${p.reason}`;
}

interface Case {
  name: string;
  grid?: Grid;
  available: Record<string, number>;
  job: JobSpec;
  want: string;
}

function table(policy: PlacementPolicy, cases: Case[]): void {
  it.each(cases)('$name', ({ grid: g = DLU, available, job, want }) => {
    expect(show(policy.place(job, ctx(g, available)))).toBe(want);
  });
}

// ---- sizing ---------------------------------------------------------------------------------------------------------

describe('sizeFor', () => {
  it.each([
    // Malleable: max(min, min(initial, available)) once available >= min.
    {
      name: 'malleable min 2 initial 2 max 46, 10 available -> initial 2',
      job: malleable(2, 46, 2),
      available: 10,
      want: 2,
    },
    {
      name: 'malleable initial 8, 5 available -> 5 (bounded by what is available)',
      job: malleable(2, 46, 8),
      available: 5,
      want: 5,
    },
    {
      name: 'malleable initial 8, 30 available -> 8 (grows later, not at start)',
      job: malleable(2, 46, 8),
      available: 30,
      want: 8,
    },
    { name: 'malleable without initial starts at min 3', job: malleable(3, 10), available: 10, want: 3 },
    { name: 'malleable min 4, 3 available -> cannot start', job: malleable(4, 46), available: 3, want: undefined },
    // Moldable: min(max, available) once available >= min.
    { name: 'moldable min 2 max 32, 20 available -> 20', job: moldable(2, 32), available: 20, want: 20 },
    { name: 'moldable min 2 max 32, 40 available -> max 32', job: moldable(2, 32), available: 40, want: 32 },
    { name: 'moldable min 2, 1 available -> cannot start', job: moldable(2, 32), available: 1, want: undefined },
    // Rigid: all or nothing.
    { name: 'rigid 8, 8 available -> 8', job: rigid(8), available: 8, want: 8 },
    { name: 'rigid 8, 100 available -> still 8', job: rigid(8), available: 100, want: 8 },
    { name: 'rigid 8, 7 available -> cannot start', job: rigid(8), available: 7, want: undefined },
  ])('$name', ({ job, available, want }) => {
    expect(sizeFor(job, 0, available)).toBe(want);
  });

  describe('through a policy (wf)', () => {
    table(worstFit, [
      // leiden has the most (10); initial 2 <= 10 -> 2.
      {
        name: 'malleable min 2 initial 2 max 46 with 10 available -> 2',
        available: { leiden: 10 },
        job: malleable(2, 46, 2),
        want: 'leiden:2',
      },
      // min(8, 5) = 5 >= min 2.
      {
        name: 'malleable initial 8 with 5 available -> 5',
        available: { delft: 5 },
        job: malleable(2, 46, 8),
        want: 'delft:5',
      },
      {
        name: 'malleable min 4 with 3 available -> fails',
        available: { delft: 3, leiden: 1 },
        job: malleable(4, 46),
        want: 'fail: no cluster has the minimum of 4 processors available for component 0 (most available: 3 on delft)',
      },
      // min(32, 20) = 20.
      {
        name: 'moldable min 2 max 32 with 20 available -> 20',
        available: { utrecht: 20 },
        job: moldable(2, 32),
        want: 'utrecht:20',
      },
    ]);
  });
});

// ---- Worst Fit ------------------------------------------------------------------------------------------------------

describe('wf: worst fit', () => {
  table(worstFit, [
    // leiden 20 > utrecht 15 > delft 10.
    {
      name: 'picks the cluster with the most available',
      available: { delft: 10, leiden: 20, utrecht: 15 },
      job: rigid(8),
      want: 'leiden:8',
    },
    // 4 -> delft (tie at 16, lowest index; 12 left); 4 -> leiden (16 > 12); 4 -> utrecht (16 > 12, 12).
    {
      name: 'balances a multi-component job over the clusters',
      available: { delft: 16, leiden: 16, utrecht: 16 },
      job: rigid(4, 4, 4),
      want: 'delft:4 leiden:4 utrecht:4',
    },
    // 8 -> leiden (30; 22 left); 8 -> leiden again (22 > delft 20); 8 -> delft (20 > leiden 14).
    {
      name: 'counts what earlier components took',
      available: { delft: 20, leiden: 30 },
      job: rigid(8, 8, 8),
      want: 'leiden:8 leiden:8 delft:8',
    },
    // delft and leiden tie at 10: lowest index.
    {
      name: 'ties go to the lowest cluster index',
      available: { delft: 10, leiden: 10, utrecht: 4 },
      job: rigid(4),
      want: 'delft:4',
    },
    // leiden only has 5, but the component is pinned there and 5 >= 4.
    {
      name: 'honours a pinned cluster over a larger one',
      available: { delft: 20, leiden: 5 },
      job: rigid([4, { cluster: 'leiden' }]),
      want: 'leiden:4',
    },
    {
      name: 'fails on a pinned cluster that is short, naming it',
      available: { delft: 20, leiden: 3 },
      job: rigid([4, { cluster: 'leiden' }]),
      want: 'fail: component 0 is pinned to leiden, which has 3 of 4 available',
    },
    {
      name: 'fails on a pinned cluster the grid does not know',
      available: { delft: 20 },
      job: rigid([4, { cluster: 'nowhere' }]),
      want: 'fail: component 0 is pinned to unknown cluster "nowhere"',
    },
    {
      name: 'fails naming the largest cluster when none fits',
      available: { delft: 8, leiden: 5 },
      job: rigid(12),
      want: 'fail: no cluster has 12 processors available for component 0 (most available: 8 on delft)',
    },
    // 8 -> delft (10; 2 left); 8 -> none: delft 2, leiden 5.
    {
      name: "fails on a later component, saying availability is after the earlier ones' take",
      available: { delft: 10, leiden: 5 },
      job: rigid(8, 8),
      want: "fail: no cluster has 8 processors available for component 1 (most available: 5 on leiden after this job's earlier components)",
    },
    // Pinned to delft twice: 6 + 6 = 12 > 10.
    {
      name: 'components pinned to the same cluster share it',
      available: { delft: 10, leiden: 50 },
      job: rigid([6, { cluster: 'delft' }], [6, { cluster: 'delft' }]),
      want: "fail: component 1 is pinned to delft, which has 4 of 6 available after this job's earlier components",
    },
    {
      name: 'a pinned malleable component reports its minimum',
      available: { leiden: 3 },
      job: malleable(4, 8, undefined, { cluster: 'leiden' }),
      want: 'fail: component 0 is pinned to leiden, which has 3 of its minimum 4 available',
    },
  ]);
});

// ---- Close-to-Files -------------------------------------------------------------------------------------------------

// data (1000 MB) lives on delft; shared lives on delft and leiden. Links: delft-leiden 100 MB/s, delft-utrecht
// 50 MB/s, everything else 10 MB/s; latency 0 to keep the arithmetic plain.
// Transfer of data: delft 0, leiden 1000/100 = 10 s, utrecht 1000/50 = 20 s, amsterdam 1000/10 = 100 s.
const FILES = grid(['delft', 'leiden', 'utrecht', 'amsterdam'], {
  files: [
    { name: 'data', sizeMB: 1000, replicas: ['delft'] },
    { name: 'shared', sizeMB: 1000, replicas: ['delft', 'leiden'] },
  ],
  network: {
    defaultBandwidthMBps: 10,
    defaultLatencyS: 0,
    links: [
      { from: 'delft', to: 'leiden', bandwidthMBps: 100, latencyS: 0 },
      { from: 'delft', to: 'utrecht', bandwidthMBps: 50, latencyS: 0 },
    ],
  },
});
const withData = (n: number) => rigid([n, { inputFiles: ['data'] }]);

describe('cf: close to files', () => {
  it('the test grid has the transfer times the cases assume', () => {
    expect(['delft', 'leiden', 'utrecht', 'amsterdam'].map((c) => FILES.transferTime(['data'], c))).toEqual([
      0, 10, 20, 100,
    ]);
  });

  table(closeToFiles, [
    // delft holds data (0 s) though it has the least available.
    {
      name: 'prefers the cluster holding the files',
      grid: FILES,
      available: { delft: 10, leiden: 40, utrecht: 40, amsterdam: 60 },
      job: withData(8),
      want: 'delft:8',
    },
    // delft full (4 < 8): leiden 10 s < utrecht 20 s < amsterdam 100 s, though amsterdam has the most.
    {
      name: 'falls back to the cheapest transfer when the file cluster is full',
      grid: FILES,
      available: { delft: 4, leiden: 20, utrecht: 40, amsterdam: 60 },
      job: withData(8),
      want: 'leiden:8',
    },
    // delft and leiden full: utrecht (20 s).
    {
      name: 'then the next cheapest',
      grid: FILES,
      available: { delft: 4, leiden: 7, utrecht: 8, amsterdam: 60 },
      job: withData(8),
      want: 'utrecht:8',
    },
    // shared is on delft and leiden (both 0 s): the one with more available.
    {
      name: 'equal transfer times go to the most available',
      grid: FILES,
      available: { delft: 10, leiden: 20, amsterdam: 60 },
      job: rigid([8, { inputFiles: ['shared'] }]),
      want: 'leiden:8',
    },
    // No input files: every cluster costs 0, so it is worst fit.
    {
      name: 'without input files it is worst fit',
      grid: FILES,
      available: { delft: 10, leiden: 20, amsterdam: 60 },
      job: rigid(8),
      want: 'amsterdam:8',
    },
    // Each component ranks on its own files: data -> delft; the plain one -> amsterdam (most).
    {
      name: 'ranks each component by its own files',
      grid: FILES,
      available: { delft: 10, leiden: 20, amsterdam: 60 },
      job: rigid([8, { inputFiles: ['data'] }], 8),
      want: 'delft:8 amsterdam:8',
    },
    {
      name: 'fails with the same reason as any policy when nothing fits',
      grid: FILES,
      available: { delft: 4, leiden: 7 },
      job: withData(8),
      want: 'fail: no cluster has 8 processors available for component 0 (most available: 7 on leiden)',
    },
  ]);
});

// ---- Cluster Minimization -------------------------------------------------------------------------------------------

describe('cm: cluster minimization', () => {
  table(clusterMinimization, [
    // 10 -> delft (20, tie, lowest index; 10 left); 10 -> delft again (already used, fits). wf would use two.
    {
      name: 'packs components into one cluster when they fit',
      available: { delft: 20, leiden: 20, utrecht: 20 },
      job: rigid(10, 10),
      want: 'delft:10 delft:10',
    },
    // 12 -> delft (25; 13 left); 12 -> delft (used; 1 left); 12 -> delft has 1, so the unused leiden (25). Two, not three.
    {
      name: 'uses the fewest clusters when one is not enough',
      available: { delft: 25, leiden: 25, utrecht: 25 },
      job: rigid(12, 12, 12),
      want: 'delft:12 delft:12 leiden:12',
    },
    // Decreasing size: 8 -> delft (9; 1 left); then 2 -> delft has 1, so leiden. Returned in spec order.
    {
      name: 'places the largest component first, returns spec order',
      available: { delft: 9, leiden: 8 },
      job: rigid(2, 8),
      want: 'leiden:2 delft:8',
    },
    // 8 first -> leiden (12; 4 left); 4 -> leiden (used, 4 fits), not delft although delft has more.
    {
      name: 'prefers a used cluster to a larger unused one',
      available: { delft: 10, leiden: 12 },
      job: rigid(4, 8),
      want: 'leiden:4 leiden:8',
    },
    // Order 15, 10, 10: 15 -> delft (30; 15 left); 10 -> delft (used; 5 left); 10 -> unused leiden (20 > utrecht 12).
    {
      name: 'spills to the unused cluster with the most available',
      available: { delft: 30, leiden: 20, utrecht: 12 },
      job: rigid(10, 15, 10),
      want: 'delft:10 delft:15 leiden:10',
    },
    // Pinned first: 4 -> leiden (20; 16 left); then 10 -> leiden (used, fits) rather than delft (30).
    {
      name: 'free components join the cluster of a pinned one',
      available: { delft: 30, leiden: 20 },
      job: rigid(10, [4, { cluster: 'leiden' }]),
      want: 'leiden:10 leiden:4',
    },
    {
      name: 'fails naming the component that does not fit',
      available: { delft: 10, leiden: 6 },
      job: rigid(4, 8, 7),
      // 8 -> delft (2 left); 7 -> none (delft 2, leiden 6).
      want: "fail: no cluster has 7 processors available for component 2 (most available: 6 on leiden after this job's earlier components)",
    },
    // One component: the cluster with the most available, like wf; malleable sized by sizeFor.
    {
      name: 'places a malleable job like wf',
      available: { delft: 5, leiden: 9 },
      job: malleable(2, 46, 8),
      want: 'leiden:8',
    },
  ]);
});

// ---- Flexible Cluster Minimization ----------------------------------------------------------------------------------

describe('fcm: flexible cluster minimization', () => {
  table(flexibleClusterMinimization, [
    // Decreasing available: leiden 60 (take 60, 40 left), utrecht 30 (take 30, 10 left), delft 20 (take 10).
    {
      name: 'splits a rigid 100 over 60/30/20 available into 60+30+10',
      available: { delft: 20, leiden: 60, utrecht: 30 },
      job: rigid(100),
      want: 'leiden:60 utrecht:30 delft:10',
    },
    // The spec's components only give the total: 40 + 60 = 100, split the same way.
    {
      name: 're-splits a multi-component job by its total',
      available: { delft: 20, leiden: 60, utrecht: 30 },
      job: rigid(40, 60),
      want: 'leiden:60 utrecht:30 delft:10',
    },
    // 50 <= 60: one cluster.
    {
      name: 'keeps a job that fits one cluster whole',
      available: { delft: 20, leiden: 60, utrecht: 30 },
      job: rigid(30, 20),
      want: 'leiden:50',
    },
    // Ties on available: lowest index first.
    {
      name: 'ties go to the lowest cluster index',
      available: { delft: 30, leiden: 30, utrecht: 30 },
      job: rigid(45),
      want: 'delft:30 leiden:15',
    },
    // 50 + 30 + 10 = 90 < 100.
    {
      name: 'fails when the grid as a whole is short',
      available: { delft: 50, leiden: 30, utrecht: 10 },
      job: rigid(100),
      want: 'fail: the grid has 90 processors available in all, 10 short of the 100 this job needs',
    },
    // Not rigid: placed as cm (one cluster, most available; min(8, 12) = 8).
    {
      name: 'places a malleable job as cm',
      available: { delft: 5, leiden: 12 },
      job: malleable(2, 46, 8),
      want: 'leiden:8',
    },
    {
      name: 'places a moldable job as cm',
      available: { delft: 5, leiden: 12 },
      job: moldable(2, 32),
      want: 'leiden:12',
    },
    // A pinned component keeps the spec's shape: as cm, 10 joins leiden with the pinned 4.
    {
      name: 'keeps pinned components as cm does',
      available: { delft: 30, leiden: 20 },
      job: rigid(10, [4, { cluster: 'leiden' }]),
      want: 'leiden:10 leiden:4',
    },
  ]);
});

// ---- every policy ---------------------------------------------------------------------------------------------------

describe('every policy', () => {
  const scenarios: { available: Record<string, number>; job: JobSpec }[] = [
    { available: { delft: 7, leiden: 3, utrecht: 5 }, job: rigid(3, 3, 3) },
    { available: { delft: 7, leiden: 3, utrecht: 5 }, job: rigid(15) },
    { available: { delft: 7, leiden: 3, utrecht: 5 }, job: rigid(2, 2, 2, 2, 2, 2) },
    { available: { delft: 4, leiden: 4 }, job: rigid([4, { cluster: 'delft' }], 4) },
    { available: { delft: 7, leiden: 3, utrecht: 5 }, job: moldable(1, 100) },
    { available: { delft: 7, leiden: 3, utrecht: 5 }, job: malleable(2, 100, 50) },
  ];

  it.each(PLACEMENT_POLICIES.map((name) => ({ name })))(
    '$name never places more than available on a cluster',
    ({ name }) => {
      const policy = placementPolicies[name];
      for (const { available, job } of scenarios) {
        const result = policy.place(job, ctx(DLU, available));
        if (!result.ok) continue;
        const used: Record<string, number> = {};
        for (const c of result.components) used[c.cluster] = (used[c.cluster] ?? 0) + c.processors;
        for (const [cluster, n] of Object.entries(used))
          expect(n, `${name} on ${cluster}`).toBeLessThanOrEqual(available[cluster] ?? 0);
      }
    },
  );

  // The scheduler fails such a job without asking its policy when no cluster has room for it (issue 11's bench): this
  // holds only while every policy fails it the same way, with the same words.
  it.each(PLACEMENT_POLICIES.map((name) => ({ name })))(
    '$name fails a single unpinned component that fits nowhere as noClusterReason words it (most available, first such cluster)',
    ({ name }) => {
      const policy = placementPolicies[name];
      // Most available: 5, first on leiden (utrecht ties it later); every job needs 6 at least.
      const available = { delft: 3, leiden: 5, utrecht: 5 };
      for (const job of [rigid(6), malleable(6, 20), moldable(6, 30), rigid([9, { inputFiles: ['f'] }])]) {
        // fcm splits a rigid job over clusters: not a single-cluster job, the scheduler always asks it.
        if (name === 'fcm' && job.kind === 'rigid') continue;
        const need = job.components[0]!.processors ?? job.components[0]!.min!;
        expect(show(policy.place(job, ctx(DLU, available))), `${name}, ${job.kind} ${need}`).toBe(
          `fail: ${noClusterReason(job.kind, need, 0, 5, 'leiden')}`,
        );
      }
    },
  );

  it('the same call gives the same answer (the reused ledger is reset between jobs)', () => {
    const context = ctx(DLU, { delft: 10, leiden: 10 });
    for (const name of PLACEMENT_POLICIES) {
      const policy = placementPolicies[name];
      expect(show(policy.place(rigid(8, 8), context)), name).toBe(show(policy.place(rigid(8, 8), context)));
    }
  });
});

describe('registry', () => {
  it('holds one policy per name, each knowing its name', () => {
    expect(Object.keys(placementPolicies).sort()).toEqual([...PLACEMENT_POLICIES].sort());
    for (const name of PLACEMENT_POLICIES) {
      expect(placementPolicies[name].name).toBe(name);
      expect(placementPolicies[name].description.length).toBeGreaterThan(10);
    }
  });

  it('looks a policy up by name, and nothing else', () => {
    expect(placementPolicy('wf')).toBe(worstFit);
    expect(placementPolicy('fcm')).toBe(flexibleClusterMinimization);
    expect(placementPolicy('best-fit')).toBeUndefined();
    expect(placementPolicy('toString')).toBeUndefined();
  });
});
