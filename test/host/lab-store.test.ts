// Lab runs in the store: the lab_results migration over an older file, results that survive a reopen, runs cut
// short by a stop kept as cancelled, and results read back from disk once no longer kept in memory.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Host } from '../../electron/host/host.js';
import { LabRunner } from '../../electron/lab/runner.js';
import type { LabRunInfo } from '../../electron/lab/schemas.js';
import { MIGRATIONS, openStore, SCHEMA_VERSION } from '../../electron/store/store.js';

const tempFile = () => path.join(mkdtempSync(path.join(tmpdir(), 'concertina-lab-')), 'run.db');

function ended(lab: LabRunner, runId: string): Promise<LabRunInfo> {
  return new Promise((resolve) => {
    const off = lab.subscribe((info) => {
      if (info.runId === runId && ['done', 'failed', 'cancelled'].includes(info.status)) {
        off();
        resolve(info);
      }
    });
  });
}

const small = (seed: number) =>
  ({ kind: 'simulate', grid: 'das3', workload: 'wm', approach: 'pra', policy: 'egs', seed, maxJobs: 25 }) as const;

describe('lab results in the store', () => {
  it('adds the lab_results table to a store of the previous schema, keeping its run', () => {
    const file = tempFile();
    // A store of the schema before the Lab (version 2: no lab_results table), holding a run.
    const db = new Database(file);
    for (const migration of MIGRATIONS.slice(0, 2)) db.exec(migration);
    db.pragma('user_version = 2');
    db.prepare('INSERT INTO run (id, config) VALUES (1, ?)').run(
      JSON.stringify({ grid: 'das3', workload: 'wm', seed: 7 }),
    );
    db.close();

    const again = openStore(file);
    expect(again.run()).toEqual({ grid: 'das3', workload: 'wm', seed: 7 });
    expect(again.labRuns()).toEqual([]);
    again.addLabRun({ runId: 'lab-1' }, { figures: [1] });
    expect(again.labResult('lab-1')).toEqual({ figures: [1] });
    again.close();
    const check = new Database(file);
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    check.close();
  });

  it('keeps finished runs and their results across a restart, and numbers new runs after them', async () => {
    const file = tempFile();
    const store = openStore(file);
    const first = new Host({ store, workload: 'none', speed: 'pause' });
    const started = first.call('lab.start', small(4));
    const runId = started.ok ? started.value.runId : '';
    expect((await ended(first.lab, runId)).status).toBe('done');
    const result = first.call('lab.result', { runId });
    expect(result.ok).toBe(true);
    // A run still under way when the host stops is kept as cancelled.
    const cut = first.call('lab.start', { kind: 'koala', seeds: 3 });
    const cutId = cut.ok ? cut.value.runId : '';
    first.stop();
    store.close();

    const again = openStore(file);
    const second = new Host({ store: again, workload: 'none', speed: 'pause' });
    const list = second.call('lab.list', {});
    expect(list.ok && list.value.runs.map((r) => [r.runId, r.status, r.error])).toEqual([
      [runId, 'done', null],
      [cutId, 'cancelled', 'the host stopped'],
    ]);
    expect(second.call('lab.result', { runId })).toEqual(result);
    const next = second.call('lab.start', small(5));
    expect(next.ok && next.value.runId).toBe('lab-3');
    second.stop();
    again.close();
  });

  it('reads a result back from the store once it is no longer kept in memory', async () => {
    const store = openStore(tempFile());
    const lab = new LabRunner({ store, keepResults: 1, maxConcurrent: 1 });
    const a = lab.start(small(1));
    const b = lab.start(small(2));
    await ended(lab, a);
    await ended(lab, b);
    const fromDisk = lab.result(a);
    expect(fromDisk.ok && fromDisk.value.runId).toBe(a);
    expect(fromDisk.ok && fromDisk.value.panels).toHaveLength(7);
    expect(lab.result(b).ok).toBe(true);

    // Without a store, an evicted result is gone, though its run stays listed.
    const memoryOnly = new LabRunner({ keepResults: 1, maxConcurrent: 1 });
    const c = memoryOnly.start(small(1));
    const d = memoryOnly.start(small(2));
    await ended(memoryOnly, c);
    await ended(memoryOnly, d);
    expect(memoryOnly.result(c)).toEqual({
      ok: false,
      errors: [{ path: 'runId', message: `the result of lab run ${c} is no longer kept` }],
    });
    expect(memoryOnly.list().map((r) => r.status)).toEqual(['done', 'done']);
    lab.shutdown();
    memoryOnly.shutdown();
    store.close();
  });
});
