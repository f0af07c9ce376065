#!/usr/bin/env node
// An interactive periodic application (the fork-join loop of an interactive HPC simulation): every period it forks
// its tasks as processes, one per task Concertina placed for it (the protocol's `tasks` message: RT-DLT's k tasks of
// cost bound C on the cluster's interactive worker nodes), each computing its share of the iteration, and joins them.
// Each task instance reports two times (`iteration`): its execution time, the processor time it spent on its share
// (measured inside the task process, from the start of its work), which Concertina compares with C and places the
// job again when longer; and its response time, from the fork to its end, late when past the deadline D (a miss).
// Decision: execution is the task's processor time, not its wall time: C bounds the work an instance needs (RT-DLT's
// cost of its share), and neither starting a Node process nor waiting while other processes of a loaded machine run
// is work of the task; both still count in the response time, so a slow start shows as a miss, never as an overrun.
// A new `tasks` message (after a re-placement) takes effect at the next fork.
//
//   CONCERTINA_JOB_DIR=... CONCERTINA_SIZE=1 node periodic-demo.mjs [iterations] [load] [overrun-every] [overrun-factor]
//
// iterations (default 0: until stopped); load (default 0.5): each task computes for load × C ms of processor time
// (its share of the data at the rate the cost model assumes); overrun-every (default 0: never) and overrun-factor (default 2): every
// n-th iteration each task computes factor × C instead, as a heavier input would.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const TASK = '--task';

/** Processor time (user and system) since `since` (a process.cpuUsage() value), in ms. */
const cpuMsSince = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/**
 * A task process: computes for `ms` milliseconds of processor time (real arithmetic, not a sleep), then prints its
 * execution time, the processor time from the start of its work to its end (the parent reads it).
 */
function runTask(ms) {
  const start = process.cpuUsage();
  let x = 0;
  let n = 0;
  while (cpuMsSince(start) < ms) {
    for (let i = 0; i < 10_000; i++) x += Math.sqrt(++n);
  }
  const executedMs = cpuMsSince(start);
  process.stdout.write(`${JSON.stringify({ executedMs, n, x })}\n`);
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

/**
 * Runs one task process for `ms`; resolves with its execution time (what the task measured) and its response time
 * (from `released`, a performance.now(), to its end).
 */
function fork(ms, released) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), TASK, String(Math.round(ms))], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => (out += chunk));
    const ended = () => {
      const responseMs = performance.now() - released;
      let executedMs;
      try {
        executedMs = Number(JSON.parse(out).executedMs);
      } catch {
        executedMs = NaN;
      }
      // A task that died before saying what it ran: its response time is all that is known of it.
      resolve({ executedMs: Number.isFinite(executedMs) ? executedMs : responseMs, responseMs });
    };
    child.on('error', ended);
    child.on('close', ended);
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
    times.forEach(({ executedMs, responseMs }, task) => {
      const missed = responseMs > tasks.deadlineMs;
      if (missed) misses++;
      app.iteration(task, Math.round(executedMs), missed, tasks.generation, Math.round(responseMs));
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
