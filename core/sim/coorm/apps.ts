// The two applications of the CooRMv2 paper's evaluation (section 5.1), as RMS clients in virtual time: an AMR that
// evolves non-predictably with sure execution (a pre-allocation, then a non-preemptible request it updates to keep
// its target efficiency), and a parameter-sweep application (PSA) that fills what its preemptive view offers.
import type { RequestSpec } from '../../coorm/index.js';
import type { StepFunction } from '../../time/step-function.js';
import { TARGET_EFFICIENCY, nodesForEfficiency, stepDuration, type SpeedupModel, PAPER_SPEEDUP } from './amr.js';
import { TaskBag } from './task-bag.js';

/** What an application may do to the RMS through its session, at the driver's current time. */
export interface SessionPort {
  readonly now: number;
  /** Submits a request on the simulated cluster; returns its id (a refusal is a bug of the model and throws). */
  request(spec: Omit<RequestSpec, 'cid'>): number;
  done(request: number): void;
  /** Spontaneous update of a request to n nodes (NEXT-chained, keeping node IDs); returns the new request. */
  update(request: number, n: number): number;
  /** Announced update: n nodes from announceS seconds on, the current count until then. */
  announce(request: number, n: number, announceS: number): { bridge: number; next: number };
  /** Runs `action` at virtual time `t` (not before now). */
  at(t: number, action: () => void): void;
}

export type AmrMode = 'dynamic' | 'static';

export interface AmrOptions {
  /** Working set per step, MiB. */
  readonly sizesMiB: readonly number[];
  /** Nodes pre-allocated: the user's guess of n_eq times the overcommit factor. */
  readonly preallocation: number;
  /** `static` uses its whole pre-allocation throughout; `dynamic` follows the target efficiency inside it. */
  readonly mode: AmrMode;
  /** 0: spontaneous updates; more: growth announced this many seconds ahead. */
  readonly announceIntervalS: number;
  readonly targetEfficiency?: number;
  readonly model?: SpeedupModel;
}

type AmrUpdate =
  | { readonly kind: 'spontaneous'; readonly request: number; readonly nodes: number }
  | {
      readonly kind: 'announced';
      readonly bridge: number;
      readonly request: number;
      readonly nodes: number;
      readonly effectiveAt: number;
    };

export class AmrApp {
  private step = 0;
  private preallocationRequest: number | undefined;
  private current: number | undefined;
  private pending: AmrUpdate | undefined;
  /** Nodes the running request holds. */
  private held = 0;
  private lastChange = 0;
  private waitingForUpdate = false;
  private started = false;
  usedNodeS = 0;
  updates = 0;
  endTime: number | undefined;
  killedReason: string | undefined;

  constructor(
    private readonly port: SessionPort,
    private readonly o: AmrOptions,
  ) {
    if (!Number.isInteger(o.preallocation) || o.preallocation < 1)
      throw new RangeError(`preallocation must be a whole number >= 1, not ${o.preallocation}`);
  }

  get finished(): boolean {
    return this.endTime !== undefined || this.killedReason !== undefined;
  }

  /** Nodes held now. */
  get nodes(): number {
    return this.held;
  }

  onViews(): void {
    if (this.started) return;
    this.started = true;
    const first = this.wanted(0);
    this.preallocationRequest = this.port.request({
      n: this.o.preallocation,
      duration: Number.POSITIVE_INFINITY,
      type: 'PA',
    });
    const request = this.port.request({ n: first, duration: Number.POSITIVE_INFINITY, type: 'NP' });
    this.pending = { kind: 'spontaneous', request, nodes: first };
    this.waitingForUpdate = true;
  }

  onStarted(request: number): void {
    const p = this.pending;
    if (!p) return;
    if (p.kind === 'announced' && request === p.bridge) {
      // The bridge carries the same node count until the announced growth.
      this.current = p.bridge;
      return;
    }
    if (request !== p.request) return;
    this.setHeld(p.nodes);
    this.current = p.request;
    this.pending = undefined;
    if (this.waitingForUpdate) {
      this.waitingForUpdate = false;
      this.runStep();
    }
  }

  onKilled(reason: string): void {
    this.setHeld(0);
    this.killedReason = reason;
  }

