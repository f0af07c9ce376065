// The discrete-event simulator of the CooRMv2 paper's evaluation (section 5): one homogeneous cluster, the CooRMv2
// RMS of core/coorm, one AMR and one or two PSAs, in virtual time. The RMS runs whenever its nextWakeup() is due;
// the applications' own events (AMR steps, PSA task ends) run on the core's event engine between its passes.
import { CoormRms, announcedUpdate, spontaneousUpdate, type RmsMessage } from '../../coorm/index.js';
import { describeErrors, type Result } from '../../model/result.js';
import { Random } from '../../random.js';
import { StepFunction } from '../../time/step-function.js';
import { EventEngine } from '../engine.js';
import {
  AMR_STEPS,
  PAPER_SPEEDUP,
  TARGET_EFFICIENCY,
  dataSizeMiB,
  equivalentStaticNodes,
  nodesForEfficiency,
  workingSetProfile,
  type SpeedupModel,
} from './amr.js';
import { AmrApp, PsaApp, type AmrMode, type SessionPort } from './apps.js';

export const CLUSTER_ID = 'cluster';
/** Nodes per unit of overcommit factor: enough for the AMR's pre-allocation (the paper's section 5.2). */
export const NODES_PER_OVERCOMMIT = 1400;
export const DEFAULT_RESCHEDULING_INTERVAL_S = 1;

/** How the preemptible nodes are shared between PSAs: CooRMv2's equi-partitioning with filling, or without (the RMS's strict sharing). */
export type PsaSharing = 'coorm' | 'strict';

export interface CoormScenario {
  readonly seed: number;
  /** The user's pre-allocation over the a-posteriori n_eq. */
  readonly overcommit: number;
  readonly amrMode: AmrMode;
  /** 0: spontaneous updates. */
  readonly announceIntervalS: number;
  /** Task duration of each PSA, seconds. */
  readonly psaTaskS: readonly number[];
  readonly sharing: PsaSharing;
  /** Default ceil(1400 × overcommit). */
  readonly clusterNodes?: number;
  readonly reschedulingIntervalS?: number;
  /** AMR steps (1000 in the paper; fewer for quick runs). */
  readonly steps?: number;
  readonly targetEfficiency?: number;
  readonly model?: SpeedupModel;
  /** Sees every message the RMS sends, before the application does (tracing, tests). */
  readonly onMessage?: (message: RmsMessage, now: number) => void;
}

export interface PsaOutcome {
  readonly taskS: number;
  readonly completedTasks: number;
  readonly killedTasks: number;
  /** Node-seconds of finished tasks, and of the work in progress when the AMR ended. */
  readonly usefulNodeS: number;
  readonly wasteNodeS: number;
  /** request() and done() calls it sent. */
  readonly messages: number;
  readonly killedByRms: string | undefined;
}

export interface CoormOutcome {
  readonly scenario: CoormScenario;
  readonly clusterNodes: number;
  /** The equivalent static allocation of this seed's AMR, a posteriori. */
  readonly nEq: number;
  readonly preallocation: number;
  /** The most nodes the AMR's target efficiency asks for at any step (it needs φ ≥ peak / n_eq to be unconstrained). */
  readonly amrPeakNodes: number;
  readonly amrEndTimeS: number;
  readonly amrUsedNodeS: number;
  readonly amrUpdates: number;
  readonly psas: readonly PsaOutcome[];
  readonly psaWasteNodeS: number;
  /** Node-seconds allocated to applications minus PSA waste, over the cluster's node-seconds until the AMR ends. */
  readonly usedPercent: number;
  readonly rmsPasses: number;
}

export function clusterNodesFor(overcommit: number): number {
  return Math.ceil(NODES_PER_OVERCOMMIT * overcommit);
}

/** The AMR of one seed: its working set per step (MiB) and n_eq. */
export function amrProfile(
  seed: number,
  steps = AMR_STEPS,
  targetEfficiency = TARGET_EFFICIENCY,
  model: SpeedupModel = PAPER_SPEEDUP,
): { sizesMiB: number[]; nEq: number } {
  const sizesMiB = workingSetProfile(new Random(seed).fork('amr'), steps).map((s) => dataSizeMiB(s, model));
  return { sizesMiB, nEq: equivalentStaticNodes(sizesMiB, targetEfficiency, model) };
}

// A run that has not ended by then is stuck (a bug), not slow: every AMR step is shorter than a day.
const MAX_LOOP_ROUNDS = 50_000_000;

