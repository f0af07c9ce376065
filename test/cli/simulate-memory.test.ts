// What a `concertina simulate` replay keeps in memory (issue 17): the trace's bytes, compressed or not, are let go once
// read (electron/cli/main.ts decompresses synchronously), not kept to the end of the run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const nasa = path.resolve(repoRoot, '..', 'shared', 'traces', 'NASA-iPSC-1993-3.1-cln.swf.gz');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'concertina-simulate-memory-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Preloaded: as the process exits, after a full collection, writes the young generation's size and, if asked, a heap
// snapshot (what is still alive: the run's own tables are, its inputs should not be).
const probe = path.join(tmp, 'probe.mjs');
writeFileSync(
  probe,
  `import v8 from 'node:v8';
import vm from 'node:vm';
import { writeFileSync } from 'node:fs';
process.on('exit', () => {
  v8.setFlagsFromString('--expose-gc');
  vm.runInNewContext('gc')();
  const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
  writeFileSync(process.env.PROBE_OUT, JSON.stringify({ young }));
  if (process.env.PROBE_SNAPSHOT) v8.writeHeapSnapshot(process.env.PROBE_SNAPSHOT);
});
`,
);

/** Runs `simulate` on a trace under the probe; its young generation's size at exit. */
function simulate(workload: string, snapshot?: string): { young: number } {
  const out = path.join(tmp, 'probe.json');
  const r = spawnSync(
    process.execPath,
    ['--import', probe, 'bin/concertina.js', 'simulate', '--grid', 'single:128', '--workload', workload, '--json'],
    {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, PROBE_OUT: out, ...(snapshot ? { PROBE_SNAPSHOT: snapshot } : {}) },
    },
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8')) as { young: number };
}

/** The sizes of the array buffers (Buffers, typed arrays) alive in a heap snapshot. */
function arrayBufferSizes(snapshotFile: string): number[] {
  const snapshot = JSON.parse(readFileSync(snapshotFile, 'utf8')) as {
    snapshot: { meta: { node_fields: string[] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const width = fields.length;
  const name = fields.indexOf('name');
  const size = fields.indexOf('self_size');
  const sizes: number[] = [];
  for (let at = 0; at < snapshot.nodes.length; at += width) {
    if (snapshot.strings[snapshot.nodes[at + name]!] === 'system / JSArrayBufferData')
      sizes.push(snapshot.nodes[at + size]!);
  }
  return sizes;
}

if (!existsSync(nasa))
  console.warn(`Skipping the replay memory checks: ${nasa} does not exist (the shared traces folder is absent).`);

describe.skipIf(!existsSync(nasa))("a replay's memory", () => {
  it('lets go of the trace once read, compressed and decompressed', { timeout: 120_000 }, () => {
    const snapshot = path.join(tmp, 'exit.heapsnapshot');
    simulate(nasa, snapshot);
    const sizes = arrayBufferSizes(snapshot);
    // The run's own columns are alive still (the probe runs before the process lets go of anything), so the check
    // can see a buffer.
    expect(sizes.length).toBeGreaterThan(0);
    expect(sizes).not.toContain(readFileSync(nasa).length);
    expect(sizes).not.toContain(gunzipSync(readFileSync(nasa)).length);
  });
});
