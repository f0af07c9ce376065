// `soak_24h_rss_mb`: the embedded default (DAS-3, W_m, then the living stream), kept in a store as `npm start` keeps
// it, run at max speed for 24 h of virtual time; the host's resident memory then, and along the way.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Host } from '../../electron/host/host.js';
import { openStore } from '../../electron/store/store.js';
import { DEFAULT_WARM_UP_S } from '../../electron/host/warm-up.js';

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;
const mb = (bytes: number) => round(bytes / 2 ** 20);

export interface SoakFigures {
  rss_mb: number;
  heap_mb: number;
  /** RSS (MB) after each 6 h of virtual time. */
  rss_by_6h_mb: number[];
  jobs: number;
  wall_s: number;
}

export function soakBench(log: (message: string) => void, hours = 24): SoakFigures {
  const dir = mkdtempSync(path.join(tmpdir(), 'concertina-soak-'));
  try {
    const host = new Host({ store: openStore(path.join(dir, 'run.db')), speed: 'max', warmUpS: DEFAULT_WARM_UP_S });
    const t0 = performance.now();
    const now = () => {
      const s = host.call('grid.snapshot', {});
      if (!s.ok) throw new Error('grid.snapshot failed');
      return s.value.time;
    };
    const byStep: number[] = [];
    for (let step = 1; step * 6 <= hours; step++) {
      while (now() < step * 6 * 3600) host.tick();
      globalThis.gc?.();
      byStep.push(mb(process.memoryUsage().rss));
      const u = process.memoryUsage();
      log(
        `soak: ${step * 6} h of virtual time, rss ${byStep.at(-1)} MB (heap used ${mb(u.heapUsed)} of ${mb(u.heapTotal)} MB, external ${mb(u.external)} MB)`,
      );
    }
    globalThis.gc?.();
    const m = process.memoryUsage();
    const jobs = host.call('jobs.list', { limit: 1 });
    void host.stop();
    return {
      rss_mb: mb(m.rss),
      heap_mb: mb(m.heapUsed),
      rss_by_6h_mb: byStep,
      jobs: jobs.ok ? jobs.value.total : 0,
      wall_s: round((performance.now() - t0) / 1000, 2),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// `node --expose-gc dist/test/bench/soak-bench.js [hours]`: the soak alone, in a process of its own.
if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  const figures = soakBench((m) => process.stderr.write(`${m}\n`), Number(process.argv[2] ?? 24));
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}
