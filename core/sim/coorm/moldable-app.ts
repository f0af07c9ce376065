// A moldable application (CooRMv2 paper, section 4): it waits for its non-preemptive view, picks one
// non-preemptible request with a resource-selection rule, and picks again (updating its request) whenever a new
// view arrives before it has started.
import type { StepFunction } from '../../time/step-function.js';
import type { AppPort, CoormClient } from './app-driver.js';

export interface MoldableOptions {
  readonly minNodes: number;
  readonly maxNodes: number;
  /** Run time on n nodes, seconds (the application's own speed-up model). */
  readonly runtimeS: (nodes: number) => number;
}

export interface MoldableChoice {
  readonly nodes: number;
  /** Estimated start and end, read from the view. */
  readonly startS: number;
  readonly endS: number;
}

/**
 * The selection rule: the node count in [min, max] with the earliest estimated end, where a count's start is the
 * first hole of the view that holds it for its whole run. Decision: ties go to fewer nodes (less area).
 */
export function chooseMoldable(view: StepFunction, now: number, o: MoldableOptions): MoldableChoice | undefined {
  let best: MoldableChoice | undefined;
  for (let n = o.minNodes; n <= o.maxNodes; n++) {
    const runtime = o.runtimeS(n);
    const startS = view.earliestFit(now, runtime, n);
    if (!Number.isFinite(startS)) continue;
    const endS = startS + runtime;
    if (best === undefined || endS < best.endS) best = { nodes: n, startS, endS };
  }
  return best;
}

export class MoldableApp implements CoormClient {
  private request: number | undefined;
  /** Every choice it made, the first one and each change. */
  readonly choices: Array<MoldableChoice & { at: number }> = [];
  startTime: number | undefined;
  endTime: number | undefined;
  nodeIds: readonly number[] = [];
  killedReason: string | undefined;

  constructor(
    private readonly port: AppPort,
    private readonly o: MoldableOptions,
  ) {
    if (!Number.isInteger(o.minNodes) || o.minNodes < 1)
      throw new RangeError(`minNodes must be a whole number >= 1, not ${o.minNodes}`);
    if (!Number.isInteger(o.maxNodes) || o.maxNodes < o.minNodes)
      throw new RangeError(`maxNodes must be a whole number >= minNodes, not ${o.maxNodes}`);
  }

  get finished(): boolean {
    return this.endTime !== undefined || this.killedReason !== undefined;
  }

  /** The node count it asks for now (undefined before its first view). */
  get chosenNodes(): number | undefined {
    return this.choices.at(-1)?.nodes;
  }

  start(): void {}

  onViews(nonPreemptive: StepFunction): void {
    if (this.startTime !== undefined || this.finished) return;
    const choice = chooseMoldable(nonPreemptive, this.port.now, this.o);
    // Decision: a view where nothing fits (not even later) keeps the current request; the RMS will still place it.
    if (choice === undefined) return;
    if (this.request !== undefined && choice.nodes === this.chosenNodes) return;
    // Its own waiting request is not in its view, so withdrawing and re-submitting changes nothing else.
    if (this.request !== undefined) this.port.done(this.request);
    this.request = this.port.request({ n: choice.nodes, duration: this.o.runtimeS(choice.nodes), type: 'NP' });
    this.choices.push({ ...choice, at: this.port.now });
  }

  onStarted(request: number, nodeIds: readonly number[], startedAt: number): void {
    if (request !== this.request || this.startTime !== undefined) return;
    this.startTime = this.port.now;
    this.nodeIds = nodeIds;
    // The request lasts exactly its run time, so the RMS ends it by itself.
    this.port.at(Math.max(this.port.now, startedAt + this.o.runtimeS(nodeIds.length)), () => {
      this.endTime = this.port.now;
    });
  }

  onKilled(reason: string): void {
    this.killedReason = reason;
  }
}