  private wanted(step: number): number {
    if (this.o.mode === 'static') return this.o.preallocation;
    const n = nodesForEfficiency(
      this.o.sizesMiB[step]!,
      this.o.targetEfficiency ?? TARGET_EFFICIENCY,
      this.o.model ?? PAPER_SPEEDUP,
    );
    // Sure execution: never beyond the pre-allocation, where growth is guaranteed.
    return Math.min(n, this.o.preallocation);
  }

  private setHeld(n: number): void {
    const now = this.port.now;
    this.usedNodeS += this.held * (now - this.lastChange);
    this.lastChange = now;
    this.held = n;
  }

  private beginStep(): void {
    if (this.finished) return;
    if (this.step >= this.o.sizesMiB.length) {
      this.finish();
      return;
    }
    const want = this.wanted(this.step);
    // Decision: one update in flight at a time; while an announced growth is pending the AMR steps on what it holds.
    if (this.pending || want === this.held) {
      this.runStep();
      return;
    }
    const old = this.current!;
    this.updates++;
    // Decision: only growth is announced; releasing nodes needs no notice, so shrinking stays spontaneous.
    if (want > this.held && this.o.announceIntervalS > 0) {
      const { bridge, next } = this.port.announce(old, want, this.o.announceIntervalS);
      this.current = undefined;
      this.pending = {
        kind: 'announced',
        bridge,
        request: next,
        nodes: want,
        effectiveAt: this.port.now + this.o.announceIntervalS,
      };
      this.runStep();
      return;
    }
    const request = this.port.update(old, want);
    this.current = undefined;
    this.pending = { kind: 'spontaneous', request, nodes: want };
    // Decision: a step runs on the node count it asked for, so the AMR waits for a spontaneous update to start.
    this.waitingForUpdate = true;
  }

  private runStep(): void {
    const size = this.o.sizesMiB[this.step]!;
    const duration = stepDuration(Math.max(1, this.held), size, this.o.model ?? PAPER_SPEEDUP);
    this.port.at(this.port.now + duration, () => {
      this.step++;
      this.beginStep();
    });
  }

  private finish(): void {
    this.setHeld(0);
    this.endTime = this.port.now;
    const live = new Set<number>();
    // The successor first: ending its predecessor first would start it.
    if (this.pending) live.add(this.pending.request);
    // A pending announced growth means its bridge is still running (the growth starts when the bridge ends).
    if (this.pending?.kind === 'announced') live.add(this.pending.bridge);
    else if (this.current !== undefined) live.add(this.current);
    if (this.preallocationRequest !== undefined) live.add(this.preallocationRequest);
    for (const r of live) this.port.done(r);
    this.pending = undefined;
    this.current = undefined;
  }
}

export interface PsaOptions {
  readonly taskS: number;
}

interface CohortRequest {
  readonly request: number;
  /** Open-ended (done() when its tasks end) or one task long (ends with them). */
  readonly openEnded: boolean;
}

interface PendingPart extends CohortRequest {
  readonly nodes: number;
}

// Decision: each cohort of tasks started together runs on its own preemptible request. Nodes the view offers for good
// are asked open-ended, which tells the RMS the PSA goes on needing them (equi-partitioning stays fair); nodes offered
// only until a known take-back (a hole) are asked for one task's duration, since the RMS fits a request over its
// whole duration.
export class PsaApp {
  readonly bag: TaskBag;
  private view: StepFunction | undefined;
  /** Requests waiting to start a new cohort. */
  private pending: PendingPart[] = [];
  /** Cohort id -> the request its tasks run on (changes when a kill shrinks it). */
  private readonly requestOf = new Map<number, CohortRequest>();
  private nextCohort = 1;
  private wakeAt = Number.POSITIVE_INFINITY;
  private readonly ended: number[] = [];
  /** request() and done() calls sent. */
  messages = 0;
  killedReason: string | undefined;

  constructor(
    private readonly port: SessionPort,
    private readonly o: PsaOptions,
  ) {
    this.bag = new TaskBag(o.taskS);
  }

  onViews(preemptive: StepFunction): void {
    this.view = preemptive;
    this.reconcile();
  }

