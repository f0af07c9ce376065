// A rigid application (CooRMv2 paper, section 4): one non-preemptible request of the user's node count and
// duration; it does not adapt, so it ignores its views.
import type { StepFunction } from '../../time/step-function.js';
import type { AppPort, CoormClient } from './app-driver.js';

export interface RigidOptions {
  readonly nodes: number;
  /** The duration asked for (a wall-time). */
  readonly durationS: number;
  /** What the run really takes, if less: it then ends its request early. Default: the whole duration. */
  readonly runtimeS?: number;
}

export class RigidApp implements CoormClient {
  private request: number | undefined;
  private endAction = false;
  /** When it got its node IDs. */
  startTime: number | undefined;
  endTime: number | undefined;
  nodeIds: readonly number[] = [];
  cancelled = false;

  constructor(
    private readonly port: AppPort,
    private readonly o: RigidOptions,
  ) {
    if (!Number.isInteger(o.nodes) || o.nodes < 1)
      throw new RangeError(`nodes must be a whole number >= 1, not ${o.nodes}`);
    if (!(o.durationS > 0)) throw new RangeError(`durationS must be > 0, not ${o.durationS}`);
    if (o.runtimeS !== undefined && !(o.runtimeS > 0 && o.runtimeS <= o.durationS))
      throw new RangeError(`runtimeS must be in (0, durationS], not ${o.runtimeS}`);
  }

  get finished(): boolean {
    return this.endTime !== undefined || this.cancelled;
  }

  // Decision: a rigid application needs nothing from its views, so it submits as soon as its session opens.
  start(): void {
    this.request = this.port.request({ n: this.o.nodes, duration: this.o.durationS, type: 'NP' });
  }

  onViews(_nonPreemptive: StepFunction, _preemptive: StepFunction): void {}

  onStarted(request: number, nodeIds: readonly number[], startedAt: number): void {
    if (request !== this.request || this.endAction) return;
    this.endAction = true;
    // Decision: its run ends with its allocation, counted from the RMS's start even when the IDs came later (held
    // preemptibly by another application for up to a grace): the RMS ends a full-length request then.
    this.startTime = this.port.now;
    this.nodeIds = nodeIds;
    const runtime = this.o.runtimeS ?? this.o.durationS;
    this.port.at(Math.max(this.port.now, startedAt + runtime), () => {
      if (this.cancelled) return;
      // Decision: a run shorter than its wall-time gives its nodes back at once; a full one lets the RMS end it.
      if (runtime < this.o.durationS) this.port.done(this.request!);
      this.endTime = this.port.now;
    });
  }

  onKilled(): void {
    this.cancelled = true;
  }

  /** The user withdraws the job (or stops it, if running). */
  cancel(): void {
    if (this.finished || this.request === undefined) return;
    this.port.done(this.request);
    this.cancelled = true;
  }
}
