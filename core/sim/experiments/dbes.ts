// The DBES paper's evaluation (section V, Figures 4-7 and Table II) as an experiment: the modified ESP workload
// (workloads/esp.ts) on one cluster of 120 cores under each strategy, at 10..100 % malleable jobs and in the mixed
// scenario (10 % evolving, 40 % malleable, 50 % rigid), each over seeds 1..n of ESP's submission order. Strategies are
// malleability policies looked up by name; one missing from the registry is skipped and said so. Files are the caller's.
import type { SchedulerEvent } from '../../events.js';
import { malleabilityPolicy } from '../../malleability/registry.js';
import type { SchedulerOptions } from '../../scheduler/scheduler.js';
import {
  ESP_MALLEABLE_PERCENTS,
  ESP_MALLEABLE_TYPES,
  ESP_MIXED,
  ESP_TABLE,
  espGrid,
  espTypeOf,
  espWorkload,
  type EspComposition,
  type EspMalleablePercent,
  type EspType,
} from '../workloads/esp.js';
import { SimWorld } from '../world.js';
import { dbesObservations, dbesReport, type DbesObservation } from './dbes-report.js';

/** The paper's strategies, in its order. The lead switches them on by registering policies under these names. */
export const DBES_STRATEGIES = ['rigid', 'esf', 'edf', 'ldf', 'ep', 'dbes'] as const;

export interface DbesExperimentConfig {
  /** Seeds 1..seeds of ESP's submission order. */
  readonly seeds: number;
  /** Strategies to run (malleability policy names); DBES_STRATEGIES by default. */
  readonly strategies: readonly string[];
  /** Malleable percentages of Figures 4-6. */
  readonly percents: readonly EspMalleablePercent[];
  /** Seconds between two scheduler iterations (Maui's iterations are driven by events and this poll). */
  readonly pollIntervalS: number;
  /** Maui's ReservationDepth (section V-A: 5). */
  readonly reservationDepth: number;
}

// Decision: a 10 s poll, Maui's RMPOLLINTERVAL as a site with many short jobs sets it (the maui.cfg example shipped
// with maui-3.2.6 sets 10 s against a default of 2 minutes; the paper gives none). The simulator's scheduler also runs
// a pass at every job event, so the poll only bounds how long idle cores wait to be handed out.
export const DBES_DEFAULT_CONFIG: DbesExperimentConfig = {
  seeds: 3,
  strategies: DBES_STRATEGIES,
  percents: ESP_MALLEABLE_PERCENTS,
  pollIntervalS: 10,
  reservationDepth: 5,
};

export const DBES_LIMITS = { maxSeeds: 1000 } as const;

/** Why a strategy cannot run here (undefined: it can). */
export function strategyUnavailable(name: string): string | undefined {
  return malleabilityPolicy(name)
    ? undefined
    : `no malleability policy named "${name}" is registered (core/malleability/registry.ts)`;
}

// Decision: the paper's strategies (DBES and its baselines) bring their own Maui iteration, which replaces the
// approach's pass, the queue policy's scan and the growth at polls; of the run's options they read only the
// reservation depth (the paper's ReservationDepth of section V-A: 5) and the queue priority (submission order), so
// only these are set. Another policy (--strategies egs, ...) has no iteration: it runs under PWA with backfilling
// and the same depth, so that it too can shrink expanded jobs to start waiting ones.
export function schedulerOptionsFor(
  strategy: string,
  config: Pick<DbesExperimentConfig, 'reservationDepth'>,
): Partial<SchedulerOptions> {
  const options: Partial<SchedulerOptions> = {
    policy: strategy,
    reservationDepth: config.reservationDepth,
    priority: 'submit',
  };
  return malleabilityPolicy(strategy)?.iteration ? options : { ...options, approach: 'pwa', queue: 'cbf' };
}

export type DbesScenario = EspMalleablePercent | 'mixed';

export interface DbesRunSpec {
  readonly strategy: string;
  readonly scenario: DbesScenario;
  readonly seed: number;
}

export interface DbesRun extends DbesRunSpec {
  /** Seconds from the first submission to the end of the last job. */
  readonly completion_s: number;
  /** Busy cores over all cores, time-averaged over the run. */
  readonly utilization: number;
  readonly jobs: number;
  readonly completed: number;
  /** Malleable jobs grown at least once, by type. */
  readonly expanded: Readonly<Partial<Record<EspType, number>>>;
  readonly evolving_requests: number;
  /** Evolving jobs whose request was granted. */
  readonly evolving_satisfied: number;
  /** Malleable jobs the strategy shrunk for an evolving request (`shrink.requested` with `phase: 'evolving'`). */
  readonly shrunk_for_evolving: number;
  /** Those by the expansion step the shrink took back (its `fromStep`; unknown when the event does not say). */
  readonly shrunk_from_step: { readonly first: number; readonly second: number; readonly unknown: number };
  /** Mean wait of the two full-machine Z jobs (s): they go ahead of the queue, and wait for the machine to drain. */
  readonly z_wait_s: number;
  /** Shrinks the strategy asked for (`shrink.requested`), by phase: for an evolving job, to start a job, to expand another. */
  readonly shrinks: { readonly evolving: number; readonly startLater: number; readonly steal: number };
  /** Whether a Z job is the last to end (it waited until the queue had emptied). */
  readonly z_ends_run: boolean;
  readonly events: number;
}

