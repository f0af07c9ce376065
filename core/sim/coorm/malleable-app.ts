// A malleable application (CooRMv2 paper, section 4): a non-preemptible request r_min of its minimum, and a
// preemptible request r_extra COALLOCated with it, sized from the preemptive view (possibly smaller than what the
// view offers, e.g. a power of two) and kept in step with that view while it runs: up when it grows, down at once
// when it drops.
import type { StepFunction } from '../../time/step-function.js';
import type { AppPort, CoormClient } from './app-driver.js';

/** Largest power of two <= available (0 when nothing is available): 36 -> 32. */
export function powerOfTwoAtMost(available: number): number {
  if (!(available >= 1)) return 0;
  return 2 ** Math.floor(Math.log2(Math.floor(available)));
}

export interface MalleableOptions {
  /** Nodes of r_min; 0: no non-preemptible part (a pure filler). */
  readonly minNodes: number;
  readonly maxNodes: number;
  /** From the start of r_min; Infinity for an endless filler. */
  readonly durationS: number;
  /** Extra nodes it can use out of `available` (default: all of them). */
  readonly extraRule?: (available: number) => number;
}

export class MalleableApp implements CoormClient {
  private rMin: number | undefined;
  private extra: number | undefined;
  private extraStarted = false;
  /** Node count of the live r_extra (what it asked, not what it holds). */
  private extraAsked = 0;
  private view: StepFunction | undefined;
  private nonPreemptive: StepFunction | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  private lastChange = 0;
  startTime: number | undefined;
  endTime: number | undefined;
  killedReason: string | undefined;
  /** Preemptible nodes it holds, and when that changed. */
  extraHeld = 0;
  readonly extraHistory: Array<{ t: number; nodes: number }> = [];
  minNodeIds: readonly number[] = [];
  extraNodeIds: readonly number[] = [];
  usedNodeS = 0;

  constructor(
    private readonly port: AppPort,
    private readonly o: MalleableOptions,
  ) {
    if (!Number.isInteger(o.minNodes) || o.minNodes < 0)
      throw new RangeError(`minNodes must be a whole number >= 0, not ${o.minNodes}`);
    if (!Number.isInteger(o.maxNodes) || o.maxNodes < Math.max(1, o.minNodes))
      throw new RangeError(`maxNodes must be a whole number >= max(1, minNodes), not ${o.maxNodes}`);
    if (!(o.durationS > 0)) throw new RangeError(`durationS must be > 0, not ${o.durationS}`);
  }

  get finished(): boolean {
    return this.endTime !== undefined || this.killedReason !== undefined;
  }

  // Decision: r_min goes out as the session opens, so the first views already count it out of the preemptible part.
  start(): void {
    if (this.o.minNodes > 0)
      this.rMin = this.port.request({ n: this.o.minNodes, duration: this.o.durationS, type: 'NP' });
    else this.begin();
  }

  onViews(nonPreemptive: StepFunction, preemptive: StepFunction): void {
    this.nonPreemptive = nonPreemptive;
    this.view = preemptive;
    this.reconcile();
  }

  onStarted(request: number, nodeIds: readonly number[]): void {
    if (this.finished) return;
    if (request === this.rMin) {
      this.minNodeIds = nodeIds;
      this.begin();
    } else if (request === this.extra) {
      this.extraStarted = true;
      this.extraNodeIds = nodeIds;
      this.setExtraHeld(nodeIds.length);
    }
  }

  onKilled(reason: string): void {
    this.setExtraHeld(0);
    this.killedReason = reason;
  }

  private begin(): void {
    if (this.startTime !== undefined) return;
    this.startTime = this.port.now;
    this.lastChange = this.port.now;
    if (Number.isFinite(this.o.durationS)) this.port.at(this.port.now + this.o.durationS, () => this.finish());
  }

  private finish(): void {
    if (this.finished) return;
    // Both parts end with their duration at the RMS; only an r_extra still waiting to start is withdrawn.
    if (this.extra !== undefined && !this.extraStarted) this.port.done(this.extra);
    this.setExtraHeld(0);
    this.endTime = this.port.now;
  }

  private setExtraHeld(n: number): void {
    const now = this.port.now;
    if (this.startTime !== undefined)
      this.usedNodeS += (this.minNodeIds.length + this.extraHeld) * (now - this.lastChange);
    this.lastChange = now;
    if (n === this.extraHeld) return;
    this.extraHeld = n;
    this.extraHistory.push({ t: now, nodes: n });
  }

  /** When r_extra would start: now once r_min runs, otherwise r_min's first hole in the non-preemptive view. */
  private extraStartAt(now: number): number {
    if (this.rMin === undefined || this.startTime !== undefined) return now;
    return this.nonPreemptive!.earliestFit(now, this.o.durationS, this.o.minNodes);
  }

  private reconcile(): void {
    if (this.finished || this.view === undefined) return;
    const now = this.port.now;
    const at = this.extraStartAt(now);
    if (!Number.isFinite(at)) return;
    // Decision: it sizes r_extra on what its view offers at that instant, and follows later changes as they come
    // (a future drop wakes it then), rather than on the least the view offers from then on.
    const offered = Math.max(0, Math.floor(this.view.valueAt(at)));
    const rule = this.o.extraRule ?? ((n: number) => n);
    const target = Math.max(0, Math.min(rule(offered), offered, this.o.maxNodes - this.o.minNodes));
    if (target !== this.extraAsked) {
      if (this.extra !== undefined && this.extraStarted && target > 0) {
        // Spontaneous update: the successor keeps the node IDs it still needs, the others are given back now.
        if (target < this.extraHeld) this.setExtraHeld(target);
        this.extra = this.port.update(this.extra, target);
        this.extraStarted = false;
      } else {
        if (this.extra !== undefined) {
          this.port.done(this.extra);
          this.setExtraHeld(0);
        }
        this.extra = target > 0 ? this.submitExtra(target, now) : undefined;
        this.extraStarted = false;
      }
      this.extraAsked = target;
    }
    this.scheduleWakeup(now);
  }

  private submitExtra(n: number, now: number): number {
    const left = this.startTime === undefined ? this.o.durationS : this.startTime + this.o.durationS - now;
    if (this.rMin === undefined) return this.port.request({ n, duration: left, type: 'P' });
    return this.port.request({ n, duration: left, type: 'P', relatedHow: 'COALLOC', relatedTo: this.rMin });
  }

  /** Wakes at the view's next change: a take-back announced ahead of time, or nodes coming back. */
  private scheduleWakeup(now: number): void {
    // A change already known from the last view brings no new views message, so it must look by itself.
    const next = this.view!.times.find((t) => t > now);
    if (next === undefined || next === this.wakeAt) return;
    this.wakeAt = next;
    this.port.at(next, () => {
      if (this.wakeAt !== next) return;
      this.wakeAt = Number.POSITIVE_INFINITY;
      this.reconcile();
    });
  }
}
