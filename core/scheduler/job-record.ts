// A job as the scheduler tracks it while it lives: spec, state history, placement, and a malleable job's sizes.
import type { PlacedComponent } from '../events.js';
import { componentRequest, FINAL_STATES, type JobKind, type JobState, type Transition } from '../model/job.js';
import type { JobSpec } from '../model/schemas.js';
import type { PlacementPolicy } from '../placement/policy.js';

export class JobRecord {
  readonly id: string;
  readonly spec: JobSpec;
  readonly kind: JobKind;
  /** Bounds of the first component; malleable and moldable jobs have only one. */
  readonly min: number;
  readonly max: number;
  readonly transitions: Transition[] = [];
  state: JobState = 'submitted';
  tries = 0;
  private failure = '';
  /** A "no cluster has enough" failure is kept as two numbers and worded only when read (it is the common one). */
  private failureNeed = 0;
  private failureMost = -1;
  /** Where it was placed, and with how many processors per component (the start size). */
  components: PlacedComponent[] = [];
  /** Cluster index of a single-cluster job once placed; -1 before. */
  clusterIndex = -1;
  startTime = Number.NaN;
  /** Handed to the local managers (after the claim). */
  launched = false;
  /** Components whose local job has started. */
  startedComponents = 0;
  /** Processors placed but whose local jobs have not started yet. */
  claimed = 0;
  /** Processors active in the application (malleable: changes over time). */
  size = 0;
  /** Grown processors accepted by the application but not yet active. */
  pendingGrow = 0;
  /** Processors the application has agreed to give back but not yet released. */
  releasing = 0;
  /**
   * Most processors the policies may grow it to: its max, or less after an operator shrank it. Decision: an
   * operator's shrink sticks (PRA would otherwise grow the job straight back into what it gave up); an operator's
   * grow lifts the cap again.
   */
  cap: number;
  /** Placed whole on one cluster (not split by flexible cluster minimization, not co-allocated). */
  readonly singleCluster: boolean;
  /** Order of arrival in the grid, for deterministic tie-breaks. */
  readonly seq: number;

  constructor(
    spec: JobSpec,
    id: string,
    seq: number,
    now: number,
    readonly placementPolicy: PlacementPolicy,
  ) {
    this.id = id;
    this.spec = spec;
    this.kind = spec.kind;
    this.seq = seq;
    const request = componentRequest(spec, 0);
    this.min = request.min;
    this.max = request.max;
    this.cap = request.max;
    this.singleCluster = spec.components.length === 1 && !(spec.placement === 'fcm' && spec.kind === 'rigid');
    this.transitions.push({ state: 'submitted', time: now, reason: 'submitted' });
  }

  /** Why the last placement try failed. */
  get lastFailure(): string {
    if (this.failureMost >= 0) {
      this.failure = `no cluster has ${this.failureNeed} processors available (most: ${this.failureMost})`;
      this.failureMost = -1;
    }
    return this.failure;
  }

  set lastFailure(reason: string) {
    this.failure = reason;
    this.failureMost = -1;
  }

  /** Records a try that failed because no cluster had `need` processors free (`most` at best). */
  tooLarge(need: number, most: number): void {
    this.failureNeed = need;
    this.failureMost = most;
  }

  get malleable(): boolean {
    return this.kind === 'malleable';
  }

  get ended(): boolean {
    return FINAL_STATES.has(this.state);
  }

  /** Clusters (by index) where the job waits for processors that mandatory shrinks release for it. */
  waitingOn: number[] = [];

  /** Processors Concertina holds for the job: placed, active, and being added. */
  get held(): number {
    return this.claimed + this.size + this.pendingGrow;
  }

  /** Processors a mandatory shrink may still take from it. */
  get shrinkable(): number {
    return this.state === 'running' && this.malleable ? Math.max(0, this.held - this.releasing - this.min) : 0;
  }

  /** Processors a grow offer may still add. */
  get growable(): number {
    return this.state === 'running' && this.malleable ? Math.max(0, this.cap - this.held) : 0;
  }

  transition(state: JobState, time: number, reason: string): void {
    this.state = state;
    this.transitions.push({ state, time, reason });
  }
}