export function compositionOf(scenario: DbesScenario): EspComposition {
  return scenario === 'mixed'
    ? { malleable: ESP_MIXED.malleable, evolving: ESP_MIXED.evolving }
    : { malleable: ESP_MALLEABLE_TYPES[scenario], evolving: [] };
}

/** Every run of the experiment: each strategy at each percentage and in the mixed scenario, seeds 1..n. */
export function dbesRunMatrix(config: DbesExperimentConfig): DbesRunSpec[] {
  const runs: DbesRunSpec[] = [];
  for (const strategy of config.strategies) {
    if (strategyUnavailable(strategy)) continue;
    for (const scenario of [...config.percents, 'mixed'] as const) {
      for (let seed = 1; seed <= config.seeds; seed++) runs.push({ strategy, scenario, seed });
    }
  }
  return runs;
}

/** One run: the workload of the scenario and seed under the strategy, to the end of its last job. */
export function runDbesCase(
  spec: DbesRunSpec,
  config: Pick<DbesExperimentConfig, 'pollIntervalS' | 'reservationDepth'> = DBES_DEFAULT_CONFIG,
): DbesRun {
  const jobs = espWorkload(compositionOf(spec.scenario), spec.seed);
  const world = new SimWorld({
    grid: espGrid(),
    jobs,
    seed: spec.seed,
    background: false,
    pollIntervalS: config.pollIntervalS,
    scheduler: schedulerOptionsFor(spec.strategy, config),
  });
  const tally = new EventTally(new Set(jobs.filter((j) => j.kind === 'evolving').map((j) => j.id!)));
  let events = 0;
  world.scheduler.on((e) => {
    events++;
    tally.add(e);
  });
  world.run();
  const summary = world.metrics.summary(events);
  const finished = world.metrics.jobs();
  const ends = finished.map((j) => j.end).filter(Number.isFinite);
  const zWaits = finished.filter((j) => espTypeOf(j.id) === 'Z').map((j) => j.wait_s);
  return {
    ...spec,
    completion_s: ends.length ? Math.max(...ends) : Number.NaN,
    utilization: summary.utilization,
    jobs: summary.jobs,
    completed: summary.completed,
    expanded: tally.expandedByType(),
    evolving_requests: tally.requests,
    evolving_satisfied: tally.satisfied.size,
    shrunk_for_evolving: tally.shrunkForEvolving.size,
    shrunk_from_step: tally.shrunkFromStep(),
    shrinks: { ...tally.shrinks },
    z_wait_s: mean(zWaits),
    z_ends_run: finished.some((j) => espTypeOf(j.id) === 'Z' && j.end === Math.max(...ends)),
    events,
  };
}

/** Reads what Figures 5 and 7 and Table II count from the event stream. */
export class EventTally {
  /** Malleable jobs grown at least once (a grow answered with processors accepted). */
  private readonly grown = new Set<string>();
  private readonly pending = new Set<string>();
  private readonly initial = new Map<string, number>();
  requests = 0;
  readonly shrinks = { evolving: 0, startLater: 0, steal: 0 };
  readonly satisfied = new Set<string>();
  /** Shrunk job → the expansion step its first shrink for an evolving request took back (undefined: not said). */
  readonly shrunkForEvolving = new Map<string, 1 | 2 | undefined>();

  constructor(private readonly evolving: ReadonlySet<string>) {}

  add(e: SchedulerEvent): void {
    switch (e.type) {
      case 'job.started':
        if (this.evolving.has(e.jobId)) this.initial.set(e.jobId, e.size);
        break;
      case 'grow.answered':
        if (e.accepted > 0 && !this.evolving.has(e.jobId)) this.grown.add(e.jobId);
        break;
      case 'evolve.requested':
        if (this.evolving.has(e.jobId)) {
          this.requests++;
          this.pending.add(e.jobId);
        }
        break;
      case 'job.evolved':
        if (this.pending.delete(e.jobId) && e.size > (this.initial.get(e.jobId) ?? Number.POSITIVE_INFINITY))
          this.satisfied.add(e.jobId);
        break;
      case 'evolve.refused':
        this.pending.delete(e.jobId);
        break;
      case 'shrink.requested':
        if (e.phase !== undefined) this.shrinks[e.phase]++;
        // Decision: a job shrunk more than once for evolving requests counts once (Table II counts jobs), under the
        // step of its first such shrink.
        if (e.phase === 'evolving' && !this.evolving.has(e.jobId) && !this.shrunkForEvolving.has(e.jobId))
          this.shrunkForEvolving.set(e.jobId, e.fromStep);
        break;
      case 'job.ended':
        this.pending.delete(e.jobId);
        break;
      default:
        break;
    }
  }

  expandedByType(): Partial<Record<EspType, number>> {
    const out: Partial<Record<EspType, number>> = {};
    for (const id of this.grown) {
      const t = espTypeOf(id);
      if (t) out[t] = (out[t] ?? 0) + 1;
    }
    return out;
  }

