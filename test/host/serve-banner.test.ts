// The start-up banner of `concertina serve` says what the host opened: a new simulated run, or the stored run it
// resumes — a live run on its clusters is not "simulated DAS-3" (issue 12).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serveCommand } from '../../electron/cli/serve.js';
import { openStore } from '../../electron/store/store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'concertina-banner-'));
  dirs.push(dir);
  return dir;
}

/** Serves the store until the banner is printed, then stops; gives what it printed on stdout. */
async function banner(store: string): Promise<string> {
  let out = '';
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const stdout = {
    write(chunk: string, callback?: () => void) {
      out += chunk;
      if (out.includes('Open: ')) stop();
      callback?.();
      return true;
    },
  };
  const stderr = { write: (_chunk: string, callback?: () => void) => (callback?.(), true) };
  expect(await serveCommand({ port: 0, host: '127.0.0.1', store }, { stdout, stderr }, stopped)).toBe(0);
  return out;
}

describe('serve: the start-up banner', () => {
  it('names a new simulated run on its grid, workload and seed', async () => {
    const out = await banner(path.join(folder(), 'run.db'));
    expect(out).toMatch(
      /^Concertina is running \(a new simulated run on DAS-3, workload wm, seed 1\)\. Open: http:\/\/127\.0\.0\.1:\d+\/\?token=\S+\n$/,
    );
  });

  it('says it resumes a live run on its clusters, not a simulated DAS-3', async () => {
    const dir = folder();
    const file = path.join(dir, 'run.db');
    const store = openStore(file);
    for (const name of ['alpha', 'beta'])
      store.saveCluster(name, {
        name,
        login: { via: 'local' },
        system: 'local',
        slots: 1,
        workRoot: path.join(dir, name),
        pollIntervalS: 1,
      });
    store.startRun({ grid: null, workload: 'none', seed: 0, mode: 'live' });
    store.close();
    const out = await banner(file);
    expect(out).toContain('Concertina is running (resuming a live run on 2 clusters (alpha, beta)). Open: ');
    expect(out).not.toContain('simulated');
  });

  it('says it resumes a stored simulated run', async () => {
    const file = path.join(folder(), 'run.db');
    await banner(file);
    const out = await banner(file);
    expect(out).toContain('Concertina is running (resuming a simulated run on DAS-3, workload wm, seed 1). Open: ');
  });
});