  onStarted(request: number, nodes: number): void {
    // Successors of shrunk cohorts start too; only a new cohort's request matters here.
    const part = this.pending.find((p) => p.request === request);
    if (!part || this.killedReason !== undefined) return;
    this.pending = this.pending.filter((p) => p !== part);
    const now = this.port.now;
    this.completeEnded(now);
    const count = Math.max(0, Math.min(nodes, this.availableAt(now) - this.bag.running));
    if (count === 0) {
      this.done(request);
    } else {
      const cohort = this.nextCohort++;
      this.bag.start(now, count, cohort);
      this.requestOf.set(cohort, {
        request: count < nodes ? this.shrink(request, count) : request,
        openEnded: part.openEnded,
      });
    }
    this.reconcile();
  }

  onKilled(reason: string): void {
    this.bag.kill(this.port.now, this.bag.running);
    this.requestOf.clear();
    this.pending = [];
    this.killedReason = reason;
  }

  /** Ends the tasks due by now; open-ended requests of finished cohorts are closed. */
  private completeEnded(now: number): void {
    this.bag.completeUntil(now, this.ended);
    for (const cohort of this.ended) {
      const r = this.requestOf.get(cohort);
      if (r?.openEnded) this.done(r.request);
      this.requestOf.delete(cohort);
    }
    this.ended.length = 0;
  }

  private availableAt(t: number): number {
    return Math.max(0, Math.floor(this.view!.valueAt(t)));
  }

  /** Nodes it can keep from now until `until` (Infinity: for good, as far as the view tells). */
  private keepableUntil(now: number, until: number): number {
    return Math.max(0, Math.floor(this.view!.minOver(now, until)));
  }

  private reconcile(): void {
    if (this.killedReason !== undefined || !this.view) return;
    const now = this.port.now;
    this.completeEnded(now);
    const availableNow = this.availableAt(now);
    if (this.bag.running > availableNow) {
      // Told to give nodes back at once: the youngest tasks lose the least work.
      for (const c of this.bag.kill(now, this.bag.running - availableNow).cohorts) {
        const r = this.requestOf.get(c.tag)!;
        if (c.left === 0) {
          this.done(r.request);
          this.requestOf.delete(c.tag);
        } else {
          this.requestOf.set(c.tag, { request: this.shrink(r.request, c.left), openEnded: r.openEnded });
        }
      }
    }
    // A new cohort on whatever more a whole task can keep: for good where the view allows, in a hole otherwise.
    const running = this.bag.running;
    const keep = Math.min(availableNow, this.keepableUntil(now, now + this.o.taskS));
    const more = Math.max(0, keep - running);
    const forGood = Math.min(more, Math.max(0, this.keepableUntil(now, Number.POSITIVE_INFINITY) - running));
    const wanted = [
      { nodes: forGood, openEnded: true },
      { nodes: more - forGood, openEnded: false },
    ].filter((w) => w.nodes > 0);
    const same =
      wanted.length === this.pending.length &&
      wanted.every((w, i) => this.pending[i]!.nodes === w.nodes && this.pending[i]!.openEnded === w.openEnded);
    if (!same) {
      for (const p of this.pending) this.done(p.request);
      this.pending = wanted.map((w) => {
        this.messages++;
        const request = this.port.request({
          n: w.nodes,
          duration: w.openEnded ? Number.POSITIVE_INFINITY : this.o.taskS,
          type: 'P',
        });
        return { request, nodes: w.nodes, openEnded: w.openEnded };
      });
    }
    this.scheduleWakeup();
  }

  private done(request: number): void {
    this.messages++;
    this.port.done(request);
  }

  private shrink(request: number, nodes: number): number {
    this.messages += 2;
    return this.port.update(request, nodes);
  }

  /** Wakes the PSA at its next task end, or earlier where its view drops below its running tasks (an announced take-back). */
  private scheduleWakeup(): void {
    const now = this.port.now;
    let next = this.bag.nextCompletion();
    if (this.bag.running > 0) {
      const drop = this.view!.firstTimeBelow(now, this.bag.running);
      if (drop > now && drop < next) next = drop;
    }
    if (next === this.wakeAt || !Number.isFinite(next)) return;
    this.wakeAt = next;
    this.port.at(next, () => {
      if (this.wakeAt !== next) return;
      this.wakeAt = Number.POSITIVE_INFINITY;
      this.reconcile();
    });
  }
}
