// One run of interactive periodic divisible jobs on a simulated cluster: the head node (core/interactive/head.ts)
// admits and places the jobs, each worker node runs its instances under preemptive EDF (worker.ts), and the run
// measures what happened — utilisation as executed processor time, deadline misses as instances finishing late —
// rather than assuming it from the admission tests.
import { Random } from '../../random.js';
import { InteractiveHead, type HeadConfig } from '../../interactive/head.js';
import type { RefusalCode } from '../../interactive/model.js';
import { Heap } from './heap.js';
import { EdfWorker, type Completion } from './worker.js';
import type { GeneratedJob } from './workload.js';

export interface InteractiveRunConfig extends HeadConfig {
  readonly horizonMs: number;
  readonly jobs: readonly GeneratedJob[];
  /** Each iteration's data is σ times a fraction drawn from [dataFractionMin, 1]. */
  readonly dataFractionMin: number;
}

export interface InteractiveRunResult {
  readonly arrived: number;
  readonly admitted: number;
  readonly refused: Readonly<Record<RefusalCode, number>>;
  /** Jobs admitted on more than RT-DLT's n_min nodes. */
  readonly widened: number;
  /** Mean k of the admitted jobs (first placement). */
  readonly meanNodesPerJob: number;
  /** Executed processor time over the cluster's capacity during the run (%). */
  readonly utilizationPercent: number;
  /** Forks (job iterations) released. */
  readonly iterations: number;
  /** Task instances released. */
  readonly instances: number;
  /** Instances that finished after their deadline, or were unfinished past it at the end. */
  readonly misses: number;
  /** ... of which on a node where some instance overran its C since the node was last idle. */
  readonly missesAfterOverrun: number;
  /** ... of which with no overrun on the node since it was last idle: the guarantee says none. */
  readonly missesWithoutOverrun: number;
  /** Instances that executed longer than their task's C. */
  readonly overrunInstances: number;
  /** Instances released by jobs whose data had grown (the ones that could overrun). */
  readonly instancesAfterGrowth: number;
  readonly replacements: number;
  readonly droppedOnReplacement: number;
  /** RT-DLT divisions the head computed: every admission tried (refused or not) and every re-placement. */
  readonly divisions: number;
  /** A few refusal messages, for the report. */
  readonly refusalSamples: readonly string[];
}

type EventKind = 'completion' | 'end' | 'arrival' | 'fork';
const ORDER: Record<EventKind, number> = { completion: 0, end: 1, arrival: 2, fork: 3 };

interface SimEvent {
  readonly atMs: number;
  readonly kind: EventKind;
  readonly seq: number;
  readonly job?: number;
  readonly node?: number;
  readonly version?: number;
}

