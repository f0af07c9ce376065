#!/usr/bin/env node
// An interactive periodic application (the fork-join loop of an interactive HPC simulation): every period it forks
// its tasks as processes, one per task Concertina placed for it (the protocol's `tasks` message: RT-DLT's k tasks of
// cost bound C on the cluster's interactive worker nodes), each computing its share of the iteration, and joins them.
// Each task's time from the fork to its end is measured and reported (`iteration`), late when past the deadline D;
// Concertina counts the misses and places the job again when a task ran longer than C. A new `tasks` message (after
// a re-placement) takes effect at the next fork.
//
//   CONCERTINA_JOB_DIR=... CONCERTINA_SIZE=1 node periodic-demo.mjs [iterations] [load] [overrun-every] [overrun-factor]
//
// iterations (default 0: until stopped); load (default 0.5): each task computes for load × C ms (its share of the
// data at the rate the cost model assumes); overrun-every (default 0: never) and overrun-factor (default 2): every
// n-th iteration each task computes factor × C instead, as a heavier input would.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const TASK = '--task';

/** A task process: computes for `ms` milliseconds (real arithmetic, not a sleep), prints what it computed. */
function runTask(ms) {
  const until = performance.now() + ms;
  let x = 0;
  let n = 0;
  while (performance.now() < until) {
    for (let i = 0; i < 10_000; i++) x += Math.sqrt(++n);
  }
  process.stdout.write(`${n} ${x}\n`);
}

function arg(index, fallback, name, min) {
  const text = process.argv[index];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < min) {
    process.stderr.write(`periodic-demo: ${name} must be a number >= ${min} (got ${JSON.stringify(text)})\n`);
    process.exit(2);
  }
  return value;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Runs one task process for `ms`; resolves with its time from `released` (performance.now()) to its end. */
function fork(ms, released) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), TASK, String(Math.round(ms))], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', () => resolve(performance.now() - released));
    child.on('exit', () => resolve(performance.now() - released));
  });
}

async function main() {
  const { connect } = await import('../sdk/concertina-app.mjs');
  const iterations = Math.trunc(arg(2, 0, 'iterations', 0));
  const load = arg(3, 0.5, 'load', 0);
  const overrunEvery = Math.trunc(arg(4, 0, 'overrun-every', 0));
  const overrunFactor = arg(5, 2, 'overrun-factor', 0);
  const app = await connect({});
  // Its tasks come once its driver runs (Concertina sends them when it sees the job started).
  while (!app.tasks && !app.stopRequested) {
    await sleep(50);
    await app.sync();
  }
  let misses = 0;
  let done = 0;
  let next = performance.now();
  while (!app.stopRequested && (iterations === 0 || done < iterations)) {
    const tasks = app.tasks;
    const heavy = overrunEvery > 0 && (done + 1) % overrunEvery === 0;
    const ms = tasks.costMs * (heavy ? overrunFactor : load);
    const released = performance.now();
    // Fork: every task at once; join: all of them ended.
    const times = await Promise.all(tasks.nodes.map(() => fork(ms, released)));
    times.forEach((executed, task) => {
      const missed = executed > tasks.deadlineMs;
      if (missed) misses++;
      app.iteration(task, Math.round(executed), missed, tasks.generation);
    });
    done++;
    if (iterations > 0) app.progress(done / iterations);
    await app.sync();
    // The next fork one period after this one (at once when this one ran past it).
    next += tasks.periodMs;
    const now = performance.now();
    if (next < now) next = now;
    while (!app.stopRequested && performance.now() < next) {
      await sleep(Math.min(100, next - performance.now()));
      await app.sync();
    }
  }
  app.done(!app.stopRequested || iterations === 0, `${done} iterations, ${misses} task instances past their deadline`);
}

if (process.argv[2] === TASK) runTask(Number(process.argv[3]) || 0);
else
  main().catch((error) => {
    process.stderr.write(`periodic-demo: ${error?.stack ?? error}\n`);
    process.exit(1);
  });
