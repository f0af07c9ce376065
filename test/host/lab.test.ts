// The Lab: runs compute in a worker thread, report increasing progress on the host's stream, give the same figures
// as the same spec computed in-process, can be cancelled (running or queued), refuse bad input naming the field,
// and leave the host's API answering while they run.
import { describe, expect, it } from 'vitest';
import { Host } from '../../electron/host/host.js';
import { computeLab } from '../../electron/lab/compute.js';
import { LabRunner } from '../../electron/lab/runner.js';
import { ended, labHosts, reached } from '../support/lab-host.js';
import type { LabRunInfo, LabSpec } from '../../electron/lab/schemas.js';
import type { StreamMessage } from '../../electron/api/contract.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

const newHost = labHosts();

describe('lab runs in a worker', () => {
  it('a simulation reports increasing progress on the stream and the figures of the same spec run in-process', async () => {
    const host = newHost();
    const messages: StreamMessage[] = [];
    const end = host.stream((m) => messages.push(m), 60_000);
    const spec: LabSpec = {
      kind: 'simulate',
      grid: 'das3',
      workload: 'wm-fast',
      approach: 'pwa',
      policy: 'egs',
      seed: 3,
      maxJobs: 80,
    };
    const started = host.call('lab.start', spec);
    expect(started.ok).toBe(true);
    const runId = started.ok ? started.value.runId : '';
    const info = await ended(host.lab, runId);
    end();
    expect(info).toMatchObject({ status: 'done', fraction: 1, runsDone: 1, runsTotal: 1, error: null });

    const updates = messages.flatMap((m) => (m.topic === 'lab' && m.run.runId === runId ? [m.run] : []));
    expect(updates[0]!.status).toBe('queued');
    expect(updates.at(-1)!.status).toBe('done');
    const fractions = updates.map((u) => u.fraction);
    for (let i = 1; i < fractions.length; i++) expect(fractions[i]).toBeGreaterThanOrEqual(fractions[i - 1]!);
    expect(fractions.some((f) => f > 0 && f < 1)).toBe(true);

    const result = host.call('lab.result', { runId });
    expect(result.ok).toBe(true);
    expect(result.ok && result.value).toEqual({ runId, ...computeLab(spec) });
    const response = result.ok ? result.value.panels.find((p) => p.id === 'response')! : undefined;
    expect(response!.series[0]!.name).toBe('egs-wm-fast');
    expect(response!.series[0]!.points.at(-1)![1]).toBe(1);
    expect(host.call('lab.list', {})).toMatchObject({ ok: true, value: { runs: [{ runId, status: 'done' }] } });
  });

  it('the KOALA experiment (1 seed) counts its 8 runs, matches the in-process figures, and grid.snapshot answers meanwhile', async () => {
    const host = newHost();
    const spec: LabSpec = { kind: 'koala', seeds: 1 };
    const started = host.call('lab.start', spec);
    const runId = started.ok ? started.value.runId : '';
    const progress: number[] = [];
    host.lab.subscribe((info) => {
      if (info.runId === runId) progress.push(info.runsDone);
    });
    // While the worker computes, the API is asked again and again: each answer notes how far the run was.
    const answeredAt: number[] = [];
    let over = false;
    const done = ended(host.lab, runId).then((info) => {
      over = true;
      return info;
    });
    while (!over) {
      const snapshot = host.call('grid.snapshot', {});
      expect(snapshot.ok).toBe(true);
      const info = host.lab.info(runId)!;
      if (info.status === 'running') answeredAt.push(info.runsDone);
      await tick();
    }
    const info = await done;
    expect(info.status).toBe('done');
    expect(info.runsTotal).toBe(8);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]!);
    expect(new Set(progress)).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7, 8]));
    // Answers came while the experiment was part-way: its runs did not block the host's thread.
    expect(answeredAt.some((n) => n >= 1 && n < 8)).toBe(true);

    const result = host.call('lab.result', { runId });
    expect(result.ok && result.value).toEqual({ runId, ...computeLab(spec) });
    if (!result.ok) return;
    expect(result.value.observations).toHaveLength(14);
    expect(result.value.panels.map((p) => p.id)).toEqual([
      'wait',
      'execution',
      'response',
      'avg_size',
      'max_size',
      'utilization',
      'activity',
    ]);
    expect(result.value.panels[0]!.series.map((s) => s.name)).toEqual([
      'fpsma-wm',
      'egs-wm',
      'fpsma-wmr',
      'egs-wmr',
      'fpsma-wm-fast',
      'egs-wm-fast',
      'fpsma-wmr-fast',
      'egs-wmr-fast',
    ]);
    expect(result.value.metrics.map((m) => m.values.runs)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('cancels a running run: its worker stops, it has no result, and it cannot be cancelled twice', async () => {
    const host = newHost();
    const started = host.call('lab.start', { kind: 'koala', seeds: 5 });
    const runId = started.ok ? started.value.runId : '';
    await reached(host.lab, runId, 1);
    const cancelled = host.call('lab.cancel', { runId });
    expect(cancelled).toMatchObject({
      ok: true,
      value: { runId, status: 'cancelled', error: 'cancelled by the user' },
    });
    const runsDone = host.lab.info(runId)!.runsDone;
    expect(runsDone).toBeLessThan(40);
    // The terminated worker posts nothing more that counts.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(host.lab.info(runId)).toMatchObject({ status: 'cancelled', runsDone });
    expect(host.call('lab.result', { runId })).toEqual({
      ok: false,
      errors: [{ path: 'runId', message: `lab run ${runId} has no result (cancelled)` }],
    });
    expect(host.call('lab.cancel', { runId })).toEqual({
      ok: false,
      errors: [{ path: 'runId', message: `lab run ${runId} has already ended (cancelled)` }],
    });
  });

  it('queues runs beyond its concurrency, and a queued run cancelled never starts', async () => {
    const lab = new LabRunner({ maxConcurrent: 1 });
    const seen: LabRunInfo[] = [];
    lab.subscribe((info) => seen.push(info));
    const first = lab.start({
      kind: 'simulate',
      grid: 'das3',
      workload: 'wm',
      approach: 'pra',
      policy: 'fpsma',
      seed: 1,
      maxJobs: 20,
    });
    const second = lab.start({
      kind: 'simulate',
      grid: 'das3',
      workload: 'wm',
      approach: 'pra',
      policy: 'fpsma',
      seed: 2,
      maxJobs: 20,
    });
    const third = lab.start({
      kind: 'simulate',
      grid: 'das3',
      workload: 'wm',
      approach: 'pra',
      policy: 'fpsma',
      seed: 3,
      maxJobs: 20,
    });
    expect(lab.list().map((r) => r.status)).toEqual(['running', 'queued', 'queued']);
    expect(lab.cancel(second)).toMatchObject({ ok: true, value: { status: 'cancelled' } });
    expect((await ended(lab, first)).status).toBe('done');
    expect((await ended(lab, third)).status).toBe('done');
    expect(seen.filter((i) => i.runId === second).map((i) => i.status)).toEqual(['queued', 'cancelled']);
    // One at a time: the third started only after the first had ended.
    const order = seen.map((i) => `${i.runId}:${i.status}`);
    expect(order.indexOf(`${third}:running`)).toBeGreaterThan(order.indexOf(`${first}:done`));
    lab.shutdown();
  });

  it('a worker that fails leaves a failed run saying why', async () => {
    const lab = new LabRunner();
    // Past the API's validation (which refuses it), the worker checks its spec again.
    const runId = lab.start({ kind: 'koala', seeds: 1.5 } as LabSpec);
    const info = await ended(lab, runId);
    expect(info.status).toBe('failed');
    expect(info.error).toMatch(/^bad spec: seeds: must be a whole number/);
    lab.shutdown();
  });

  it('stopping the host cancels what runs, and nothing starts afterwards', async () => {
    const host = new Host({ workload: 'none', speed: 'pause' });
    const started = host.call('lab.start', { kind: 'koala', seeds: 2 });
    const runId = started.ok ? started.value.runId : '';
    host.stop();
    expect(host.lab.info(runId)).toMatchObject({ status: 'cancelled', error: 'the host stopped' });
    expect(host.call('lab.start', { kind: 'koala', seeds: 1 })).toMatchObject({
      ok: false,
      errors: [{ message: 'internal error: the lab is shut down' }],
    });
  });
});

