// The Lab's runner: each run (an experiment of electron/lab/registry.ts) computes in a worker thread, so the host's
// thread keeps serving the API and the live grid. Runs wait in a queue for a free slot, report their progress to
// the listeners (the host's event stream), can be cancelled (the worker is terminated), and their results are kept
// in memory and, when the host has a store, on disk with the list of runs.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { fail, ok, type Result } from '../../core/model/result.js';
import { labLabel, labRunsTotal } from './compute.js';
import { labRunInfoSchema, type LabRunInfo, type LabSpec } from './registry.js';
import { labResultSchema, type LabResult, type LabWorkerMessage } from './schemas.js';

/** What the runner needs of the host's store. */
export interface LabStore {
  /** Keeps an ended run (and its result, when it has one); a later call for the same run replaces it. */
  addLabRun(info: LabRunInfo, result: LabResult | undefined): void;
  /** The kept runs' infos, in the order they were added (as stored: validated by the caller). */
  labRuns(): unknown[];
  labResult(runId: string): unknown;
}

export interface LabRunnerOptions {
  readonly store?: LabStore;
  /** Runs computing at once. */
  readonly maxConcurrent?: number;
  /** Results kept in memory (older ones are read back from the store when asked for). */
  readonly keepResults?: number;
}

// Decision: one run per core beyond the one the host's own thread needs, at most two: on two cores, one at a time.
const DEFAULT_CONCURRENCY = Math.max(1, Math.min(2, availableParallelism() - 1));
const DEFAULT_KEEP_RESULTS = 16;
const ENDED: ReadonlySet<LabRunInfo['status']> = new Set(['done', 'failed', 'cancelled']);

interface Run {
  info: LabRunInfo;
  worker?: Worker;
  startedAt?: number;
}

export class LabRunner {
  private readonly runs = new Map<string, Run>();
  private readonly queue: string[] = [];
  /** In insertion order, oldest first. */
  private readonly results = new Map<string, LabResult>();
  private readonly listeners = new Set<(info: LabRunInfo) => void>();
  private readonly store: LabStore | undefined;
  private readonly maxConcurrent: number;
  private readonly keepResults: number;
  private nextId = 1;
  private closed = false;

  constructor(options: LabRunnerOptions = {}) {
    this.store = options.store;
    this.maxConcurrent = options.maxConcurrent ?? DEFAULT_CONCURRENCY;
    this.keepResults = options.keepResults ?? DEFAULT_KEEP_RESULTS;
    // Decision: a stored row that no longer parses (written by another version) is left out of the list.
    for (const row of this.store?.labRuns() ?? []) {
      const parsed = labRunInfoSchema.safeParse(row);
      if (!parsed.success) continue;
      this.runs.set(parsed.data.runId, { info: parsed.data });
      const n = /^lab-(\d+)$/.exec(parsed.data.runId);
      if (n) this.nextId = Math.max(this.nextId, Number(n[1]) + 1);
    }
  }

  /** Queues a run (validated by the caller) and returns its id. */
  start(spec: LabSpec): string {
    if (this.closed) throw new Error('the lab is shut down');
    const runId = `lab-${this.nextId++}`;
    const info: LabRunInfo = {
      runId,
      spec,
      label: labLabel(spec),
      status: 'queued',
      fraction: 0,
      runsDone: 0,
      runsTotal: labRunsTotal(spec),
      note: 'waiting for a free worker',
      createdAt: new Date().toISOString(),
      endedAt: null,
      elapsedMs: null,
      error: null,
    };
    this.runs.set(runId, { info });
    this.queue.push(runId);
    this.emit(info);
    this.pump();
    return runId;
  }

  cancel(runId: string): Result<LabRunInfo> {
    const run = this.runs.get(runId);
    if (!run) return fail([{ path: 'runId', message: `no lab run ${runId}` }]);
    if (ENDED.has(run.info.status))
      return fail([{ path: 'runId', message: `lab run ${runId} has already ended (${run.info.status})` }]);
    this.stop(run, 'cancelled by the user');
    return ok(run.info);
  }

  /** Every run, oldest first. */
  list(): LabRunInfo[] {
    return [...this.runs.values()].map((r) => r.info);
  }

  info(runId: string): LabRunInfo | undefined {
    return this.runs.get(runId)?.info;
  }

