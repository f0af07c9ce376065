// The core's LocalManager over one batch system and one CommandRunner. It submits tagged local jobs, watches them
// with the adapter's status commands, and answers the scheduler with `started`, `grown`, `finished` and `status`
// messages. A malleable job is managed as KOALA's Malleable Runner did (paper V-A): a collection of local jobs of
// one processor each, grown by submitting more and shrunk by cancelling some; member 0 runs the program, the
// others run a holder that keeps their processor until the application recruits it (through its runner).
import { performance } from 'node:perf_hooks';
import type { ClusterStatus, JobOutput, LocalJobRequest, LocalManager, ManagerMessage } from '../../core/ports.js';
import type { CommandRunner } from '../shell/command-runner.js';
import { sh, type ShellFragment } from '../shell/quote.js';
import {
  clusterStatus,
  hiddenLoad,
  ParseError,
  type BatchSystem,
  type ClusterReport,
  type LocalJobInfo,
  type LocalJobSpec,
} from './batch-system.js';
import { MAX_LOCAL_JOB_NAME, type MemberKind } from './naming.js';
import { readTail } from './output-tail.js';
import { adoptedComponent, groupFound } from './recovered-jobs.js';
import { framedScript, newNonce, splitSections } from './sections.js';
import { SingleFlight } from './single-flight.js';
import { exitText, readStatus, statusSections, traces, waitStartedCommand, type StatusRead } from './status-script.js';
import { SubmissionQueue } from './submission-queue.js';
import type { RateLimit } from './token-bucket.js';
import {
  held,
  memberFiles,
  membersOf,
  watchedMembers,
  type Component,
  type Member,
  type RecoveredJob,
  type TrackedJob,
} from './tracked-jobs.js';
import { walltimeReason } from '../../core/model/job.js';

export type { RecoveredJob } from './tracked-jobs.js';

export interface BatchLocalManagerOptions {
  readonly cluster: string;
  readonly system: BatchSystem;
  readonly runner: CommandRunner;
  /** Where messages go; `now` comes from `clock`. */
  readonly onMessage: (message: ManagerMessage, now: number) => void;
  /** Time stamped on messages, in the scheduler's unit (seconds). Default: the wall clock. */
  readonly clock?: () => number;
  /** Marks this Concertina's jobs (the scheduler's `tag` option). Default `concertina`. */
  readonly tag?: string;
  /** Jobs' directories live under it on the cluster; absolute or relative to the login directory. */
  readonly workRoot?: string;
  /** Whether a submitted component belongs to a malleable job (then it is a collection of 1-processor jobs). */
  readonly isMalleable?: (request: LocalJobRequest) => boolean;
  /** What a malleable job's members other than the first run. Default: a shell that sleeps until cancelled. */
  readonly holder?: { readonly program: string; readonly args: readonly string[] };
  /** Submission bursts to this cluster (default 10 at once, then 5 per second). */
  readonly rateLimit?: RateLimit;
  /** Status rounds while something waits to start, grow or be cancelled (default 1000 ms)... */
  readonly watchIntervalMs?: number;
  /** ...and while every job just runs (default 10 s). */
  readonly idleWatchIntervalMs?: number;
  /** Per command (default 30 s). */
  readonly commandTimeoutMs?: number;
  /** Diagnostics (default: stderr). */
  readonly log?: (text: string) => void;
  /** Monotonic milliseconds for the rate limiter and timers (default performance.now). */
  readonly monotonicMs?: () => number;
  /**
   * How long a local job of ours may take to start or to leave (default 60 s): until then, processors the batch system
   * reports busy for it are not another user's load (see clusterStatus).
   */
  readonly settleMs?: number;
}

const DEFAULT_HOLDER = { program: '/bin/sh', args: ['-c', 'while :; do sleep 3600; done'] };
const DEFAULT_SETTLE_MS = 60_000;

export class BatchLocalManager implements LocalManager {
  readonly cluster: string;
  readonly supportsReservations = false;
  private readonly system: BatchSystem;
  private readonly runner: CommandRunner;
  private readonly tag: string;
  private readonly workRoot: string;
  private readonly clock: () => number;
  private readonly monotonic: () => number;
  private readonly log: (text: string) => void;
  private readonly jobs = new Map<string, TrackedJob>();
  /** Members waiting to be submitted. */
  private readonly submitQueue: SubmissionQueue<Member>;
  /** Local job ids to cancel (retried until the cancel command succeeds). */
  private readonly toCancel = new Set<string>();
  /** Jobs cancelled by the scheduler whose `finished` waits for the cancel command. */
  private readonly cancelAnswers = new Set<TrackedJob>();
  private lastStatus: ClusterStatus = { processors: 0, background: 0, reachable: false };
  /** The last status round's hidden load (see hiddenLoad). */
  private lastHidden = 0;
  private statusWanted = false;
  /** Status rounds, one at a time (a call during one asks for another after it). */
  private readonly rounds: SingleFlight;
  private timer: NodeJS.Timeout | undefined;
  /** Cancel commands, one at a time (a call during one asks for another after it). */
  private readonly cancels: SingleFlight;
  private closed = false;
  private readonly warnedUnknown = new Set<string>();
  /** Jobs found by tag that the scheduler does not know (see disown): their ids are not submitted here. */
  private readonly disowned = new Set<string>();

