// Types of concertina-app.mjs, for applications (and tests) written in TypeScript.

export declare const SDK_NAME: string;

export interface ConnectOptions {
  /** The job's directory (default: CONCERTINA_JOB_DIR). */
  dir?: string;
  /** Processors at start (default: CONCERTINA_SIZE). */
  size?: number;
  /** Default: CONCERTINA_MIN, else 1. */
  min?: number;
  /** Default: CONCERTINA_MAX, else size. */
  max?: number;
  /** How many of `processors` more to take (clamped to the offer and to max); default: all that fit. */
  onOffer?(processors: number, app: ConcertinaApp): number | Promise<number>;
  /**
   * How many to give back (may be more than asked, never below min); default: as asked. `deadline`: wall-clock
   * milliseconds since the epoch by which they must be released (a shrink ahead of an evolving job's announced update).
   */
  onShrink?(
    processors: number,
    mandatory: boolean,
    app: ConcertinaApp,
    details: { deadline: number | undefined },
  ): number | Promise<number>;
  /** The number of processors to use from now on changed; adapt before this resolves. */
  onResized?(size: number, app: ConcertinaApp): void | Promise<void>;
  /** Concertina refused the last update (the size stays what Concertina holds); why. */
  onRefused?(reason: string, app: ConcertinaApp): void | Promise<void>;
  /** An interactive job's periodic tasks, at start and after each re-placement. */
  onTasks?(tasks: InteractiveTasks, app: ConcertinaApp): void | Promise<void>;
  /**
   * A shrink with a deadline is released at the first safe point at most this many ms before it, the processors
   * being used until then. Default: released at the safe point that answers it.
   */
  releaseBeforeDeadlineMs?: number;
  /** Background read of to-app.jsonl, in ms (default 500). */
  pollMs?: number;
  /** Progress lines at most this often, in ms (default 1000). */
  progressIntervalMs?: number;
  /**
   * How long to wait for the slot files of processors in use (at connect and after a grow), in ms. Default: 15000
   * when run by Concertina's batch manager (CONCERTINA_MEMBER set), else 0.
   */
  slotWaitMs?: number;
}

/** A processor the application holds besides itself: a size-1 local job running the slot stub. */
export interface Slot {
  /** Its id (m1, m2, ...: `m` and the local job's member index). */
  readonly slot: string;
  readonly host: string;
  /** The stub's pid (on `host`). */
  readonly pid: number;
  /** The member index (Infinity for an id not of the form m<N>). */
  readonly member: number;
}

export interface RecruitOptions {
  /** More environment variables (the stub also exports CONCERTINA_JOB_DIR and CONCERTINA_SLOT). */
  env?: Record<string, string>;
  /** Where it runs (default: the job directory, the stub's). */
  cwd?: string;
}

/** A process started on a slot, as the child of its stub. */
export interface Recruited {
  readonly slot: string;
  /** The request's token (as in slots/<id>.exit). */
  readonly run: string;
  /**
   * Its exit status (over 128: killed by signal status - 128), or null when it never ran or its stub let the slot go.
   */
  readonly exited: Promise<number | null>;
  /** Like exited, but its looks alone do not keep the process alive. */
  watch(): Promise<number | null>;
  /** SIGTERM through the stub (withdrawn if not started yet), SIGKILL after graceMs (default 5000); resolves as exited. */
  stop(options?: { graceMs?: number }): Promise<number | null>;
}

export interface WorkerPoolOptions {
  /** The worker program and its arguments; the program must call serveSlot(). */
  argv: string[];
  env?: Record<string, string>;
  /** A worker asked to finish that has not ended after this is stopped through its stub (default 5000 ms). */
  stopGraceMs?: number;
}

export interface SlotWorker {
  readonly slot: string;
  readonly host: string;
  /** Its pid, once it has answered a task. */
  readonly pid: number | undefined;
  /** Tasks it has answered. */
  readonly tasks: number;
  /** Its process has ended. */
  readonly ended: boolean;
  /** Hands it a task (JSON-serialisable); resolves with its handler's value, rejects if it fails or ends. */
  call<T = unknown>(task: unknown): Promise<T>;
}

export interface WorkerPool {
  /** One per held slot, in member order (fewer while slot files lag, or where a worker ended on its own). */
  readonly workers: readonly SlotWorker[];
  /** Recruits workers on the held slots that have none and stops those on slots given back; call from onResized. */
  update(): Promise<void>;
  close(): Promise<void>;
}

/** The worker side of a WorkerPool: answers work/<slot>/task-<n>.json with handler's value until asked to stop. */
export declare function serveSlot<T = unknown>(
  handler: (task: T) => unknown,
  options?: { dir?: string; slot?: string },
): Promise<void>;

/** `text` as one single-quoted sh word. */
export declare function shellQuote(text: string): string;

export declare function connect(options?: ConnectOptions): Promise<ConcertinaApp>;

export declare class ConcertinaApp {
  /** Processors the application uses now. */
  readonly size: number;
  /** Its size plus accepted grows not yet active (less what a `granted` message cut from them). */
  readonly target: number;
  readonly min: number;
  readonly max: number;
  readonly stopRequested: boolean;
  readonly stopReason: string | undefined;
  /** Why the last update was refused (undefined: none was). */
  readonly refusal: string | undefined;
  /** An interactive job's tasks as Concertina last placed them. */
  readonly tasks: InteractiveTasks | undefined;
  /** Processors agreed to be given back but kept in use until their shrink's deadline comes near. */
  readonly releasing: number;
  /** The job's directory. */
  readonly dir: string;
  /** The slots held besides this process: the first size - 1 in member order; the last are given back first. */
  slots(): Slot[];
  /** Starts argv (program, arguments) on a held slot through its stub; one process per slot at a time. */
  recruit(slot: Slot | string, argv: string[], options?: RecruitOptions): Recruited;
  /** Worker processes on the held slots, fed tasks through files in the job directory. */
  workerPool(options: WorkerPoolOptions): WorkerPool;
  /** Waits (up to slotWaitMs) for the slot files of the processors in use; connect() and grows do it. */
  claimSlots(): Promise<void>;
  /** A safe point: handles Concertina's messages since the last one (see the module's comment). */
  sync(): Promise<void>;
  progress(fraction: number, note?: string): void;
  /**
   * An evolving application asks for a new total size within min..max (announceS > 0: a grow wanted that many seconds
   * from now). A smaller size is let go (onResized) before the update is sent. Resolves with whether one was sent;
   * throws a RangeError on a size outside min..max or an announced shrink.
   */
  update(processors: number, options?: { announceS?: number }): Promise<boolean>;
  /** Gives back processors on its own initiative; resolves with how many were released. */
  release(processors: number): Promise<number>;
  /** An interactive job's task ended an instance `executedMs` after its release (`missed`: past its deadline). */
  iteration(task: number, executedMs: number, missed: boolean, generation?: number): void;
  done(ok: boolean, note?: string): void;
  close(): void;
}

/** An interactive job's periodic tasks (the protocol's `tasks` message). */
export interface InteractiveTasks {
  readonly generation: number;
  /** The worker node of each task. */
  readonly nodes: readonly number[];
  readonly costMs: number;
  readonly periodMs: number;
  readonly deadlineMs: number;
  readonly dataUnits: number;
  /** Each task's share of dataUnits (RT-DLT's fractions). */
  readonly fractions: readonly number[];
}
