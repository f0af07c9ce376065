// The contract between live mode's two halves: runners/live builds a world of real clusters behind the core's
// ports (LiveWorld); the host (electron/) configures it, persists it and serves it. Neither side changes this file
// without the other.
import { z } from 'zod';
import type { SchedulerEvent } from '../../core/events.js';
import { storedJobSpecSchema } from '../../core/model/schemas.js';
import type { Scheduler } from '../../core/scheduler/scheduler.js';
import type { AppEvent } from '../protocol/application-port.js';

export {
  BATCH_SYSTEMS,
  liveClusterSchema,
  loginSchema,
  type ConnectionTest,
  type LiveClusterConfig,
} from './config.js';

export interface LiveClusterState {
  readonly name: string;
  readonly connection: 'connecting' | 'open' | 'lost' | 'closed';
  readonly lastError?: string;
  /**
   * The cluster's own figures where the grid's differ: a cluster not reached at start is in the grid with a
   * placeholder size (all zeros here until it joins), and one whose size changed later keeps its first.
   */
  readonly capacity?: { readonly processors: number; readonly threshold: number; readonly background: number };
}

/**
 * What a live world needs to resume after a console restart, as plain JSON: the host stores the latest
 * `LiveWorld.persistentState()` (e.g. after every job event) and passes it back as `restore` to the next world.
 * Jobs that ended are not in it (the host has their events); every job accepted and not ended is.
 */
export const livePersistentJobSchema = z.strictObject({
  /** The job's spec, its `id` set. */
  spec: storedJobSpecSchema,
  /** Scheduler time of its submission. */
  submitTime: z.number(),
  /** Handed to a cluster's batch system: recovered from there by its tag, never submitted again. */
  launched: z.boolean(),
  cluster: z.string().optional(),
  /** Processors it held when the state was taken. */
  processors: z.number().int().min(0).optional(),
  startTime: z.number().optional(),
  /** The highest from-app.jsonl seq handled (malleable jobs). */
  lastSeq: z.number().int().min(0).optional(),
  /** Evolving: the size its last update asked for, when not yet in effect (asked again once it is adopted). */
  updateTarget: z.number().int().min(0).optional(),
  /**
   * Malleable: the most the policies may grow it to, when an operator's shrink set it below its max (restored on
   * adoption, so that the shrink sticks across a restart). Decision: an optional field of version 1, not a new
   * version: every state stored before it reads the same (no cap: the job's max).
   */
  cap: z.number().int().min(0).optional(),
  /**
   * A profiled (FPE) job's step (0-based) and when that step began: the adopted job goes on with its profile from it.
   * `planned`: that step and the ones after it as planned (its scheduled EP: an expanded step lasts longer than
   * requested), so that the adopted job keeps its expansions. Decision: optional, as `cap` (a state stored before it
   * adopts its job at the requested lengths). `growFailures`: its failed grows of the step they are for, so that a
   * restart does not give it a fresh set of attempts (absent: none). `retryAt`: after a failed grow, when it is asked
   * again (the scheduler's time), so that a restart does not ask for it at once (absent: no wait).
   */
  step: z
    .strictObject({
      index: z.number().int().min(0),
      start: z.number(),
      planned: z
        .array(z.strictObject({ durationS: z.number().min(0), processors: z.number().int().min(0) }))
        .optional(),
      growFailures: z.number().int().min(0).optional(),
      retryAt: z.number().optional(),
    })
    .optional(),
});
export const livePersistentStateSchema = z.strictObject({
  version: z.literal(1),
  /** Wall-clock milliseconds (Date.now()) at the run's time 0: the restored world's clock goes on from there. */
  epochMs: z.number(),
  /** Jobs ever submitted in this run (generated ids go on after it). */
  submitted: z.number().int().min(0),
  /**
   * The run's id, chosen at random when it started: its local jobs carry the tag `<tag>-<runId>`, so a resumed run
   * finds its own jobs again and no other run's. Absent in states stored before run ids: that run's tag is `<tag>`.
   */
  runId: z
    .string()
    .regex(/^[a-z0-9]{1,16}$/, 'must be 1 to 16 lower-case letters and digits')
    .optional(),
  jobs: z.array(livePersistentJobSchema),
});
export type LivePersistentJob = z.infer<typeof livePersistentJobSchema>;
export type LivePersistentState = z.infer<typeof livePersistentStateSchema>;

/** An application's own report (hello, progress, done), with the cluster it runs on. */
export type LiveAppEvent = AppEvent & { readonly cluster: string; readonly t: number };

/** A scheduler over real clusters, in wall-clock time (seconds). */
export interface LiveWorld {
  readonly scheduler: Scheduler;
  /** Seconds since the run began (the scheduler's time). */
  now(): number;
  /** Connects, recovers Concertina's jobs from each manager by tag, and starts polling. */
  start(): Promise<void>;
  /** Stops polling and closes connections; jobs keep running on the clusters. */
  stop(): Promise<void>;
  clusters(): LiveClusterState[];
  /**
   * Runs a command on the scheduler at the current time (submit, cancel, resize, settings) and re-arms the
   * world's timer for the scheduler's next wakeup. Every host command goes through here.
   */
  act<T>(command: (scheduler: Scheduler, now: number) => T): T;
  on(listener: (event: SchedulerEvent) => void): () => void;
  /** What to store to resume after a restart (see LivePersistentState); valid after start(). */
  persistentState(): LivePersistentState;
  /** Applications' hello, progress and done messages. */
  onApplication(listener: (event: LiveAppEvent) => void): () => void;
  /** Jobs found on the clusters at start() and what became of them (adopted, ended meanwhile, queued again). */
  recovered(): readonly RecoveryOutcome[];
  /** Where the SDK and the demo applications are on a cluster (`<workRoot>/assets` when staged). */
  assetsDir?(cluster: string): string | undefined;
  /**
   * Copies the SDK and the applications again where a cluster's copy differs (on demand; start() does it once), on
   * every cluster in the run or only `cluster` (none when it is not in the run or its assets are not staged).
   */
  stageAssets?(
    cluster?: string,
  ): Promise<
    readonly { readonly dir: string; readonly copied: readonly string[]; readonly unchanged: readonly string[] }[]
  >;
}

export interface RecoveryOutcome {
  readonly jobId: string;
  readonly cluster?: string;
  /** `adopted`: running or starting there; `ended`: ended while the console was away; `requeued`: never launched. */
  readonly outcome: 'adopted' | 'ended' | 'requeued' | 'refused';
  readonly detail: string;
}