  constructor(private readonly options: BatchLocalManagerOptions) {
    this.cluster = options.cluster;
    this.system = options.system;
    this.runner = options.runner;
    this.tag = options.tag ?? 'concertina';
    this.workRoot = options.workRoot ?? '.concertina/jobs';
    this.clock = options.clock ?? (() => Date.now() / 1000);
    this.monotonic = options.monotonicMs ?? (() => performance.now());
    this.log = options.log ?? ((text) => process.stderr.write(`${text}\n`));
    this.submitQueue = new SubmissionQueue(options.rateLimit ?? { burst: 10, perSecond: 5 }, this.monotonic, (batch) =>
      this.submitBatch(batch),
    );
    this.rounds = new SingleFlight(() => this.statusRound(true).then(() => undefined), {
      stopped: () => this.closed,
      settled: () => this.schedule(),
    });
    this.cancels = new SingleFlight(() => this.cancelOnce());
  }

  // ---- the LocalManager port --------------------------------------------------------------------------------------

  submit(request: LocalJobRequest): void {
    if (this.disowned.has(request.jobId)) {
      // Its local jobs would share their names and directory with the disowned job's.
      this.later({
        type: 'finished',
        cluster: this.cluster,
        jobId: request.jobId,
        state: 'failed',
        reason: `a job ${request.jobId} of an earlier session, unknown to the scheduler, still runs on ${this.cluster} under that id`,
      });
      return;
    }
    const known = this.jobs.get(request.jobId);
    const job: TrackedJob =
      known && !known.finished
        ? known
        : { jobId: request.jobId, components: new Map<number, Component>(), finished: false, cancelling: false };
    if (request.walltimeS !== undefined) job.walltimeS = request.walltimeS;
    const existing = job.components.get(request.component);
    if (existing) {
      // Decision: submitting a component that is already there (after a restart) starts nothing new; the answer is
      // `started` again if it runs, or the usual `started` once it does.
      if (existing.started)
        this.later({
          type: 'started',
          cluster: this.cluster,
          jobId: job.jobId,
          component: existing.index,
          processors: held(existing),
        });
      return;
    }
    if (!Number.isInteger(request.processors) || request.processors < 1) {
      this.later({
        type: 'finished',
        cluster: this.cluster,
        jobId: request.jobId,
        state: 'failed',
        reason: `cannot submit ${request.processors} processors (a whole number of at least 1 is needed)`,
      });
      return;
    }
    this.jobs.set(job.jobId, job);
    const malleable = this.options.isMalleable?.(request) ?? false;
    const component: Component = {
      index: request.component,
      kind: malleable ? 'malleable' : 'rigid',
      members: [],
      initial: 0,
      started: false,
      completed: false,
    };
    job.components.set(component.index, component);
    const members = malleable ? request.processors : 1;
    for (let i = 0; i < members; i++) {
      const program =
        i === 0 ? { program: request.program, args: request.args } : (this.options.holder ?? DEFAULT_HOLDER);
      this.addMember(job, component, malleable ? 1 : request.processors, program, false);
    }
    component.initial = members;
    this.pump();
    this.wake();
  }

  grow(jobId: string, processors: number): void {
    const job = this.jobs.get(jobId);
    const component = job && [...job.components.values()].find((c) => c.kind === 'malleable');
    if (!job || job.finished || job.cancelling || !component || !Number.isInteger(processors) || processors < 1) {
      this.log(
        `${this.cluster}: grow(${jobId}, ${processors}) ignored: ${!job ? 'no such job here' : job.finished || job.cancelling ? 'the job has ended' : !component ? 'the job is not malleable' : 'not a positive whole number'}`,
      );
      return;
    }
    // Decision: as the MRRunner (paper V-A), the application gets a grow's processors once all of them are held,
    // not one by one; members that fail before running leave the batch to the others.
    const batch: Member[] = [];
    for (let i = 0; i < processors; i++)
      batch.push(this.addMember(job, component, 1, this.options.holder ?? DEFAULT_HOLDER, true));
    for (const m of batch) m.growBatch = batch;
    this.pump();
    this.wake();
  }

