// What a BatchLocalManager tracks: Concertina's jobs on its cluster, each a set of components, each component a
// list of members (local jobs of the batch system: one for a rigid component, one per processor for a malleable
// one), with each member's phase from queued to ended.
import type { LocalJobSpec, LocalState } from './batch-system.js';
import { jobDirName, localJobName, type MemberKind } from './naming.js';

/** A job found by `recover()`: Concertina's by its tag, with what the batch system says of its local jobs. */
export interface RecoveredJob {
  readonly jobId: string;
  readonly component: number;
  readonly kind: MemberKind;
  /** Local jobs found, how many of them run, and how many wait to start (a grow under way, once the job runs). */
  readonly members: number;
  readonly running: number;
  readonly pending: number;
  /**
   * `running` when any local job runs, `pending` when all wait, else how the program's local job ended (not
   * tracked further; `failed` when it is no longer listed at all).
   */
  readonly state: LocalState;
}

export type Phase = 'queued' | 'submitting' | 'unsure' | 'pending' | 'running' | 'ended';

export interface Member {
  readonly job: TrackedJob;
  readonly component: Component;
  readonly index: number;
  readonly name: string;
  readonly spec: LocalJobSpec;
  readonly grow: boolean;
  phase: Phase;
  id?: string;
  /** Counted by the scheduler (in `started` or `grown`). */
  announced: boolean;
  /** The members one grow asked for together: announced together, once all of them that still live run. */
  growBatch?: Member[];
  /** Cancelled by Concertina (shrink or cancel): its end is expected. */
  released: boolean;
  /** When it was submitted, and when given back (the manager's monotonic ms). */
  submittedAtMs?: number;
  releasedAtMs?: number;
  missingRounds: number;
  /** Status rounds since it was given back and still seen alive. */
  sinceCancel: number;
  deleting: boolean;
}

export interface Component {
  readonly index: number;
  readonly kind: MemberKind;
  readonly members: Member[];
  /** Members submitted at the start (a malleable job's initial size). */
  initial: number;
  started: boolean;
  completed: boolean;
}

export interface TrackedJob {
  readonly jobId: string;
  readonly components: Map<number, Component>;
  finished: boolean;
  cancelling: boolean;
  /** The job's walltime, given to each of its local jobs. */
  walltimeS?: number;
}

/** A member's name and where its files go: `<workRoot>/<job dir>/<name>.{out,err,exit}`. */
export function memberFiles(
  where: { readonly tag: string; readonly workRoot: string },
  jobId: string,
  component: number,
  kind: MemberKind,
  member: number,
): Pick<LocalJobSpec, 'name' | 'workDir' | 'stdoutFile' | 'stderrFile' | 'exitFile'> {
  const name = localJobName({ tag: where.tag, jobId, component, kind, member });
  return {
    name,
    workDir: `${where.workRoot}/${jobDirName(where.tag, jobId)}`,
    stdoutFile: `${name}.out`,
    stderrFile: `${name}.err`,
    exitFile: `${name}.exit`,
  };
}

export function membersOf(job: TrackedJob): Member[] {
  return [...job.components.values()].flatMap((c) => c.members);
}

/** Processors a component holds for the scheduler. */
export function held(c: Component): number {
  return c.members
    .filter((m) => m.announced && !m.released && m.phase !== 'ended')
    .reduce((sum, m) => sum + m.spec.processors, 0);
}

/** Members whose local job may be listed: submitted (or maybe submitted) and not known to have ended. */
export function watchedMembers(jobs: Iterable<TrackedJob>): Member[] {
  const out: Member[] = [];
  for (const job of jobs)
    for (const m of membersOf(job))
      if (m.phase === 'pending' || m.phase === 'running' || m.phase === 'unsure') out.push(m);
  return out;
}