export function runCoormScenario(scenario: CoormScenario): CoormOutcome {
  if (!(scenario.overcommit > 0)) throw new RangeError(`overcommit must be positive, not ${scenario.overcommit}`);
  if (!(scenario.announceIntervalS >= 0))
    throw new RangeError(`announce interval must be >= 0, not ${scenario.announceIntervalS}`);
  const steps = scenario.steps ?? AMR_STEPS;
  const target = scenario.targetEfficiency ?? TARGET_EFFICIENCY;
  const model = scenario.model ?? PAPER_SPEEDUP;
  const { sizesMiB, nEq } = amrProfile(scenario.seed, steps, target, model);
  const clusterNodes = scenario.clusterNodes ?? clusterNodesFor(scenario.overcommit);
  // Decision: the user's guess is φ·n_eq rounded up, and never more than the cluster.
  const preallocation = Math.min(clusterNodes, Math.max(1, Math.ceil(scenario.overcommit * nEq)));

  const engine = new EventEngine();
  const rms = new CoormRms([{ cid: CLUSTER_ID, nodes: clusterNodes }], {
    reschedulingIntervalS: scenario.reschedulingIntervalS ?? DEFAULT_RESCHEDULING_INTERVAL_S,
    // Strict equi-partitioning is the RMS's: the PSAs see only their equal partition of what the AMR leaves.
    preemptibleSharing: scenario.sharing === 'strict' ? 'strict' : 'fill',
  });

  // The models only send what the RMS must accept: a refusal is a bug, reported with the RMS's own words.
  const accepted = <T>(what: string, r: Result<T>): T => {
    if (!r.ok)
      throw new Error(`the RMS refused ${what} at t=${engine.now}: ${describeErrors(r.errors).replaceAll('\n', '; ')}`);
    return r.value;
  };
  const portFor = (session: () => number): SessionPort => ({
    get now() {
      return engine.now;
    },
    request(spec) {
      return accepted(
        `a ${spec.type} request of ${spec.n} nodes`,
        rms.request(session(), { ...spec, cid: CLUSTER_ID }, engine.now),
      );
    },
    done(request) {
      accepted(`done(${request})`, rms.done(session(), request, engine.now));
    },
    update(request, n) {
      return accepted(
        `an update of request ${request} to ${n} nodes`,
        spontaneousUpdate(rms, session(), request, n, engine.now),
      );
    },
    announce(request, n, announceS) {
      return accepted(
        `an announced update of request ${request} to ${n} nodes`,
        announcedUpdate(rms, session(), request, n, announceS, engine.now),
      );
    },
    at(t, action) {
      engine.at(t, action);
    },
  });

  const amrSession = rms.connect(0);
  const amr = new AmrApp(
    portFor(() => amrSession),
    {
      sizesMiB,
      preallocation,
      mode: scenario.amrMode,
      announceIntervalS: scenario.announceIntervalS,
      targetEfficiency: target,
      model,
    },
  );
  const psaSessions: number[] = [];
  const psas = scenario.psaTaskS.map((taskS, i) => {
    psaSessions.push(rms.connect(0));
    return new PsaApp(
      portFor(() => psaSessions[i]!),
      { taskS },
    );
  });

  const deliver = (m: RmsMessage): void => {
    scenario.onMessage?.(m, engine.now);
    if (m.session === amrSession) {
      if (m.type === 'views') amr.onViews();
      else if (m.type === 'started') amr.onStarted(m.request);
      else amr.onKilled(m.reason);
      return;
    }
    const i = psaSessions.indexOf(m.session);
    const psa = psas[i];
    if (!psa) return;
    if (m.type === 'views') psa.onViews(m.preemptive.get(CLUSTER_ID) ?? StepFunction.constant(0));
    else if (m.type === 'started') psa.onStarted(m.request, m.nodeIds.length);
    else psa.onKilled(m.reason);
  };

  let passes = 0;
  let rounds = 0;
  while (!amr.finished) {
    if (++rounds > MAX_LOOP_ROUNDS) throw new Error(`the CooRMv2 simulation did not end (t=${engine.now})`);
    const appAt = engine.nextTime();
    const rmsAt = rms.nextWakeup();
    if (!Number.isFinite(appAt) && !Number.isFinite(rmsAt))
      throw new Error(`the CooRMv2 simulation stalled at t=${engine.now}: nothing left to happen`);
    // Applications first at equal times, so that what they send now is in the RMS's pass of now.
    if (appAt <= rmsAt) {
      engine.step();
      continue;
    }
    engine.now = Math.max(engine.now, rmsAt);
    passes++;
    for (const m of rms.advance(engine.now)) deliver(m);
  }

  const end = amr.endTime ?? engine.now;
  const psaOutcomes = psas.map((p): PsaOutcome => ({
    taskS: p.bag.taskS,
    completedTasks: p.bag.completed,
    killedTasks: p.bag.killed,
    usefulNodeS: p.bag.usefulNodeS + p.bag.inProgressNodeS(end),
    wasteNodeS: p.bag.wasteNodeS,
    messages: p.messages,
    killedByRms: p.killedReason,
  }));
  const psaWasteNodeS = psaOutcomes.reduce((s, p) => s + p.wasteNodeS, 0);
  const used = amr.usedNodeS + psaOutcomes.reduce((s, p) => s + p.usefulNodeS, 0);
  return {
    scenario,
    clusterNodes,
    nEq,
    preallocation,
    amrPeakNodes: sizesMiB.reduce((m, size) => Math.max(m, nodesForEfficiency(size, target, model)), 0),
    amrEndTimeS: end,
    amrUsedNodeS: amr.usedNodeS,
    amrUpdates: amr.updates,
    psas: psaOutcomes,
    psaWasteNodeS,
    usedPercent: end > 0 ? (100 * used) / (clusterNodes * end) : 0,
    rmsPasses: passes,
  };
}