  cancelGrow(jobId: string): void {
    const job = this.jobs.get(jobId);
    if (!job || job.finished) return;
    let withdrawn = 0;
    for (const m of membersOf(job)) {
      if (!m.grow || m.announced || m.released || m.phase === 'ended') continue;
      this.release(m);
      withdrawn++;
    }
    if (withdrawn === 0) return;
    void this.flushCancels();
    this.later({
      type: 'growFailed',
      cluster: this.cluster,
      jobId,
      processors: withdrawn,
      reason: `withdrawn by Concertina before ${withdrawn === 1 ? 'its local job' : 'their local jobs'} ran`,
    });
  }

  shrink(jobId: string, processors: number): void {
    const job = this.jobs.get(jobId);
    const component = job && [...job.components.values()].find((c) => c.kind === 'malleable');
    if (!job || job.finished || !component) {
      this.log(
        `${this.cluster}: shrink(${jobId}, ${processors}) ignored: ${!job ? 'no such job here' : job.finished ? 'the job has ended' : 'the job is not malleable'}`,
      );
      return;
    }
    // The application has let these processors go: cancel that many counted holders, the newest first.
    const holders = component.members
      .filter((m) => m.index > 0 && m.announced && !m.released && m.phase !== 'ended')
      .sort((a, b) => b.index - a.index);
    const chosen = holders.slice(0, processors);
    if (chosen.length < processors)
      this.log(`${this.cluster}: shrink(${jobId}, ${processors}): only ${chosen.length} processors can be given back`);
    for (const m of chosen) this.release(m);
    void this.flushCancels();
  }

  cancel(jobId: string): void {
    const job = this.jobs.get(jobId);
    if (!job || job.finished) return;
    job.cancelling = true;
    this.cancelAnswers.add(job);
    for (const m of membersOf(job)) this.release(m);
    void this.flushCancels();
    this.wake();
  }

  poll(): void {
    this.statusWanted = true;
    void this.refresh();
  }

  // ---- beyond the port --------------------------------------------------------------------------------------------

  /**
   * Re-reads Concertina's jobs from the batch system by their tag, after a restart: the ones still pending or
   * running are tracked again (their running members count as already announced to the scheduler, which knows them
   * from its own store) and the list says what was found. Submitting one of them again starts nothing new.
   */
  async recover(): Promise<RecoveredJob[]> {
    const report = await this.statusRound(false);
    if (!report)
      throw new Error(`${this.cluster}: cannot recover jobs: the cluster is unreachable or its output did not parse`);
    const found: RecoveredJob[] = [];
    for (const group of groupFound(report, this.tag)) {
      const alive = group.members.filter(
        (m) => m.info.state === 'pending' || m.info.state === 'running' || m.info.state === 'unknown',
      );
      const running = alive.filter((m) => m.info.state === 'running').length;
      const pending = alive.filter((m) => m.info.state === 'pending').length;
      const program = group.members.find((m) => m.member === 0);
      if (!alive.some((m) => m.member === 0)) {
        // The program has ended (or is gone): holders left behind by a malleable job are orphans; cancel them.
        for (const m of alive) this.toCancel.add(m.info.id);
        found.push({
          jobId: group.jobId,
          component: group.component,
          kind: group.kind,
          members: group.members.length,
          running,
          pending,
          state: program?.info.state ?? 'failed',
        });
        continue;
      }
      found.push({
        jobId: group.jobId,
        component: group.component,
        kind: group.kind,
        members: group.members.length,
        running,
        pending,
        state: running > 0 ? 'running' : 'pending',
      });
      if (this.jobs.get(group.jobId)?.components.has(group.component)) continue;
      this.adopt(group.jobId, group.component, group.kind, alive);
    }
    if (this.toCancel.size) void this.flushCancels();
    this.wake();
    return found;
  }

  /**
   * Stops tracking a job recover() found that the scheduler does not know (its spec is lost): its local jobs are
   * left as they are and count as background load from the next status on, like other users' jobs; a submission of
   * its id later is refused.
   */
  disown(jobId: string): void {
    this.disowned.add(jobId);
    const job = this.jobs.get(jobId);
    if (!job) return;
    this.jobs.delete(jobId);
    this.cancelAnswers.delete(job);
  }

  /** One status round now (the watch loop runs them by itself; tests and the host may ask for one). */
  refresh(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return this.rounds.run();
  }

  /**
   * Stops the watch loop (local jobs keep running; a new manager recovers them). Cancels already asked for are
   * still sent: the promise resolves once they have been.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.submitQueue.close();
    await this.cancels.current;
  }

  /**
   * Resolves once every cancel asked for so far (a shrink's released local jobs, a cancelled job) has been sent to
   * the batch system, or has failed and waits for a retry: the malleable runner tells the application its new size
   * only then.
   */
  cancelsSent(): Promise<void> {
    return this.cancels.current ?? Promise.resolve();
  }

