// The core's ApplicationPort for applications running on real clusters: offers, shrink requests, new sizes and
// refused updates go to each job's to-app.jsonl; what the applications answer in from-app.jsonl comes back, at each poll, as the
// core's ApplicationMessage values. It also keeps the grace-period rule of mandatory shrinks (as in CooRMv2).
import type { ApplicationMessage, ApplicationPort, InteractiveTasks } from '../../core/ports.js';
import type { AppChannel, JobPoll, PollOptions } from './channel.js';
import type { FromAppMessage, LineError } from './messages.js';

/** Where a job's application talks: the channel of its cluster and its directory there. */
export interface JobLocation {
  readonly channel: AppChannel;
  readonly jobDir: string;
  /** The highest from-app seq an earlier run of Concertina handled (after a restart). */
  readonly lastSeq?: number;
}

/** What an application says besides answers: that it started, how far it is, that it is done. */
export type AppEvent =
  | {
      readonly type: 'hello';
      readonly jobId: string;
      readonly pid: number;
      readonly size: number;
      readonly sdk: string;
    }
  | { readonly type: 'progress'; readonly jobId: string; readonly fraction: number; readonly note?: string }
  | { readonly type: 'done'; readonly jobId: string; readonly ok: boolean; readonly note?: string };

/** A mandatory shrink the application did not honour in time; the runner kills the job and reclaims its processors. */
export interface ProtocolViolation {
  readonly jobId: string;
  readonly offerId: number;
  readonly requested: number;
  /** Undefined when it never answered. */
  readonly accepted: number | undefined;
  readonly released: number;
  readonly reason: string;
}

/** A problem that does not stop anything: a line that did not decode, a message that could not be sent. */
export interface ProtocolProblem {
  readonly jobId: string;
  readonly message: string;
  readonly line?: LineError;
}

export interface RemoteApplicationsOptions {
  /** The core's messages (answers, releases), in the order the application wrote them. */
  readonly deliver: (message: ApplicationMessage) => void;
  readonly onViolation: (violation: ProtocolViolation) => void;
  readonly onEvent?: (event: AppEvent) => void;
  readonly onProblem?: (problem: ProtocolProblem) => void;
  /** Time a mandatory shrink has to be answered and released (default 60 s). */
  readonly graceMs?: number;
  /** Milliseconds; the wall clock by default (tests pass their own). */
  readonly now?: () => number;
  /**
   * The time of `now()` at a scheduler time (seconds), to turn a shrink's deadline into the application's wall-clock
   * milliseconds. Default: scheduler seconds counted from the same epoch as `now()`.
   */
  readonly schedulerTimeToMs?: (t: number) => number;
  /** Jobs already running (e.g. found again after a restart). */
  readonly jobs?: Iterable<readonly [string, JobLocation]>;
}

interface MandatoryShrink {
  readonly jobId: string;
  readonly offerId: number;
  readonly requested: number;
  readonly deadline: number;
  accepted: number | undefined;
  released: number;
}

export const DEFAULT_GRACE_MS = 60_000;

export class RemoteApplications implements ApplicationPort {
  private readonly jobs = new Map<string, JobLocation>();
  private readonly mandatory = new Map<number, MandatoryShrink>();
  private readonly graceMs: number;
  private readonly now: () => number;
  private readonly toMs: (t: number) => number;
  private polling: Promise<void> | undefined;

  constructor(private readonly options: RemoteApplicationsOptions) {
    this.graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.now = options.now ?? Date.now;
    this.toMs = options.schedulerTimeToMs ?? ((t) => t * 1000);
    for (const [jobId, location] of options.jobs ?? []) this.attach(jobId, location);
  }

  /** A malleable job's application runs (or will run) in `location`; poll it from now on. */
  attach(jobId: string, location: JobLocation): void {
    this.jobs.set(jobId, location);
    if (location.lastSeq !== undefined) location.channel.resume(location.jobDir, location.lastSeq);
  }

  /** The job ended: stop polling it and forget its pending shrinks. */
  detach(jobId: string): void {
    const location = this.jobs.get(jobId);
    if (!location) return;
    this.jobs.delete(jobId);
    location.channel.forget(location.jobDir);
    for (const [offerId, shrink] of this.mandatory) if (shrink.jobId === jobId) this.mandatory.delete(offerId);
  }

