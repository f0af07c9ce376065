// What the host's services share: the run they act on (its world, its scheduler, its store and what is recorded of
// it). The host implements it; each service takes it and serves its own methods.
import type { SchedulerEvent } from '../../../core/events.js';
import type { Scheduler } from '../../../core/scheduler/scheduler.js';
import type { SimWorld } from '../../../core/sim/world.js';
import type { RunStatus } from '../../api/contract.js';
import type { Handlers } from '../../api/dispatcher.js';
import type { RunConfig, Store, StoredCommand } from '../../store/store.js';
import type { FinishedJobs } from '../finished-jobs.js';
import type { HostModeMachine } from '../mode.js';
import type { RecentJobEvents } from '../recent-job-events.js';

/** A refusal naming the field (or '' for the whole call). */
export interface Refusal {
  ok: false;
  errors: Array<{ path: string; message: string }>;
}

export const refused = (path: string, message: string): Refusal => ({ ok: false, errors: [{ path, message }] });

/** The handlers a service serves: part of the dispatcher's table. */
export type ServiceHandlers<M extends keyof Handlers> = Pick<Handlers, M>;

export interface HostRun {
  readonly store: Store | undefined;
  /** Which world serves the run (./mode.ts). */
  readonly mode: HostModeMachine;
  /** The simulated world (idle under a live run); a new run replaces it. */
  readonly world: SimWorld;
  /** The run's scheduler: the live world's in a live run, else the simulated one's. */
  readonly scheduler: Scheduler;
  /** Where the stored run stands: running, being resumed from the store, not resumable, or read-only. */
  readonly status: RunStatus;
  /** Ended jobs that left the scheduler's memory once stored. */
  readonly finished: FinishedJobs;
  /** Without a store: the recent job events (jobs.events). */
  readonly recentEvents: RecentJobEvents;
  /** Counts the runs this host has opened (a reset opens another). */
  readonly runNumber: number;
  /** The run's time: seconds since a live run began, or the simulation's virtual time. */
  now(): number;
  /** Runs a command on the run's scheduler at its current time (through the live world, which re-arms its timer). */
  act<T>(command: (scheduler: Scheduler, now: number) => T): T;
  /** Virtual time brought up to the wall clock before a command (Host.catchUp). */
  catchUp(): void;
  /** Writes what is not stored yet, with `command` (Host.flush). */
  flush(command?: StoredCommand, final?: boolean): boolean;
  /** Keeps an operator's command with the run, so that a resumed run replays it. */
  record(key: string, value: unknown): void;
  /** Why a method that changes the run cannot be served now (the stored run resumed, unresumable, read-only). */
  refusal(method: string): Refusal | undefined;
  /** Builds the world of a run and makes it current (Host.open). */
  open(run: RunConfig, how?: { beforeSwitch?: () => void }): void;
  /** Before the store drops a run not resumed: a copy of it (its path); the status is running again. */
  keepUnresumedRun(): string | undefined;
  /** Makes `scheduler` the run's: its events recorded, streamed and charted (Host.follow). */
  follow(scheduler: Pick<Scheduler, 'on'>, o: { stored: number; replaying: boolean; resumed: boolean }): void;
  /** Events a resumed live world emitted while it started, kept now that it is the run's. */
  adopt(events: readonly SchedulerEvent[]): void;
}