  /** Concertina jobs tracked here, for the console and tests: local ids per job and component. */
  tracked(): Array<{ jobId: string; component: number; kind: MemberKind; ids: string[]; running: number }> {
    const out: Array<{ jobId: string; component: number; kind: MemberKind; ids: string[]; running: number }> = [];
    for (const job of this.jobs.values()) {
      if (job.finished) continue;
      for (const c of job.components.values()) {
        const live = c.members.filter((m) => !m.released && m.phase !== 'ended');
        out.push({
          jobId: job.jobId,
          component: c.index,
          kind: c.kind,
          ids: live.flatMap((m) => (m.id ? [m.id] : [])),
          running: live.filter((m) => m.phase === 'running').length,
        });
      }
    }
    return out;
  }

  // ---- members and submission -------------------------------------------------------------------------------------

  private addMember(
    job: TrackedJob,
    component: Component,
    processors: number,
    program: { program: string; args: readonly string[] },
    grow: boolean,
  ): Member {
    const index = component.members.length;
    const files = memberFiles(
      { tag: this.tag, workRoot: this.workRoot },
      job.jobId,
      component.index,
      component.kind,
      index,
    );
    const name = files.name;
    const spec: LocalJobSpec = {
      ...files,
      processors,
      program: program.program,
      args: program.args,
      env: {
        CONCERTINA_JOB_ID: job.jobId,
        CONCERTINA_COMPONENT: String(component.index),
        CONCERTINA_MEMBER: String(index),
        CONCERTINA_CLUSTER: this.cluster,
      },
      // Decision: a grow's local jobs get the job's walltime too: they never outlive the job (cancelled at its end),
      // and a bounded time lets the cluster's own scheduler backfill around them.
      ...(job.walltimeS === undefined ? {} : { walltimeS: job.walltimeS }),
    };
    const member: Member = {
      job,
      component,
      index,
      name,
      spec,
      grow,
      phase: 'queued',
      announced: false,
      released: false,
      missingRounds: 0,
      sinceCancel: 0,
      deleting: false,
    };
    component.members.push(member);
    this.submitQueue.push(member);
    return member;
  }

  /** Tracks local jobs found by recover() as one component. */
  private adopt(
    jobId: string,
    componentIndex: number,
    kind: MemberKind,
    found: Array<{ info: LocalJobInfo; member: number }>,
  ): void {
    const job = this.jobs.get(jobId) ?? { jobId, components: new Map(), finished: false, cancelling: false };
    this.jobs.set(jobId, job);
    job.components.set(
      componentIndex,
      adoptedComponent({ tag: this.tag, workRoot: this.workRoot }, job, componentIndex, kind, found),
    );
  }

  /** Sends queued submissions (see SubmissionQueue). */
  private pump(): void {
    if (this.closed) return;
    this.submitQueue.pump();
  }

  private async submitBatch(batch: Member[]): Promise<void> {
    const members = batch.filter((m) => !m.released && !m.job.finished);
    for (const m of batch) if (!members.includes(m)) m.phase = 'ended';
    if (!members.length) return;
    const nonce = newNonce();
    const commands: Record<string, ShellFragment> = {};
    const section = new Map<Member, string>();
    members.forEach((m, i) => {
      m.phase = 'submitting';
      m.submittedAtMs = this.monotonic();
      try {
        if (m.name.length > MAX_LOCAL_JOB_NAME)
          throw new Error(
            `its local job name would have ${m.name.length} characters (at most ${MAX_LOCAL_JOB_NAME}): the job id is too long`,
          );
        // Files of an earlier job of the same name (a job id used again after a restart) would be taken for this
        // one's traces if its submission turned out unsure: removed first.
        commands[`s${i}`] = sh`rm -f -- ${traces(m).map((t) => t.path)} 2>/dev/null
${this.system.submitCommand(m.spec)}`;
        section.set(m, `s${i}`);
      } catch (error) {
        this.memberEnded(m, 'failed', `cannot be submitted: ${(error as Error).message}`);
      }
    });
    const valid = members.filter((m) => m.phase === 'submitting');
    if (!valid.length) return;
    // Decision: a grow's submission waits on the cluster (up to about 2 s) for its local jobs to leave the queue,
    // then runs a status round in the same script: the grow is answered one round trip after the submission, not
    // after further status rounds. Other submissions (a job's start, many at once) return at once.
    const grows = valid.filter((m) => m.grow);
    const statusWatched =
      grows.length && this.system.pendingCommand ? [...watchedMembers(this.jobs.values()), ...valid] : undefined;
    if (statusWatched) {
      commands['cnc_wait'] = waitStartedCommand(this.system.pendingCommand!(grows.map((m) => m.name)));
      Object.assign(commands, statusSections(this.system, nonce, statusWatched));
    }
    let stdout: string;
    try {
      stdout = (
        await this.runner.run(framedScript(nonce, commands).text, {
          timeoutMs: this.options.commandTimeoutMs ?? 30_000,
        })
      ).stdout;
    } catch (error) {
      // The submission may or may not have reached the cluster: the next round looks for the names.
      this.log(`${this.cluster}: submission of ${valid.length} local job(s) interrupted: ${(error as Error).message}`);
      for (const m of valid) m.phase = 'unsure';
      this.wake();
      return;
    }
    const sections = splitSections(stdout, nonce);
    for (const m of valid) {
      const output = sections.get(section.get(m)!);
      if (!output) {
        m.phase = 'unsure';
        continue;
      }
      if (output.code !== 0) {
        const why = (output.stderr.trim() || output.text.trim() || `exit status ${output.code}`)
          .split('\n')
          .slice(-3)
          .join(' ');
        this.memberEnded(m, 'failed', `${this.system.kind} refused the job: ${why}`);
        continue;
      }
      try {
        m.id = this.system.parseSubmitted(output.text);
        m.phase = 'pending';
        if (m.released || m.job.finished) this.toCancel.add(m.id);
      } catch (error) {
        this.log(`${this.cluster}: ${(error as Error).message}`);
        m.phase = 'unsure';
      }
    }
    if (statusWatched) {
      try {
        const read = readStatus(this.system, sections, nonce, '');
        // Only members whose exit-status files the script read (the ones watched now, less those that ended).
        const watchedNow = new Set(watchedMembers(this.jobs.values()));
        this.applyStatus(
          read,
          statusWatched.filter((m) => watchedNow.has(m)),
          false,
        );
      } catch (error) {
        // The watch loop's next round reads the status again.
        this.log(`${this.cluster}: status after submission: ${(error as Error).message}`);
      }
    }
    if (this.toCancel.size) void this.flushCancels();
    this.wake();
  }