  /** The highest from-app seq handled for the job, to keep across a restart (see JobLocation.lastSeq). */
  lastSeq(jobId: string): number | undefined {
    const location = this.jobs.get(jobId);
    return location && location.channel.lastSeq(location.jobDir);
  }

  offerGrow(offerId: number, jobId: string, processors: number): void {
    // Decision: an offer that cannot be written is refused on the application's behalf, so the operation goes on.
    this.send(jobId, { type: 'offer', offerId, processors }, () =>
      this.options.deliver({ type: 'growAnswer', offerId, jobId, accepted: 0 }),
    );
  }

  requestShrink(offerId: number, jobId: string, processors: number, mandatory: boolean, deadline?: number): void {
    const deadlineMs =
      deadline === undefined || !Number.isFinite(deadline) ? undefined : Math.max(0, Math.round(this.toMs(deadline)));
    if (mandatory) {
      // Decision: the grace period runs from the request, and covers both the answer and the release: an
      // application that never answers a mandatory shrink holds the processors just as one that never releases.
      // With a deadline (ahead of an announced update) it runs from the deadline: poll delays and clock skew
      // between the workstation and the cluster must not kill an application that released on time.
      const from = Math.max(this.now(), deadlineMs ?? 0);
      this.mandatory.set(offerId, {
        jobId,
        offerId,
        requested: processors,
        deadline: from + this.graceMs,
        accepted: undefined,
        released: 0,
      });
    }
    this.send(
      jobId,
      { type: 'shrink', offerId, processors, mandatory, ...(deadlineMs !== undefined && { deadline: deadlineMs }) },
      () => {
        this.mandatory.delete(offerId);
        this.options.deliver({ type: 'shrinkAnswer', offerId, jobId, accepted: 0 });
      },
    );
  }

  growGranted(offerId: number, jobId: string, granted: number, accepted: number): void {
    this.send(jobId, { type: 'granted', offerId, processors: granted, accepted });
  }

  resized(jobId: string, size: number): void {
    this.send(jobId, { type: 'resources', size });
  }

  updateRefused(jobId: string, reason: string): void {
    this.send(jobId, { type: 'refused', reason });
  }

  interactiveTasks(jobId: string, tasks: InteractiveTasks): void {
    this.send(jobId, { type: 'tasks', ...tasks, nodes: [...tasks.nodes], fractions: [...tasks.fractions] });
  }

  /** Asks the application to finish now (the job is cancelled); resolves once the message is written. */
  async stop(jobId: string, reason: string): Promise<void> {
    const location = this.jobs.get(jobId);
    if (!location) throw new Error(`job ${jobId}: no application attached`);
    await location.channel.send(location.jobDir, { type: 'stop', reason });
  }

  /**
   * Reads every attached job's new messages (one remote script per cluster), delivers them, and enforces the
   * grace period of mandatory shrinks. Calls made while a poll runs share it.
   */
  poll(options: PollOptions = {}): Promise<void> {
    this.polling ??= this.pollAll(options).finally(() => (this.polling = undefined));
    return this.polling;
  }

  private async pollAll(options: PollOptions): Promise<void> {
    const byChannel = new Map<AppChannel, { jobId: string; jobDir: string }[]>();
    for (const [jobId, { channel, jobDir }] of this.jobs) {
      const list = byChannel.get(channel) ?? [];
      list.push({ jobId, jobDir });
      byChannel.set(channel, list);
    }
    await Promise.all(
      [...byChannel].map(async ([channel, jobs]) => {
        let polled: Map<string, JobPoll>;
        try {
          polled = await channel.poll(
            jobs.map((j) => j.jobDir),
            options,
          );
        } catch (error) {
          // Decision: an unreachable cluster is no evidence against its applications (and their jobs cannot be
          // killed there anyway); grace deadlines are enforced after a poll that reached the cluster.
          for (const { jobId } of jobs) this.problem({ jobId, message: (error as Error).message });
          return;
        }
        for (const { jobId, jobDir } of jobs) {
          const result = polled.get(jobDir);
          // Detached while the poll ran.
          if (!result || this.jobs.get(jobId)?.jobDir !== jobDir) continue;
          this.handle(jobId, result);
        }
      }),
    );
  }

