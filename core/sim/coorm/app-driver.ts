// A small virtual-time driver for the application types of the CooRMv2 paper's section 4: any number of clients,
// each connecting at its own time, on one cluster of the real RMS. The same loop as the paper's simulator
// (simulation.ts): applications' own events first at equal times, then the RMS pass due, its messages delivered.
import { CoormRms, announcedUpdate, spontaneousUpdate, type RmsMessage } from '../../coorm/index.js';
import { describeErrors, type Result } from '../../model/result.js';
import { StepFunction } from '../../time/step-function.js';
import { EventEngine } from '../engine.js';
import type { SessionPort } from './apps.js';

export const APP_CLUSTER_ID = 'cluster';

/** SessionPort plus done() naming the node IDs given back, which NEXT-chained requests need (section 3.1.3). */
export interface AppPort extends SessionPort {
  /** Ends `request` now, giving back `nodeIds` (its NEXT successor keeps the others). */
  release(request: number, nodeIds: readonly number[]): void;
}

/** An application as the RMS sees it: what it does on connecting, and its answers to the RMS's messages. */
export interface CoormClient {
  /** Called right after its session opens (before any views). */
  start(): void;
  onViews(nonPreemptive: StepFunction, preemptive: StepFunction): void;
  /** `startedAt`: when the RMS started the allocation (its node IDs may come later, once preemptible holders let go). */
  onStarted(request: number, nodeIds: readonly number[], startedAt: number): void;
  onKilled(reason: string): void;
  readonly finished: boolean;
}

export interface ClientSpec {
  readonly connectAt: number;
  readonly make: (port: AppPort) => CoormClient;
  /** A filler that never finishes on its own: the run does not wait for it. */
  readonly endless?: boolean;
}

export interface AppRunOptions {
  readonly clusterNodes: number;
  readonly apps: readonly ClientSpec[];
  readonly reschedulingIntervalS?: number;
  /** Run exactly until then (finished or not, endless fillers included). Default: until every application not marked endless has finished. */
  readonly untilS?: number;
  /** Sees every message the RMS sends, before the application does (with the RMS, to inspect it). */
  readonly onMessage?: (message: RmsMessage, now: number, rms: CoormRms) => void;
}

export interface AppRun {
  readonly rms: CoormRms;
  /** In the order of `apps`; undefined for those that had not connected when the run stopped. */
  readonly clients: ReadonlyArray<CoormClient | undefined>;
  readonly sessions: ReadonlyArray<number | undefined>;
  readonly endTimeS: number;
}

// A scripted run that has not ended by then is stuck (a bug in a model), not slow.
const MAX_LOOP_ROUNDS = 1_000_000;

export function runCoormApps(o: AppRunOptions): AppRun {
  const engine = new EventEngine();
  const rms = new CoormRms([{ cid: APP_CLUSTER_ID, nodes: o.clusterNodes }], {
    reschedulingIntervalS: o.reschedulingIntervalS ?? 1,
  });
  const until = o.untilS ?? Number.POSITIVE_INFINITY;
  const accepted = <T>(what: string, r: Result<T>): T => {
    if (!r.ok)
      throw new Error(`the RMS refused ${what} at t=${engine.now}: ${describeErrors(r.errors).replaceAll('\n', '; ')}`);
    return r.value;
  };
  const portFor = (session: number): AppPort => ({
    get now() {
      return engine.now;
    },
    request: (spec) =>
      accepted(
        `a ${spec.type} request of ${spec.n} nodes`,
        rms.request(session, { ...spec, cid: APP_CLUSTER_ID }, engine.now),
      ),
    done: (request) => accepted(`done(${request})`, rms.done(session, request, engine.now)),
    release: (request, nodeIds) =>
      accepted(`done(${request}, [${nodeIds.join(', ')}])`, rms.done(session, request, engine.now, nodeIds)),
    update: (request, n) =>
      accepted(
        `an update of request ${request} to ${n} nodes`,
        spontaneousUpdate(rms, session, request, n, engine.now),
      ),
    announce: (request, n, announceS) =>
      accepted(
        `an announced update of request ${request} to ${n} nodes`,
        announcedUpdate(rms, session, request, n, announceS, engine.now),
      ),
    at: (t, action) => engine.at(t, action),
  });

  const clients: Array<CoormClient | undefined> = o.apps.map(() => undefined);
  const sessions: Array<number | undefined> = o.apps.map(() => undefined);
  const bySession = new Map<number, CoormClient>();
  o.apps.forEach((spec, i) => {
    engine.at(spec.connectAt, () => {
      const session = rms.connect(engine.now);
      const client = spec.make(portFor(session));
      clients[i] = client;
      sessions[i] = session;
      bySession.set(session, client);
      client.start();
    });
  });
  const done = () =>
    until === Number.POSITIVE_INFINITY &&
    o.apps.every((spec, i) => spec.endless === true || clients[i]?.finished === true);
  const zero = StepFunction.constant(0);

  let rounds = 0;
  while (!done()) {
    if (++rounds > MAX_LOOP_ROUNDS) throw new Error(`the application run did not end (t=${engine.now})`);
    const appAt = engine.nextTime();
    const rmsAt = rms.nextWakeup();
    const next = Math.min(appAt, rmsAt);
    if (next > until) break;
    if (!Number.isFinite(next))
      throw new Error(`the application run stalled at t=${engine.now}: nothing left to happen`);
    if (appAt <= rmsAt) {
      engine.step();
      continue;
    }
    engine.now = Math.max(engine.now, rmsAt);
    for (const m of rms.advance(engine.now)) {
      o.onMessage?.(m, engine.now, rms);
      const client = bySession.get(m.session);
      if (client === undefined) continue;
      if (m.type === 'views')
        client.onViews(m.nonPreemptive.get(APP_CLUSTER_ID) ?? zero, m.preemptive.get(APP_CLUSTER_ID) ?? zero);
      // Decision: the start notification carries the allocation's start as the RMS counts it, since its end follows
      // from that and not from when the IDs arrived.
      else if (m.type === 'started')
        client.onStarted(m.request, m.nodeIds, rms.requestSnapshot(m.request)?.startedAt ?? engine.now);
      else client.onKilled(m.reason);
    }
  }
  return { rms, clients, sessions, endTimeS: engine.now };
}