  private release(m: Member): void {
    if (m.released) return;
    m.released = true;
    m.releasedAtMs = this.monotonic();
    if (this.submitQueue.remove(m)) m.phase = 'ended';
    if (m.id && m.phase !== 'ended') this.toCancel.add(m.id);
  }

  /** Sends the pending cancels (one command at a time), then answers the cancels whose local jobs are all sent. */
  private flushCancels(): Promise<void> {
    return this.cancels.run();
  }

  private async cancelOnce(): Promise<void> {
    const ids = [...this.toCancel];
    // A job's cancel is answered once every local job it may have has its cancel sent (none still being submitted).
    const answered = [...this.cancelAnswers].filter((job) =>
      membersOf(job).every((m) => m.phase !== 'submitting' && m.phase !== 'unsure'),
    );
    if (ids.length) {
      try {
        const nonce = newNonce();
        const result = await this.runner.run(framedScript(nonce, { cancel: this.system.cancelCommand(ids) }).text, {
          timeoutMs: this.options.commandTimeoutMs ?? 30_000,
        });
        const section = splitSections(result.stdout, nonce).get('cancel');
        // A non-zero status often means some of them had ended already; the next rounds see what is left.
        if (section && section.code !== 0)
          this.log(
            `${this.cluster}: ${this.system.kind} cancel: ${(section.stderr || section.text).trim().split('\n')[0]}`,
          );
        for (const id of ids) this.toCancel.delete(id);
      } catch (error) {
        this.log(`${this.cluster}: cancel of ${ids.join(' ')} will be retried: ${(error as Error).message}`);
        this.wake();
        return;
      }
    }
    for (const job of answered) {
      this.cancelAnswers.delete(job);
      this.finish(job, 'cancelled', 'cancelled by Concertina');
    }
    this.wake();
  }

  // ---- status rounds ----------------------------------------------------------------------------------------------

  /** Runs the status commands; updates members and answers a pending poll when `apply`. Undefined when it failed. */
  private async statusRound(apply: boolean): Promise<ClusterReport | undefined> {
    const report = this.statusWanted && apply;
    if (apply) this.statusWanted = false;
    const nonce = newNonce();
    const watched = apply ? watchedMembers(this.jobs.values()) : [];
    const once = async (): Promise<StatusRead> => {
      const result = await this.runner.run(framedScript(nonce, statusSections(this.system, nonce, watched)).text, {
        timeoutMs: this.options.commandTimeoutMs ?? 30_000,
      });
      return readStatus(this.system, splitSections(result.stdout, nonce), nonce, result.stderr);
    };
    let read: StatusRead;
    try {
      try {
        read = await once();
      } catch (error) {
        // The adapter reads the cluster another way from now on (PBS: text when its JSON does not parse).
        if (!(error instanceof ParseError && error.retry)) throw error;
        this.log(`${this.cluster}: status: ${error.message}`);
        read = await once();
      }
    } catch (error) {
      this.log(`${this.cluster}: status: ${(error as Error).message}`);
      if (report)
        this.emit({ type: 'status', cluster: this.cluster, status: { ...this.lastStatus, reachable: false } });
      return undefined;
    }
    if (apply) this.applyStatus(read, watched, report);
    return read.parsed;
  }

