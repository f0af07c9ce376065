// A fully-predictably evolving application (CooRMv2 paper, section 4): its whole evolution is known up front, so
// it sends one non-preemptible request per phase, each NEXT-chained to the one before. Where the node count drops
// it ends the phase naming the node IDs it frees; where it rises, the RMS sends the extra IDs with the next start.
import type { StepFunction } from '../../time/step-function.js';
import type { AppPort, CoormClient } from './app-driver.js';

export interface Phase {
  readonly nodes: number;
  readonly durationS: number;
}

export interface PhaseRecord {
  readonly request: number;
  /** When the RMS started it, and the node IDs its start message carried. */
  startTime: number | undefined;
  nodeIds: readonly number[];
  /** Node IDs given back at the end of the phase (those the next phase does not need). */
  freed: readonly number[];
}

export class PredictableApp implements CoormClient {
  readonly phases: PhaseRecord[] = [];
  endTime: number | undefined;
  killedReason: string | undefined;

  constructor(
    private readonly port: AppPort,
    private readonly plan: readonly Phase[],
  ) {
    if (plan.length === 0) throw new RangeError('plan: needs at least one phase');
    plan.forEach((p, i) => {
      if (!Number.isInteger(p.nodes) || p.nodes < 1)
        throw new RangeError(`plan[${i}].nodes must be a whole number >= 1, not ${p.nodes}`);
      if (!(p.durationS > 0) || !Number.isFinite(p.durationS))
        throw new RangeError(`plan[${i}].durationS must be finite and > 0, not ${p.durationS}`);
    });
  }

  get finished(): boolean {
    return this.endTime !== undefined || this.killedReason !== undefined;
  }

  // Decision: the chain is known up front and needs no view, so it goes out as the session opens.
  start(): void {
    let previous: number | undefined;
    for (const phase of this.plan) {
      const spec = { n: phase.nodes, duration: phase.durationS, type: 'NP' as const };
      previous = this.port.request(
        previous === undefined ? spec : { ...spec, relatedHow: 'NEXT', relatedTo: previous },
      );
      this.phases.push({ request: previous, startTime: undefined, nodeIds: [], freed: [] });
    }
  }

  onViews(_nonPreemptive: StepFunction, _preemptive: StepFunction): void {}

  onStarted(request: number, nodeIds: readonly number[], startedAt: number): void {
    const i = this.phases.findIndex((p) => p.request === request);
    const record = this.phases[i];
    if (record === undefined || record.startTime !== undefined) return;
    record.startTime = startedAt;
    record.nodeIds = nodeIds;
    // Phase i ends when its allocation does, computed as the RMS does (start + duration): a sum over the chain can
    // land an ulp after the RMS's end, which then sweeps the request before the phase hands its node IDs on.
    const end = startedAt + this.plan[i]!.durationS;
    this.port.at(Math.max(this.port.now, end), () => this.endPhase(i));
  }

  onKilled(reason: string): void {
    this.killedReason = reason;
  }

  private endPhase(i: number): void {
    if (this.finished) return;
    const record = this.phases[i]!;
    const next = this.plan[i + 1];
    if (next === undefined) {
      this.endTime = this.port.now;
      return;
    }
    if (next.nodes < record.nodeIds.length) {
      // Decision: it frees its highest node IDs, so the ones it keeps are the lowest.
      record.freed = [...record.nodeIds].sort((a, b) => a - b).slice(next.nodes);
      this.port.release(record.request, record.freed);
    }
  }
}
