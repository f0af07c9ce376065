// A simulated worker node: one processor running the instances released to it under preemptive EDF (earliest
// absolute deadline first; ties to the earlier release, then to the order of release). It measures what the paper's
// nodes monitor: each instance's execution time, its completion against its deadline, and when it goes idle.
import { Heap } from './heap.js';

export interface Instance {
  readonly jobId: string;
  readonly taskIndex: number;
  readonly generation: number;
  readonly releaseMs: number;
  readonly deadlineAtMs: number;
  /** C of the task (the budget the head planned). */
  readonly costMs: number;
  /** What this instance really needs (ms); more than C is an overrun. */
  readonly demandMs: number;
  readonly seq: number;
  executedMs: number;
}

export interface Completion {
  readonly instance: Instance;
  readonly finishMs: number;
  readonly missed: boolean;
  /** Since the node was last idle, some instance ran beyond its C (so a miss here may be the overrun's doing). */
  readonly afterOverrun: boolean;
}

const edfBefore = (a: Instance, b: Instance) =>
  a.deadlineAtMs !== b.deadlineAtMs
    ? a.deadlineAtMs < b.deadlineAtMs
    : a.releaseMs !== b.releaseMs
      ? a.releaseMs < b.releaseMs
      : a.seq < b.seq;

export class EdfWorker {
  /** The node's clock: everything before it has been executed. */
  timeMs = 0;
  busyMs = 0;
  private readonly ready = new Heap<Instance>(edfBefore);
  private overrunSinceIdle = false;

  constructor(readonly id: number) {}

  /** Whether an instance ran beyond its C since the node was last idle. */
  get tainted(): boolean {
    return this.overrunSinceIdle;
  }

  get pending(): number {
    return this.ready.size;
  }

  pendingInstances(): readonly Instance[] {
    return this.ready.values();
  }

  /** Adds an instance released now (the worker must have been advanced to its release). */
  release(instance: Instance): void {
    if (instance.releaseMs !== this.timeMs)
      throw new Error(`worker ${this.id} at ${this.timeMs} ms got a release at ${instance.releaseMs} ms`);
    this.ready.push(instance);
  }

  /** The job's instances are gone (its application stopped, its task processes with it); returns how many. */
  drop(jobId: string): number {
    return this.ready.removeWhere((instance) => instance.jobId === jobId);
  }

  /** When the running instance completes if nothing else is released, or undefined when idle. */
  nextCompletionMs(): number | undefined {
    const top = this.ready.peek();
    return top ? this.timeMs + (top.demandMs - top.executedMs) : undefined;
  }

  /** Runs EDF up to `toMs`, reporting each completion and each instant the node becomes idle. */
  advance(toMs: number, onComplete: (c: Completion) => void, onIdle: (atMs: number) => void): void {
    while (this.timeMs < toMs) {
      const top = this.ready.peek();
      if (!top) {
        this.timeMs = toMs;
        return;
      }
      const remaining = top.demandMs - top.executedMs;
      const run = Math.min(remaining, toMs - this.timeMs);
      top.executedMs += run;
      this.timeMs += run;
      this.busyMs += run;
      if (top.executedMs > top.costMs) this.overrunSinceIdle = true;
      if (run === remaining) {
        this.ready.pop();
        onComplete({
          instance: top,
          finishMs: this.timeMs,
          missed: this.timeMs > top.deadlineAtMs,
          afterOverrun: this.overrunSinceIdle,
        });
        if (this.ready.size === 0) {
          this.overrunSinceIdle = false;
          onIdle(this.timeMs);
        }
      }
    }
  }
}