  private applyStatus(read: StatusRead, watched: Member[], report: boolean): void {
    const { parsed } = read;
    this.reconcile(parsed, watched, read.exits, read.traces);
    if (this.toCancel.size || this.cancelAnswers.size) void this.flushCancels();
    this.lastStatus = this.clusterStatus(parsed);
    if (report) this.emit({ type: 'status', cluster: this.cluster, status: this.lastStatus });
  }

  private key(id: string): string {
    return this.system.jobKey ? this.system.jobKey(id) : id;
  }

  private reconcile(
    report: ClusterReport,
    watched: Member[],
    exits: Map<string, number>,
    traces: ReadonlySet<string> | undefined,
  ): void {
    const byId = new Map<string, LocalJobInfo>();
    const byName = new Map<string, LocalJobInfo[]>();
    for (const info of report.jobs) {
      byId.set(this.key(info.id), info);
      const list = byName.get(info.name) ?? [];
      list.push(info);
      byName.set(info.name, list);
    }
    const grown = new Map<TrackedJob, number>();
    for (const m of watched) {
      if (m.job.finished && !m.released) continue;
      const exit = exits.get(`${m.spec.workDir}/${m.spec.exitFile}`);
      if (m.phase === 'unsure') {
        // Listed under its name (alive ones first): it was submitted after all, and maybe has even ended.
        const listed = byName.get(m.name) ?? [];
        const candidates = [
          ...listed.filter((i) => i.state === 'pending' || i.state === 'running' || i.state === 'unknown'),
          ...listed,
        ];
        if (candidates.length) {
          m.id = candidates[0]!.id;
          m.phase = 'pending';
          if (m.released || m.job.finished) this.toCancel.add(m.id);
        } else if (exit !== undefined) {
          // Not listed, yet its exit status is there: it was submitted, ran and ended in between (Grid Engine
          // forgets an ended job at once).
          this.ran(m);
          this.memberEnded(
            m,
            exit === 0 ? 'completed' : 'failed',
            `${exitText(exit)} (it ran and left ${this.system.listing} before its submission was confirmed)`,
          );
        } else if (++m.missingRounds >= 2) {
          m.missingRounds = 0;
          const ranThere = traces === undefined ? undefined : traces.has(m.name);
          if (m.released || m.job.finished) m.phase = 'ended';
          else if (ranThere === undefined)
            m.missingRounds = 1; // its traces were not read: look again next round
          else if (ranThere) {
            // Decision: its output files are there, so it was submitted and ran: never submitted twice. Without an
            // exit status (after the rounds a shared file system may take to show one) it failed, as a job that
            // vanished from the listing.
            this.ran(m);
            this.memberEnded(
              m,
              'failed',
              `ran (its output is in ${m.spec.workDir}) and left ${this.system.listing} before its submission was confirmed, with no exit status recorded`,
            );
          } else {
            // Not submitted after all (no trace of it on the cluster): submit again.
            m.phase = 'queued';
            this.submitQueue.push(m);
            this.pump();
          }
        }
        continue;
      }
      const info = m.id === undefined ? undefined : byId.get(this.key(m.id));
      if (!info) {
        // Vanished from the listing: ended. Its exit-status file says how; without one, give the shared file
        // system a round to show it before deciding.
        if (exit !== undefined) {
          this.ran(m);
          this.memberEnded(
            m,
            exit === 0 ? 'completed' : 'failed',
            `${exitText(exit)} (the job has left ${this.system.listing})`,
          );
        } else if (++m.missingRounds >= 2) {
          if (m.released) this.memberEnded(m, 'cancelled', 'cancelled by Concertina');
          else if (m.deleting)
            this.memberEnded(m, 'cancelled', `deleted on the cluster (vanished from ${this.system.listing})`);
          else this.memberEnded(m, 'failed', `vanished from ${this.system.listing} with no exit status recorded`);
        }
        continue;
      }
      m.missingRounds = 0;
      m.deleting = info.deleting ?? false;
      // Given back but still listed alive: send the cancel again now and then (it may have been lost).
      if (
        m.released &&
        (info.state === 'pending' || info.state === 'running') &&
        !m.deleting &&
        ++m.sinceCancel % 5 === 0
      )
        this.toCancel.add(m.id!);
      // Other jobs of the same name alive beside it: duplicates of an interrupted submission.
      for (const other of byName.get(m.name) ?? []) {
        if (
          this.key(other.id) !== this.key(m.id!) &&
          (other.state === 'pending' || other.state === 'running') &&
          !this.isTrackedId(other.id)
        )
          this.toCancel.add(other.id);
      }
      switch (info.state) {
        case 'pending':
          break;
        case 'running':
          if (m.phase !== 'running') m.phase = 'running';
          break;
        case 'unknown':
          if (!this.warnedUnknown.has(info.rawState)) {
            this.warnedUnknown.add(info.rawState);
            this.log(
              `${this.cluster}: ${this.system.kind} state "${info.rawState}" is not known; local job ${info.id} is left as it was`,
            );
          }
          break;
        default: {
          const detail =
            exit !== undefined
              ? exitText(exit)
              : info.exitCode !== undefined
                ? `exit status ${info.exitCode}`
                : info.reason;
          if (info.state === 'completed' || exit !== undefined || info.exitCode !== undefined) this.ran(m);
          const said = `${this.system.kind} state ${info.rawState}${detail ? ` (${detail})` : ''}`;
          const walltime = m.spec.walltimeS;
          this.memberEnded(
            m,
            info.state,
            info.timedOut && walltime !== undefined ? `${walltimeReason(walltime)} (${said})` : said,
          );
        }
      }
    }
    for (const job of this.jobs.values()) this.checkStarted(job);
    for (const job of this.jobs.values())
      for (const m of membersOf(job)) {
        if (!m.grow || m.announced || m.released || m.phase !== 'running' || !m.component.started) continue;
        const batch = (m.growBatch ?? [m]).filter((b) => b.phase !== 'ended' && !b.released);
        if (!batch.every((b) => b.phase === 'running')) continue;
        for (const b of batch) {
          b.announced = true;
          grown.set(b.job, (grown.get(b.job) ?? 0) + 1);
        }
      }
    for (const [job, n] of grown)
      if (!job.finished) this.emit({ type: 'grown', cluster: this.cluster, jobId: job.jobId, processors: n });
    for (const [id, job] of this.jobs)
      if (job.finished && membersOf(job).every((m) => m.phase === 'ended' || m.phase === 'queued'))
        this.jobs.delete(id);
  }