  private handle(jobId: string, result: JobPoll): void {
    if (result.state === 'replaced')
      this.problem({ jobId, message: `job ${jobId}: from-app.jsonl was replaced; read again from the top` });
    if (result.state === 'unreadable') this.problem({ jobId, message: `job ${jobId}: from-app.jsonl cannot be read` });
    for (const line of result.errors) this.problem({ jobId, message: line.message, line });
    for (const message of result.messages) this.receive(jobId, message);
    // Whatever the files say: an application that never wrote (or cannot be read) has not answered, and one that
    // never touches the protocol must not keep processors a mandatory shrink takes back.
    const now = this.now();
    for (const [offerId, shrink] of this.mandatory) {
      if (shrink.jobId !== jobId || now < shrink.deadline) continue;
      this.mandatory.delete(offerId);
      const reason =
        shrink.accepted === undefined
          ? `did not answer mandatory shrink ${offerId} (${shrink.requested} processors) within the grace period of ${this.graceMs} ms`
          : `released ${shrink.released} of the ${shrink.accepted} processors it accepted to give back (mandatory shrink ${offerId}) within the grace period of ${this.graceMs} ms`;
      this.options.onViolation({
        jobId,
        offerId,
        requested: shrink.requested,
        accepted: shrink.accepted,
        released: shrink.released,
        reason: `job ${jobId} ${reason}`,
      });
    }
  }

  private receive(jobId: string, message: FromAppMessage): void {
    const { deliver, onEvent } = this.options;
    switch (message.type) {
      case 'hello':
        return onEvent?.({ type: 'hello', jobId, pid: message.pid, size: message.size, sdk: message.sdk });
      case 'progress':
        return onEvent?.({
          type: 'progress',
          jobId,
          fraction: message.fraction,
          ...(message.note !== undefined && { note: message.note }),
        });
      case 'done':
        return onEvent?.({
          type: 'done',
          jobId,
          ok: message.ok,
          ...(message.note !== undefined && { note: message.note }),
        });
      case 'offerAnswer':
        return deliver({ type: 'growAnswer', offerId: message.offerId, jobId, accepted: message.accepted });
      case 'shrinkAnswer': {
        const shrink = this.pendingShrink(jobId, message.offerId);
        if (shrink) {
          shrink.accepted = message.accepted;
          // Decision: refusing (0) is an answer the core weighs itself; only an accepted shrink must then be released.
          if (message.accepted === 0) this.mandatory.delete(message.offerId);
        }
        return deliver({ type: 'shrinkAnswer', offerId: message.offerId, jobId, accepted: message.accepted });
      }
      case 'released': {
        if (message.offerId !== undefined) {
          const shrink = this.pendingShrink(jobId, message.offerId);
          if (shrink) {
            shrink.released += message.processors;
            if (shrink.accepted !== undefined && shrink.released >= shrink.accepted)
              this.mandatory.delete(message.offerId);
          }
          return deliver({ type: 'released', jobId, processors: message.processors, offerId: message.offerId });
        }
        return deliver({ type: 'released', jobId, processors: message.processors });
      }
      case 'update':
        return deliver({
          type: 'update',
          jobId,
          processors: message.processors,
          ...(message.announceS !== undefined && { announceS: message.announceS }),
        });
      case 'iteration':
        return deliver({
          type: 'iteration',
          jobId,
          task: message.task,
          executedMs: message.executedMs,
          missed: message.missed,
          ...(message.generation !== undefined && { generation: message.generation }),
          ...(message.responseMs !== undefined && { responseMs: message.responseMs }),
        });
    }
  }

  private pendingShrink(jobId: string, offerId: number): MandatoryShrink | undefined {
    const shrink = this.mandatory.get(offerId);
    return shrink?.jobId === jobId ? shrink : undefined;
  }

  private send(jobId: string, body: Parameters<AppChannel['send']>[1], onFailure?: () => void): void {
    const location = this.jobs.get(jobId);
    if (!location) {
      this.problem({ jobId, message: `job ${jobId}: no application attached; ${body.type} not sent` });
      onFailure?.();
      return;
    }
    location.channel.send(location.jobDir, body).catch((error: Error) => {
      this.problem({ jobId, message: `job ${jobId}: ${body.type} not sent: ${error.message}` });
      onFailure?.();
    });
  }

  private problem(problem: ProtocolProblem): void {
    this.options.onProblem?.(problem);
  }
}
