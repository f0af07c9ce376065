// Interactive periodic jobs through the host's API on the console's DAS-3 (Leiden has 16 interactive worker nodes,
// Cms 8 ms and Cps 50 ms per MB): admitted or refused at the field by jobs.submit, the Grid card's worker nodes in
// grid.snapshot, and the same admissions after the run is resumed from its store.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Host } from '../../electron/host/host.js';
import { openStore } from '../../electron/store/store.js';

const tempFile = () => path.join(mkdtempSync(path.join(tmpdir(), 'concertina-interactive-')), 'run.db');
// σ = 20 MB within D = 500 ms: β = 50/58, γ = 1 − 20·8/500 = 0.68, n_min = ⌈ln 0.68 / ln β⌉ = ⌈2.60⌉ = 3 nodes, C =
// ⌈20·8 / (1 − β³)⌉ = ⌈445.1⌉ = 446 ms; two such tasks (D 500 < T 1000) fail a node's demand test at t = 500.
const periodic = (
  id: string,
  interactive: Record<string, number> = { periodMs: 1000, dataUnits: 20, deadlineMs: 500 },
) => ({
  id,
  kind: 'interactive',
  components: [{ program: 'periodic' }],
  interactive,
});

function hostWith(store?: ReturnType<typeof openStore>) {
  const clock = { wall: 0 };
  const host = new Host({
    workload: 'none',
    store,
    clock: () => clock.wall,
    speed: '1x',
    sliceMs: Number.POSITIVE_INFINITY,
  });
  const run = (seconds: number) => {
    clock.wall += seconds * 1000;
    host.tick();
  };
  return { host, run };
}

const leiden = (host: Host) => {
  const r = host.call('grid.snapshot', {});
  if (!r.ok) throw new Error('no snapshot');
  return r.value.clusters.find((c) => c.name === 'leiden')!;
};

describe('interactive jobs through the API', () => {
  it('admits five jobs of 3 tasks on the 16 nodes and refuses the sixth at the field; the card shows each node', () => {
    const { host, run } = hostWith();
    for (let i = 1; i <= 5; i++)
      expect(host.call('jobs.submit', periodic(`p${i}`))).toEqual({ ok: true, value: { jobId: `p${i}` } });
    const sixth = host.call('jobs.submit', periodic('p6'));
    expect(sixth.ok ? [] : sixth.errors).toEqual([
      {
        path: 'interactive',
        message:
          'refused: task 2 of 3 (C 446 ms, T 1000 ms, D 500 ms) fits on no node: 16 nodes processor demand test fails',
      },
    ]);
    const tooShort = host.call('jobs.submit', periodic('p7', { periodMs: 1000, dataUnits: 20, deadlineMs: 150 }));
    expect(tooShort.ok ? [] : tooShort.errors).toEqual([
      {
        path: 'interactive.deadlineMs',
        message: 'refused: transmitting 20 units takes 160 ms, not less than the deadline 150 ms',
      },
    ]);
    run(5);
    const card = leiden(host);
    expect(card.interactive!.jobs).toBe(5);
    expect(card.interactive!.nodes).toHaveLength(16);
    const busy = card.interactive!.nodes.filter((n) => n.tasks > 0);
    expect(busy).toHaveLength(15);
    for (const n of busy) expect(n).toMatchObject({ tasks: 1, utilization: 0.446, slackMs: 54 });
    expect(card.interactive!.nodes.filter((n) => n.tasks === 0)).toEqual([
      { node: 15, tasks: 0, utilization: 0, slackMs: null },
    ]);
    // Other clusters have no interactive nodes; the drivers run on Leiden.
    const r = host.call('grid.snapshot', {});
    expect(r.ok && r.value.clusters.filter((c) => c.interactive).map((c) => c.name)).toEqual(['leiden']);
    const list = host.call('jobs.list', { limit: 10 });
    expect(list.ok && list.value.jobs.map((j) => [j.id, j.kind, j.state, j.clusters.join()])).toEqual(
      [1, 2, 3, 4, 5].map((i) => [`p${i}`, 'interactive', 'running', 'leiden']),
    );
    host.stop();
  });

  it('resumes a stored run with the same admissions, and a cancel frees the nodes', () => {
    const file = tempFile();
    const store = openStore(file);
    const first = hostWith(store);
    expect(first.host.call('jobs.submit', periodic('a')).ok).toBe(true);
    expect(first.host.call('jobs.submit', periodic('b')).ok).toBe(true);
    first.run(3);
    expect(first.host.call('jobs.cancel', { jobId: 'a' }).ok).toBe(true);
    first.run(3);
    const before = leiden(first.host).interactive;
    expect(before).toMatchObject({ jobs: 1, admitted: 2 });
    expect(before!.nodes.filter((n) => n.tasks > 0)).toHaveLength(3);
    first.host.stop();
    store.close();

    const again = openStore(file);
    const second = hostWith(again);
    expect(leiden(second.host).interactive).toEqual(before);
    const events = again.events().filter((e) => e.type === 'interactive.admitted');
    expect(events.map((e) => e.jobId)).toEqual(['a', 'b']);
    second.host.stop();
    again.close();
  });
});
