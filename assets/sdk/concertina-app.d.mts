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
  onShrink?(processors: number, mandatory: boolean, app: ConcertinaApp, details: { deadline: number | undefined }): number | Promise<number>;
  /** The number of processors to use from now on changed; adapt before this resolves. */
  onResized?(size: number, app: ConcertinaApp): void | Promise<void>;
  /** Concertina refused the last update (the size stays what Concertina holds); why. */
  onRefused?(reason: string, app: ConcertinaApp): void | Promise<void>;
  /**
   * A shrink with a deadline is released at the first safe point at most this many ms before it, the processors
   * being used until then. Default: released at the safe point that answers it.
   */
  releaseBeforeDeadlineMs?: number;
  /** Background read of to-app.jsonl, in ms (default 500). */
  pollMs?: number;
  /** Progress lines at most this often, in ms (default 1000). */
  progressIntervalMs?: number;
}

export declare function connect(options?: ConnectOptions): Promise<ConcertinaApp>;

export declare class ConcertinaApp {
  /** Processors the application uses now. */
  readonly size: number;
  /** Its size plus accepted grows not yet active. */
  readonly target: number;
  readonly min: number;
  readonly max: number;
  readonly stopRequested: boolean;
  readonly stopReason: string | undefined;
  /** Why the last update was refused (undefined: none was). */
  readonly refusal: string | undefined;
  /** Processors agreed to be given back but kept in use until their shrink's deadline comes near. */
  readonly releasing: number;
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
  done(ok: boolean, note?: string): void;
  close(): void;
}
