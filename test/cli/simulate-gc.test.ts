// `concertina simulate` runs V8's full collections whole, never as incremental marking beside the run
// (bin/concertina.js, issue 17): incremental marking let a replay's old generation grow to twice what it held live.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const nasa = path.resolve(repoRoot, '..', 'shared', 'traces', 'NASA-iPSC-1993-3.1-cln.swf.gz');

if (!existsSync(nasa))
  console.warn(
    `Skipping the replay garbage-collection check: ${nasa} does not exist (the shared traces folder is absent).`,
  );

describe.skipIf(!existsSync(nasa))("a replay's garbage collections", () => {
  it('are whole mark-compacts, none marked incrementally', { timeout: 120_000 }, () => {
    const r = spawnSync(
      process.execPath,
      // An old generation capped at 16 MiB (the replay holds under 8 live, its trace kept as columns) brings a dozen
      // full collections within the run; at 64 MiB it now often has none.
      [
        '--trace-gc',
        '--max-old-space-size=16',
        'bin/concertina.js',
        'simulate',
        '--grid',
        'single:128',
        '--workload',
        nasa,
        '--json',
      ],
      { cwd: repoRoot, encoding: 'utf8', maxBuffer: 16 << 20 },
    );
    expect(r.status, r.stderr).toBe(0);
    const fullCollections = r.stdout.split('\n').filter((l) => l.includes('Mark-Compact'));
    // The replay needs full collections, or this says nothing.
    expect(fullCollections.length).toBeGreaterThan(0);
    // V8 traces an incremental one with the steps it took "since start of marking".
    expect(fullCollections.filter((l) => l.includes('since start of marking'))).toEqual([]);
  });
});
