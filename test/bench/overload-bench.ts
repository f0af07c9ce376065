// The host under a run it cannot keep up with (issue 10): `concertina serve` on the busiest grid the schemas accept,
// at "max" and at 100x; how fast grid.snapshot answers meanwhile, how far behind 100x falls, and how long SIGTERM
// takes to stop the process. Then how fast a stored run is replayed when the host resumes it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MAX_CLUSTERS } from '../../core/model/schemas.js';
import { Host } from '../../electron/host/host.js';
import { openStore } from '../../electron/store/store.js';
import { startServe } from '../support/serve-process.js';

const busiest = {
  name: 'busy',
  clusters: Array.from({ length: MAX_CLUSTERS }, (_, i) => ({
    name: `c${i}`,
    processors: 4096,
    background: { meanInterarrivalS: 0.1, maxSize: 1, meanDurationS: 1 },
  })),
};

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const round = (x: number, digits = 1) => Number(x.toFixed(digits));

export async function overloadBench(log: (message: string) => void) {
  const serve = startServe([]);
  const reset = await serve.call('sim.reset', { grid: busiest, workload: 'wm' });
  if (!reset.ok) throw new Error(JSON.stringify(reset.errors));
  const latencies = async (calls: number) => {
    const ms: number[] = [];
    let last: { time: number; behindS: number } = { time: 0, behindS: 0 };
    for (let i = 0; i < calls; i++) {
      const t0 = performance.now();
      const s = await serve.call<{ time: number; behindS: number }>('grid.snapshot', {});
      ms.push(performance.now() - t0);
      last = s.value;
    }
    return { p50: round(quantile(ms, 0.5)), p99: round(quantile(ms, 0.99)), last };
  };
  await serve.call('sim.setSpeed', { speed: 'max' });
  const max = await latencies(100);
  await serve.call('sim.setSpeed', { speed: '100x' });
  const at100x = await latencies(100);
  const t0 = performance.now();
  serve.child.kill('SIGTERM');
  const code = await serve.exited;
  const sigterm_stop_ms = round(performance.now() - t0);
  log(
    `overload (${MAX_CLUSTERS} clusters, 10 local jobs/s each): grid.snapshot at max p50 ${max.p50} ms p99 ${max.p99} ms; at 100x p50 ${at100x.p50} ms p99 ${at100x.p99} ms, behind by ${round(at100x.last.behindS)} virtual s; SIGTERM stopped it in ${sigterm_stop_ms} ms (exit ${code})`,
  );

  // A stored run of the default grid, computed for 3 s at max, then resumed by a new host.
  const dir = mkdtempSync(path.join(tmpdir(), 'concertina-bench-resume-'));
  const file = path.join(dir, 'run.db');
  let store = openStore(file);
  const first = new Host({ store, speed: 'max' });
  for (const until = performance.now() + 3000; performance.now() < until;) first.tick();
  first.stop();
  const events = store.eventCount();
  store.close();
  store = openStore(file);
  const r0 = performance.now();
  const second = new Host({ store });
  await second.ready;
  const resume_s = (performance.now() - r0) / 1000;
  const state = second.run.state;
  second.stop();
  store.close();
  rmSync(dir, { recursive: true, force: true });
  const replay_events_per_s = Math.round(events / resume_s);
  log(
    `resume: ${events} stored events replayed in ${round(resume_s, 2)} s (${replay_events_per_s} events/s), ${state}`,
  );
  return {
    overload_snapshot_max_p50_ms: max.p50,
    overload_snapshot_max_p99_ms: max.p99,
    overload_snapshot_100x_p99_ms: at100x.p99,
    overload_behind_100x_s: round(at100x.last.behindS),
    sigterm_stop_ms,
    sigterm_exit_code: code,
    resume_events: events,
    resume_s: round(resume_s, 2),
    resume_replay_events_per_s: replay_events_per_s,
  };
}