  shrunkFromStep(): { first: number; second: number; unknown: number } {
    let first = 0;
    let second = 0;
    let unknown = 0;
    for (const step of this.shrunkForEvolving.values()) {
      if (step === 1) first++;
      else if (step === 2) second++;
      else unknown++;
    }
    return { first, second, unknown };
  }
}

// ---- analysis --------------------------------------------------------------------------------------------------

export interface Fig4Point {
  readonly malleable_percent: EspMalleablePercent;
  readonly strategy: string;
  /** Mean over seeds. */
  readonly completion_s: number;
}
export interface Fig5Bar {
  readonly strategy: string;
  readonly type: EspType;
  /** Mean over seeds of the type's jobs expanded at least once, at 50 % malleable. */
  readonly expanded: number;
  /** The type's malleable jobs (the paper's horizontal line). */
  readonly malleable: number;
}
export interface Fig6Point {
  readonly malleable_percent: EspMalleablePercent;
  readonly strategy: string;
  readonly utilization: number;
}
export interface Fig7Row {
  readonly strategy: string;
  readonly completion_s: number;
  readonly evolving_satisfied: number;
  readonly shrunk_for_evolving: number;
  readonly shrunk_first_step: number;
  readonly shrunk_second_step: number;
  readonly shrunk_step_unknown: number;
  readonly evolving_requests: number;
}
export interface SkippedStrategy {
  readonly strategy: string;
  readonly reason: string;
}

export interface DbesAnalysis {
  readonly config: DbesExperimentConfig;
  readonly strategies: readonly string[];
  readonly skipped: readonly SkippedStrategy[];
  readonly fig4: readonly Fig4Point[];
  readonly fig5: readonly Fig5Bar[];
  readonly fig6: readonly Fig6Point[];
  readonly fig7: readonly Fig7Row[];
  readonly observations: readonly DbesObservation[];
  readonly report: string;
}

export function skippedStrategies(strategies: readonly string[]): SkippedStrategy[] {
  return strategies.flatMap((s) => {
    const reason = strategyUnavailable(s);
    return reason ? [{ strategy: s, reason }] : [];
  });
}

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : Number.NaN);

export function analyseDbes(runs: readonly DbesRun[], config: DbesExperimentConfig): DbesAnalysis {
  const skipped = skippedStrategies(config.strategies);
  const strategies = config.strategies.filter((s) => !strategyUnavailable(s));
  const of = (strategy: string, scenario: DbesScenario) =>
    runs.filter((r) => r.strategy === strategy && r.scenario === scenario);
  const fig4: Fig4Point[] = [];
  const fig6: Fig6Point[] = [];
  for (const p of config.percents) {
    for (const s of strategies) {
      const rs = of(s, p);
      fig4.push({ malleable_percent: p, strategy: s, completion_s: mean(rs.map((r) => r.completion_s)) });
      fig6.push({ malleable_percent: p, strategy: s, utilization: mean(rs.map((r) => r.utilization)) });
    }
  }
  const fig5: Fig5Bar[] = [];
  if (config.percents.includes(50)) {
    const types = ESP_MALLEABLE_TYPES[50];
    for (const s of strategies) {
      const rs = of(s, 50);
      for (const type of types) {
        fig5.push({
          strategy: s,
          type,
          expanded: mean(rs.map((r) => r.expanded[type] ?? 0)),
          malleable: typeCount(type),
        });
      }
    }
  }
  const fig7: Fig7Row[] = strategies.map((s) => {
    const rs = of(s, 'mixed');
    return {
      strategy: s,
      completion_s: mean(rs.map((r) => r.completion_s)),
      evolving_satisfied: mean(rs.map((r) => r.evolving_satisfied)),
      shrunk_for_evolving: mean(rs.map((r) => r.shrunk_for_evolving)),
      shrunk_first_step: mean(rs.map((r) => r.shrunk_from_step.first)),
      shrunk_second_step: mean(rs.map((r) => r.shrunk_from_step.second)),
      shrunk_step_unknown: mean(rs.map((r) => r.shrunk_from_step.unknown)),
      evolving_requests: mean(rs.map((r) => r.evolving_requests)),
    };
  });
  const observations = dbesObservations({ fig4, fig5, fig6, fig7, strategies });
  const partial = { config, strategies, skipped, fig4, fig5, fig6, fig7, observations };
  return { ...partial, report: dbesReport(partial, runs) };
}

function typeCount(type: EspType): number {
  return ESP_TABLE.find((t) => t.type === type)?.count ?? 0;
}

/** Runs the whole experiment in one call (the Lab, tests and the benchmark); the CLI runs case by case. */
export function runDbesExperiment(
  config: DbesExperimentConfig,
  onRun?: (done: number, total: number) => void,
): DbesAnalysis {
  const matrix = dbesRunMatrix(config);
  const runs: DbesRun[] = [];
  for (const spec of matrix) {
    runs.push(runDbesCase(spec, config));
    onRun?.(runs.length, matrix.length);
  }
  return analyseDbes(runs, config);
}