  result(runId: string): Result<LabResult> {
    const run = this.runs.get(runId);
    if (!run) return fail([{ path: 'runId', message: `no lab run ${runId}` }]);
    if (run.info.status !== 'done')
      return fail([{ path: 'runId', message: `lab run ${runId} has no result (${run.info.status})` }]);
    const kept = this.results.get(runId);
    if (kept) return ok(kept);
    const stored = labResultSchema.safeParse(this.store?.labResult(runId));
    if (!stored.success) return fail([{ path: 'runId', message: `the result of lab run ${runId} is no longer kept` }]);
    this.keep(stored.data);
    return ok(stored.data);
  }

  /** Every change of a run (queued, progress, end), as it happens. */
  subscribe(listener: (info: LabRunInfo) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops every run (terminating its worker); nothing starts afterwards. Synchronous: the store may close next. */
  shutdown(): void {
    this.closed = true;
    for (const run of this.runs.values()) if (!ENDED.has(run.info.status)) this.stop(run, 'the host stopped');
  }

  private stop(run: Run, why: string): void {
    const index = this.queue.indexOf(run.info.runId);
    if (index >= 0) this.queue.splice(index, 1);
    const worker = run.worker;
    run.worker = undefined; // its later messages and exit are ignored
    void worker?.terminate();
    this.finish(run, { status: 'cancelled', error: why });
  }

  private pump(): void {
    if (this.closed) return;
    let running = [...this.runs.values()].filter((r) => r.info.status === 'running').length;
    while (running < this.maxConcurrent && this.queue.length > 0) {
      this.spawn(this.runs.get(this.queue.shift()!)!);
      running++;
    }
  }

  private spawn(run: Run): void {
    const worker = labWorker(run.info.spec);
    run.worker = worker;
    run.startedAt = performance.now();
    this.update(run, { status: 'running', note: 'starting' });
    const current = () => run.worker === worker;
    worker.on('message', (message: LabWorkerMessage) => {
      if (!current()) return;
      if (message.type === 'progress') {
        this.update(run, {
          fraction: Math.min(1, Math.max(0, message.fraction)),
          runsDone: message.runsDone,
          runsTotal: message.runsTotal,
          note: message.note,
        });
      } else {
        run.worker = undefined;
        if (message.type === 'done')
          this.finish(run, { status: 'done' }, { runId: run.info.runId, ...message.outcome });
        else this.finish(run, { status: 'failed', error: message.message });
      }
    });
    worker.on('error', (error) => {
      if (!current()) return;
      run.worker = undefined;
      void worker.terminate();
      this.finish(run, { status: 'failed', error: error.message });
    });
    worker.on('exit', (code) => {
      if (!current()) return;
      run.worker = undefined;
      this.finish(run, { status: 'failed', error: `the lab worker exited (code ${code}) without a result` });
    });
  }

  private finish(run: Run, end: Pick<LabRunInfo, 'status'> & { error?: string }, result?: LabResult): void {
    const done = end.status === 'done';
    const info: LabRunInfo = {
      ...run.info,
      status: end.status,
      error: end.error ?? null,
      fraction: done ? 1 : run.info.fraction,
      runsDone: done ? run.info.runsTotal : run.info.runsDone,
      note: done ? 'done' : end.status,
      endedAt: new Date().toISOString(),
      elapsedMs: run.startedAt === undefined ? null : performance.now() - run.startedAt,
    };
    run.info = info;
    if (result) this.keep(result);
    // Only ended runs are stored: a run under way when the host stops is cancelled (and stored as such).
    this.store?.addLabRun(info, result);
    this.emit(info);
    this.pump();
  }

  private keep(result: LabResult): void {
    this.results.delete(result.runId);
    this.results.set(result.runId, result);
    // Decision: without a store an evicted result is gone (its run stays listed); the default keeps 16.
    while (this.results.size > this.keepResults) this.results.delete(this.results.keys().next().value!);
  }

  private update(run: Run, changes: Partial<LabRunInfo>): void {
    run.info = { ...run.info, ...changes };
    this.emit(run.info);
  }

  private emit(info: LabRunInfo): void {
    for (const listener of this.listeners) listener(info);
  }
}

/**
 * The worker for one run. From the compiled app it is worker.js next to this module; when this module runs from
 * its TypeScript sources (under vitest) there is no compiled file beside it, and a small loader runs worker.ts.
 */
function labWorker(spec: LabSpec): Worker {
  const here = import.meta.url;
  if (here.endsWith('.ts'))
    return new Worker(new URL('./source-worker.mjs', here), {
      workerData: { spec, entry: new URL('./worker.ts', here).href },
    });
  return new Worker(new URL('./worker.js', here), { workerData: { spec } });
}