export function runInteractive(config: InteractiveRunConfig): InteractiveRunResult {
  const head = new InteractiveHead(config);
  const workers = Array.from({ length: config.nodes }, (_, i) => new EdfWorker(i));
  const versions = new Array<number>(config.nodes).fill(0);
  // The time of each node's valid completion event (-1: none), so an unchanged prediction is not pushed again.
  const scheduledAt = new Array<number>(config.nodes).fill(-1);
  const events = new Heap<SimEvent>((a, b) =>
    a.atMs !== b.atMs ? a.atMs < b.atMs : a.kind !== b.kind ? ORDER[a.kind] < ORDER[b.kind] : a.seq < b.seq,
  );
  let seq = 0;
  const push = (atMs: number, kind: EventKind, job: number | undefined, node?: number, version?: number) =>
    events.push({ atMs, kind, seq: seq++, job, node, version });
  const jobs = config.jobs;
  const rngs = new Map<number, Random>();
  const horizon = config.horizonMs;

  let instances = 0;
  let iterations = 0;
  let misses = 0;
  let missesAfterOverrun = 0;
  let overrunInstances = 0;
  let instancesAfterGrowth = 0;
  let firstK = 0;
  let instanceSeq = 0;
  const refusalSamples: string[] = [];

  const onComplete = (node: number) => (c: Completion) => {
    const inst = c.instance;
    if (inst.demandMs > inst.costMs) overrunInstances++;
    if (c.missed) {
      misses++;
      if (c.afterOverrun) missesAfterOverrun++;
    }
    const before = head.placementOf(inst.jobId);
    const outcome = head.completed(
      { jobId: inst.jobId, generation: inst.generation, node, executedMs: inst.executedMs, missed: c.missed },
      c.finishMs,
    );
    if (outcome && !outcome.ok && refusalSamples.length < 5)
      refusalSamples.push(`re-placing ${inst.jobId}: ${outcome.message}`);
    if (outcome && before) reportIdle(before.nodes);
  };
  // Nodes a job just left may be idle already: say so, or their ghosts would wait for the next idle instant.
  const reportIdle = (nodes: readonly number[]) => {
    for (const n of new Set(nodes)) if (workers[n]!.pending === 0) head.nodeIdle(n, workers[n]!.timeMs);
  };
  const onIdle = (node: number) => (atMs: number) => head.nodeIdle(node, atMs);
  const advance = (node: number, toMs: number) => workers[node]!.advance(toMs, onComplete(node), onIdle(node));
  const reschedule = (node: number) => {
    const next = workers[node]!.nextCompletionMs() ?? -1;
    if (next === scheduledAt[node]) return;
    versions[node]!++;
    scheduledAt[node] = -1;
    if (next >= 0 && next <= horizon) {
      push(next, 'completion', undefined, node, versions[node]!);
      scheduledAt[node] = next;
    }
  };

  jobs.forEach((job, i) => push(job.arrivalMs, 'arrival', i));

  for (let e = events.pop(); e !== undefined; e = events.pop()) {
    const t = e.atMs;
    if (e.kind === 'completion') {
      if (e.version !== versions[e.node!]) continue;
      scheduledAt[e.node!] = -1;
      advance(e.node!, t);
      reschedule(e.node!);
      continue;
    }
    const job = jobs[e.job!]!;
    if (e.kind === 'arrival') {
      const admission = head.submit(job, t);
      if (!admission.ok) {
        if (refusalSamples.length < 5) refusalSamples.push(`${job.id}: ${admission.message}`);
        continue;
      }
      firstK += admission.nodes.length;
      rngs.set(e.job!, new Random(job.iterationSeed));
      push(t, 'fork', e.job!);
      const end = job.arrivalMs + job.lifetimeMs;
      if (end < horizon) push(end, 'end', e.job!);
      continue;
    }
    if (e.kind === 'end') {
      const placement = head.placementOf(job.id);
      head.finish(job.id, t);
      if (placement) reportIdle(placement.nodes);
      continue;
    }
    // A fork: every task of the job's current placement releases an instance.
    if (t >= job.arrivalMs + job.lifetimeMs) continue;
    const placement = head.placementOf(job.id);
    if (!placement) continue;
    iterations++;
    const fraction = config.dataFractionMin + rngs.get(e.job!)!.next() * (1 - config.dataFractionMin);
    const growth = job.growthAtMs !== undefined && t >= job.growthAtMs ? job.growth : 1;
    // Decision: an instance's demand scales C with the iteration's real data over the placement's bound (DLT: time
    // is linear in data on a fixed set of nodes).
    const demandMs = Math.max(
      1,
      Math.ceil((placement.costMs * fraction * growth * job.dataUnits) / placement.dataUnits - 1e-9),
    );
    placement.nodes.forEach((node, index) => {
      advance(node, t);
      workers[node]!.release({
        jobId: job.id,
        taskIndex: index,
        generation: placement.generation,
        releaseMs: t,
        deadlineAtMs: t + job.deadlineMs,
        costMs: placement.costMs,
        demandMs,
        seq: instanceSeq++,
        executedMs: 0,
      });
      instances++;
      if (growth > 1) instancesAfterGrowth++;
    });
    for (const node of new Set(placement.nodes)) reschedule(node);
    if (t + job.periodMs < horizon) push(t + job.periodMs, 'fork', e.job!);
  }

  // The end: run every node up to the horizon; instances still pending past their deadline missed it.
  let busy = 0;
  workers.forEach((w, node) => {
    advance(node, horizon);
    for (const inst of w.pendingInstances()) {
      if (inst.deadlineAtMs <= horizon) {
        misses++;
        if (w.tainted) missesAfterOverrun++;
      }
    }
    busy += w.busyMs;
  });

  const c = head.counters;
  return {
    arrived: jobs.length,
    admitted: c.admitted,
    refused: { ...c.refused },
    widened: c.widened,
    meanNodesPerJob: c.admitted === 0 ? 0 : firstK / c.admitted,
    utilizationPercent: (100 * busy) / (config.nodes * horizon),
    iterations,
    instances,
    misses,
    missesAfterOverrun,
    missesWithoutOverrun: misses - missesAfterOverrun,
    overrunInstances,
    instancesAfterGrowth,
    replacements: c.replacements,
    droppedOnReplacement: c.droppedOnReplacement,
    divisions: c.divisions,
    refusalSamples,
  };
}