  private isTrackedId(id: string): boolean {
    const key = this.key(id);
    for (const job of this.jobs.values())
      for (const m of membersOf(job)) if (m.id !== undefined && this.key(m.id) === key) return true;
    return false;
  }

  /** A local job that ended after running between two rounds: it counts as started first (its job did start). */
  private ran(m: Member): void {
    if (m.phase === 'running' || m.phase === 'ended') return;
    m.phase = 'running';
    this.checkStarted(m.job);
  }

  /** Emits `started` for components whose initial members all run. */
  private checkStarted(job: TrackedJob): void {
    if (job.finished || job.cancelling) return;
    for (const c of job.components.values()) {
      if (c.started) continue;
      const initial = c.members.slice(0, c.initial);
      if (initial.length === 0 || !initial.every((m) => m.phase === 'running')) continue;
      c.started = true;
      for (const m of initial) m.announced = true;
      this.emit({ type: 'started', cluster: this.cluster, jobId: job.jobId, component: c.index, processors: held(c) });
    }
  }

  private memberEnded(m: Member, state: 'completed' | 'failed' | 'cancelled', reason: string): void {
    if (m.phase === 'ended') return;
    // Submitted, or known to have run: its output files may be on the cluster.
    const wrote = m.id !== undefined || m.phase === 'running' ? m : undefined;
    m.phase = 'ended';
    const job = m.job;
    if (m.released || job.finished) return;
    const component = m.component;
    const what =
      component.kind === 'malleable'
        ? `member ${m.index} (${m.id ?? 'not submitted'})`
        : `local job ${m.id ?? '(not submitted)'}`;
    if (m.grow && !m.announced) {
      // A processor of a grow that never came: nothing was counted for it, and the scheduler stops waiting for it.
      this.log(`${this.cluster}: job ${job.jobId}: grown ${what} ended before it ran: ${reason}`);
      this.later({
        type: 'growFailed',
        cluster: this.cluster,
        jobId: job.jobId,
        processors: 1,
        reason: `${what} ${state}: ${reason}`,
      });
      return;
    }
    if (!m.announced && m.index > 0) return this.finish(job, 'failed', `${what} could not start: ${reason}`, wrote);
    if (m.index === 0) {
      if (state !== 'completed') return this.finish(job, state, `${what} ${state}: ${reason}`, wrote);
      component.completed = true;
      if ([...job.components.values()].every((c) => c.completed)) return this.finish(job, 'completed', reason);
      if (component.kind === 'malleable') for (const other of component.members) this.release(other);
      return;
    }
    // Decision: a malleable job's holder that ends on its own takes a processor the application counts on; the job
    // fails (as a rigid job whose node fails), and its other local jobs are cancelled.
    this.finish(job, state === 'completed' ? 'failed' : state, `${what} ended on its own: ${reason}`, wrote);
  }