describe('lab input', () => {
  const host = new Host({ workload: 'none', speed: 'pause' });
  const errorsOf = (method: 'lab.start' | 'lab.cancel' | 'lab.result', payload: unknown) => {
    const r = host.call(method, payload);
    return r.ok ? [] : r.errors;
  };

  it('refuses a bad spec, naming the field, and starts nothing', () => {
    expect(errorsOf('lab.start', { kind: 'koala', seeds: 0 })).toEqual([
      { path: 'seeds', message: 'must be at least 1' },
    ]);
    expect(errorsOf('lab.start', { kind: 'koala', seeds: 2, backgroundLoad: 1.5 })).toEqual([
      { path: 'backgroundLoad', message: 'must be below 1' },
    ]);
    expect(errorsOf('lab.start', { kind: 'koala', seeds: 2, poll: 'soon' })).toEqual([
      { path: 'poll', message: 'must be a number' },
    ]);
    expect(errorsOf('lab.start', { kind: 'koala' })[0]!.path).toBe('seeds');
    expect(errorsOf('lab.start', { kind: 'bake', seeds: 1 })).toEqual([
      { path: 'kind', message: 'must be one of simulate, koala, coorm, fpe, interactive, dbes' },
    ]);
    const simulate = { kind: 'simulate', grid: 'das3', workload: 'wm', approach: 'pra', policy: 'egs', seed: 1 };
    expect(errorsOf('lab.start', { ...simulate, workload: 'wx' })).toEqual([
      { path: 'workload', message: 'must be one of wm, wmr, wm-fast, wmr-fast, wme' },
    ]);
    expect(errorsOf('lab.start', { ...simulate, grid: 'das4' })).toEqual([
      { path: 'grid', message: 'must be one of das3' },
    ]);
    expect(errorsOf('lab.start', { ...simulate, policy: 'greedy' })[0]!.path).toBe('policy');
    expect(errorsOf('lab.start', { ...simulate, seed: -1 })).toEqual([{ path: 'seed', message: 'must be at least 0' }]);
    expect(errorsOf('lab.start', { ...simulate, maxJobs: 2.5 })).toEqual([
      { path: 'maxJobs', message: 'must be a whole number' },
    ]);
    expect(errorsOf('lab.start', { ...simulate, colour: 'red' })[0]!.message).toMatch(/colour/);
    expect(host.call('lab.list', {})).toEqual({ ok: true, value: { runs: [] } });
  });

  it('refuses an unknown or missing run id', () => {
    expect(errorsOf('lab.result', { runId: 'lab-99' })).toEqual([{ path: 'runId', message: 'no lab run lab-99' }]);
    expect(errorsOf('lab.cancel', { runId: 'lab-99' })).toEqual([{ path: 'runId', message: 'no lab run lab-99' }]);
    expect(errorsOf('lab.cancel', {})).toEqual([{ path: 'runId', message: 'is required' }]);
    host.stop();
  });
});
