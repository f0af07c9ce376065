// A non-predictably evolving application (CooRMv2 paper, section 4): a pre-allocation, then a non-preemptible
// request inside it, updated as its needs change (which it only learns one phase at a time). With a pre-allocation
// as large as its peak this is sure execution (as the AMR of apps.ts). With a smaller, "good-enough" one it is
// probable execution: when a phase needs more than the pre-allocation, it checkpoints, ends its requests, and
// resumes by submitting a larger pre-allocation, losing the checkpoint, the wait and the restart.
import type { StepFunction } from '../../time/step-function.js';
import type { AppPort, CoormClient } from './app-driver.js';
import type { Phase } from './predictable-app.js';

export interface ProbableNeaOptions {
  /** What each phase needs; the application discovers them one at a time. */
  readonly phases: readonly Phase[];
  /** The first pre-allocation (the user's guess). */
  readonly preallocation: number;
  /** Writing a checkpoint, on the nodes it holds, seconds. */
  readonly checkpointS: number;
  /** Reading it back after resubmission, seconds. */
  readonly restartS: number;
  /** A new pre-allocation is at least this times the old one (and at least the need). Default 2. */
  readonly regrowFactor?: number;
  /** The machine's size, which no pre-allocation may exceed. Default: no limit (the RMS refuses what is too big). */
  readonly clusterNodes?: number;
}

export interface Checkpoint {
  /** Phase that outgrew the pre-allocation. */
  readonly phase: number;
  readonly at: number;
  readonly oldPreallocation: number;
  readonly newPreallocation: number;
  /** When its work went on again (after the restart). */
  resumedAt: number | undefined;
}

export class ProbableNeaApp implements CoormClient {
  private preallocationRequest: number | undefined;
  private current: number | undefined;
  /** The request whose start it waits for, and what to do then. */
  private waitingFor: { request: number; then: () => void } | undefined;
  preallocation = 0;
  held = 0;
  readonly checkpoints: Checkpoint[] = [];
  /** Phase start times, in order (a resumed phase counts from when it resumed). */
  readonly phaseStarts: number[] = [];
  endTime: number | undefined;
  failure: string | undefined;

  constructor(
    private readonly port: AppPort,
    private readonly o: ProbableNeaOptions,
  ) {
    if (o.phases.length === 0) throw new RangeError('phases: needs at least one phase');
    if (!Number.isInteger(o.preallocation) || o.preallocation < 1)
      throw new RangeError(`preallocation must be a whole number >= 1, not ${o.preallocation}`);
    if (!(o.checkpointS >= 0) || !(o.restartS >= 0)) throw new RangeError('checkpointS and restartS must be >= 0');
    if (!((o.regrowFactor ?? 2) >= 1)) throw new RangeError(`regrowFactor must be >= 1, not ${o.regrowFactor}`);
  }

  get finished(): boolean {
    return this.endTime !== undefined || this.failure !== undefined;
  }

  /** Time lost to checkpoints: from each checkpoint's start to the end of its restart. */
  get lostS(): number {
    return this.checkpoints.reduce((s, c) => s + (c.resumedAt ?? this.port.now) - c.at, 0);
  }

  start(): void {
    // Decision: the first pre-allocation covers at least the first need (the RMS refuses a request outgrowing it).
    this.submit(Math.max(this.o.preallocation, this.need(0)), () => this.runPhase(0));
  }

  // Decision: its needs come from its own computation, not from the views, so it ignores them.
  onViews(_nonPreemptive: StepFunction): void {}

  onStarted(request: number, nodeIds: readonly number[]): void {
    const w = this.waitingFor;
    if (w === undefined || w.request !== request || this.finished) return;
    this.waitingFor = undefined;
    this.current = request;
    this.held = nodeIds.length;
    w.then();
  }

  onKilled(reason: string): void {
    this.failure = reason;
  }

  private need(phase: number): number {
    return this.o.phases[phase]!.nodes;
  }

  /** A pre-allocation and, inside it, a non-preemptible request for the current need (COALLOCated). */
  private submit(preallocation: number, then: () => void): void {
    const phase = this.phaseStarts.length;
    this.preallocation = preallocation;
    this.preallocationRequest = this.port.request({ n: preallocation, duration: Number.POSITIVE_INFINITY, type: 'PA' });
    const request = this.port.request({
      n: this.need(phase),
      duration: Number.POSITIVE_INFINITY,
      type: 'NP',
      relatedHow: 'COALLOC',
      relatedTo: this.preallocationRequest,
    });
    this.waitingFor = { request, then };
  }

  private runPhase(phase: number): void {
    this.phaseStarts.push(this.port.now);
    this.port.at(this.port.now + this.o.phases[phase]!.durationS, () => this.nextPhase(phase + 1));
  }

  private nextPhase(phase: number): void {
    if (phase >= this.o.phases.length) {
      this.port.done(this.current!);
      this.port.done(this.preallocationRequest!);
      this.held = 0;
      this.endTime = this.port.now;
      return;
    }
    const need = this.need(phase);
    if (need === this.held) {
      this.runPhase(phase);
      return;
    }
    if (need <= this.preallocation) {
      // Inside the pre-allocation the update is guaranteed; the phase runs once it has its nodes.
      const request = this.port.update(this.current!, need);
      this.current = undefined;
      this.waitingFor = { request, then: () => this.runPhase(phase) };
      return;
    }
    this.checkpoint(phase, need);
  }

  private checkpoint(phase: number, need: number): void {
    const limit = this.o.clusterNodes ?? Number.POSITIVE_INFINITY;
    // Decision: the new pre-allocation grows by regrowFactor (2 by default), so repeated outgrowing stays rare.
    const grown = Math.min(limit, Math.max(need, Math.ceil(this.preallocation * (this.o.regrowFactor ?? 2))));
    if (grown < need) {
      // It cannot go on anywhere: it gives everything back and stops.
      this.port.done(this.current!);
      this.port.done(this.preallocationRequest!);
      this.held = 0;
      this.failure = `phase ${phase} needs ${need} nodes, more than the cluster's ${limit}`;
      return;
    }
    const record: Checkpoint = {
      phase,
      at: this.port.now,
      oldPreallocation: this.preallocation,
      newPreallocation: grown,
      resumedAt: undefined,
    };
    this.checkpoints.push(record);
    this.port.at(this.port.now + this.o.checkpointS, () => {
      // Decision: it checkpoints at the phase boundary, so no computed work is lost, only time.
      this.port.done(this.current!);
      this.port.done(this.preallocationRequest!);
      this.current = undefined;
      this.held = 0;
      // It resubmits in the same session: the RMS queues by submission, so its new pre-allocation goes behind
      // whatever was submitted meanwhile, as the paper's resubmitted application does.
      this.submit(record.newPreallocation, () => {
        this.port.at(this.port.now + this.o.restartS, () => {
          record.resumedAt = this.port.now;
          this.runPhase(phase);
        });
      });
    });
  }
}