  /** `wrote`: the local job whose failure ends the job, when it may have left output files on the cluster. */
  private finish(job: TrackedJob, state: 'completed' | 'failed' | 'cancelled', reason: string, wrote?: Member): void {
    if (job.finished) return;
    job.finished = true;
    this.cancelAnswers.delete(job);
    for (const m of membersOf(job)) this.release(m);
    if (this.toCancel.size) void this.flushCancels();
    const finished = { type: 'finished', cluster: this.cluster, jobId: job.jobId, state, reason } as const;
    if (state !== 'failed' || !wrote) return this.emit(finished);
    // Decision: a failure is answered once the end of its standard error has been read (one more command on the
    // same connection, bounded by a timeout), so that the job's end carries why; unread, it carries the paths only.
    const output: JobOutput = {
      stdout: `${wrote.spec.workDir}/${wrote.spec.stdoutFile}`,
      stderr: `${wrote.spec.workDir}/${wrote.spec.stderrFile}`,
    };
    void readTail(this.runner, output.stderr, this.options.commandTimeoutMs ?? 30_000)
      .catch((error: unknown) => {
        this.log(`${this.cluster}: job ${job.jobId}: cannot read ${output.stderr}: ${(error as Error).message}`);
        return undefined;
      })
      .then((stderrTail) =>
        this.emit({ ...finished, output: stderrTail === undefined ? output : { ...output, stderrTail } }),
      );
  }

  private clusterStatus(report: ClusterReport): ClusterStatus {
    const ours = new Set<string>();
    // Decision: a member whose submission has not answered yet (no id) is known by its name: its local job may run
    // before the answer comes back, and is Concertina's, not another user's load.
    const unanswered = new Set<string>();
    const now = this.monotonic();
    const settle = this.options.settleMs ?? DEFAULT_SETTLE_MS;
    const holding = report.jobs.filter((i) => i.state === 'running' || i.allocated);
    const holdingIds = new Set(holding.map((i) => this.key(i.id)));
    const holdingNames = new Set(holding.map((i) => i.name));
    let starting = 0;
    for (const job of this.jobs.values()) {
      for (const m of membersOf(job)) {
        // Decision: a member given back stays ours while still listed, for at most `settleMs`: the batch system
        // takes a moment to let it go (Slurm COMPLETING), and as load it cut the grow offered on its processors; past
        // the bound (a failed or hung cancel) it is load. By time, not state: a listing taken before the cancel says R.
        if (m.phase === 'ended' || (m.released && now - (m.releasedAtMs ?? -Infinity) >= settle)) continue;
        if (m.id !== undefined) ours.add(this.key(m.id));
        else if (m.phase === 'submitting' || m.phase === 'unsure') unanswered.add(m.name);
        const listedHolding = m.id === undefined ? holdingNames.has(m.name) : holdingIds.has(this.key(m.id));
        const inFlight = m.phase === 'submitting' || m.phase === 'unsure' || m.phase === 'pending';
        if (inFlight && !m.released && !listedHolding && now - (m.submittedAtMs ?? -Infinity) < settle)
          starting += m.spec.processors;
      }
    }
    // Decision: hidden load counts once two rounds in a row see it (the smaller of the two), so that a job starting
    // between the listing and the node counts is not taken for another user's; and less what our own members not yet
    // listed running may hold (submitted within `settleMs`): during a grow, each round caught another one starting.
    const hidden = Math.max(0, hiddenLoad(report) - starting);
    const seen = Math.min(hidden, this.lastHidden);
    this.lastHidden = hidden;
    return clusterStatus(report, (info) => ours.has(this.key(info.id)) || unanswered.has(info.name), seen);
  }

  // ---- timing and messages ----------------------------------------------------------------------------------------

  /** Whether something waits for a quick answer: a start, a grow, a submission, a cancel. */
  private busy(): boolean {
    if (this.submitQueue.length || this.toCancel.size || this.cancelAnswers.size) return true;
    for (const job of this.jobs.values()) {
      if (job.finished) continue;
      for (const m of membersOf(job)) {
        if (m.released) continue;
        if (m.phase === 'submitting' || m.phase === 'unsure' || m.phase === 'pending') return true;
      }
    }
    return false;
  }

  /** Runs a round soon when something waits. */
  private wake(): void {
    if (this.closed || this.rounds.current) return;
    if (this.busy()) this.schedule(true);
  }

  private schedule(soon = false): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const active = [...this.jobs.values()].some((j) => !j.finished) || this.busy();
    if (!active && !soon) return;
    const delay =
      soon || this.busy() ? (this.options.watchIntervalMs ?? 1000) : (this.options.idleWatchIntervalMs ?? 10_000);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, delay);
    this.timer.unref?.();
  }

  private emit(message: ManagerMessage): void {
    this.options.onMessage(message, this.clock());
  }

  /** Answers after the current call returns (the scheduler is not re-entered from within its own call). */
  private later(message: ManagerMessage): void {
    queueMicrotask(() => this.emit(message));
  }
}
