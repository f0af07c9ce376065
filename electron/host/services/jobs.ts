// The run's jobs (`jobs.*`, `plan.snapshot`): submitted once per submission id, cancelled and resized by the
// operator, listed with those that left memory, their events, views and the plan they are in.
import type { ApiResult, ViewStep } from '../../api/contract.js';
import type { Handlers } from '../../api/dispatcher.js';
import type { StoredCommand } from '../../store/store.js';
import { listJobs, sizeSteps, viewsFromEvents } from '../finished-jobs.js';
import { refused, type HostRun, type Refusal, type ServiceHandlers } from './run.js';

export class JobsService {
  /** Submissions by the console's id: the job each made and its spec, so that a retry is answered, not run twice. */
  private submissionIds = new Map<string, { jobId: string; spec: string }>();

  constructor(
    private readonly run: HostRun,
    /** Why commands are refused while a stored live run resumes, if they are. */
    private readonly whileResuming: () => Refusal | undefined,
  ) {}

  /** A new run: no submission is known. */
  forgetSubmissions(): void {
    this.submissionIds = new Map();
  }

  /** A stored command replayed on the simulated world as the API applied it (`jobs.submit`, `jobs.cancel`, `jobs.resize`). */
  replay(command: StoredCommand): void {
    const run = this.run;
    if (command.key === 'jobs.submit') {
      const r = run.world.submit(command.value, true);
      if (r.ok && command.submissionId !== undefined)
        this.submissionIds.set(command.submissionId, { jobId: r.value.id, spec: JSON.stringify(command.value) });
    } else if (command.key === 'jobs.cancel') {
      const { jobId } = command.value as { jobId: string };
      run.act((s, now) => s.cancel(jobId, now));
    } else if (command.key === 'jobs.resize') {
      const { jobId, delta } = command.value as { jobId: string; delta: number };
      run.act((s, now) => s.resize(jobId, delta, now));
    }
  }

  /** How a job that left memory ended, as far as its summary is still listed. */
  private endedState(jobId: string): string {
    return this.run.finished.get(jobId)?.state ?? 'ended';
  }

  /**
   * A job of a resumed live run: its sizes over its whole run from its stored events (an adopted job's record starts
   * at its adoption, with its size then), so that the drawer charts the earlier sessions too.
   */
  private withEarlierSizes(jobId: string, allocated: ViewStep[]): ViewStep[] {
    const { mode, store } = this.run;
    if (mode.current.kind !== 'live' || !mode.current.resumed || !store) return allocated;
    this.run.flush();
    const stored = sizeSteps(viewsFromEvents(store.events(jobId), this.run.now()).allocated);
    return stored.length ? stored : allocated;
  }

  private submit({ submissionId, ...spec }: Parameters<Handlers['jobs.submit']>[0]): ApiResult<'jobs.submit'> {
    const run = this.run;
    const resuming = this.whileResuming();
    if (resuming) return resuming;
    run.catchUp();
    const canonical = JSON.stringify(spec);
    const earlier = submissionId === undefined ? undefined : this.submissionIds.get(submissionId);
    if (earlier) {
      if (earlier.spec === canonical) return { ok: true, value: { jobId: earlier.jobId } };
      return refused('submissionId', `was already used for another job (${earlier.jobId})`);
    }
    if (spec.id !== undefined && run.finished.has(spec.id)) return refused('id', `duplicates job "${spec.id}"`);
    const live = run.mode.liveWorld;
    const r = live ? live.act((s, now) => s.submit(spec, now)) : run.world.submit(spec);
    if (!r.ok) return r;
    const jobId = r.value.id;
    if (submissionId !== undefined) this.submissionIds.set(submissionId, { jobId, spec: canonical });
    // On disk with its events before the answer: a job the API accepted survives a crash, whole.
    if (
      !run.flush({
        t: run.now(),
        key: 'jobs.submit',
        value: spec,
        jobId,
        ...(submissionId === undefined ? {} : { submissionId }),
      })
    )
      return run.refusal('jobs.submit')!;
    return { ok: true, value: { jobId } };
  }

  handlers(): ServiceHandlers<
    'jobs.events' | 'jobs.views' | 'jobs.submit' | 'jobs.cancel' | 'jobs.resize' | 'jobs.list' | 'plan.snapshot'
  > {
    const run = this.run;
    return {
      'jobs.events': ({ jobId }) => {
        const known =
          run.scheduler.job(jobId) !== undefined ||
          run.finished.has(jobId) ||
          (run.status.state !== 'running' && run.store?.events(jobId).length);
        if (!known) return refused('jobId', `no job "${jobId}"`);
        run.flush();
        const events = run.store ? run.store.events(jobId) : run.recentEvents.of(jobId);
        return { ok: true, value: { events } };
      },
      'jobs.views': ({ jobId }) => {
        const now = run.now();
        if (!run.scheduler.job(jobId) && run.finished.has(jobId)) {
          run.flush();
          return {
            ok: true,
            value: viewsFromEvents(run.store ? run.store.events(jobId) : run.recentEvents.of(jobId), now),
          };
        }
        const views = run.scheduler.views(jobId, now);
        if (!views) return refused('jobId', `no job "${jobId}"`);
        return { ok: true, value: { now, ...views, allocated: this.withEarlierSizes(jobId, views.allocated) } };
      },
      'jobs.submit': (submission) => this.submit(submission),
      'jobs.cancel': ({ jobId }) => {
        const resuming = this.whileResuming();
        if (resuming) return resuming;
        run.catchUp();
        if (run.finished.has(jobId)) return refused('jobId', `job ${jobId} has already ${this.endedState(jobId)}`);
        const r = run.act((s, now) => s.cancel(jobId, now));
        if (!r.ok) return r;
        run.record('jobs.cancel', { jobId });
        return { ok: true, value: { jobId } };
      },
      'jobs.resize': ({ jobId, delta }) => {
        const resuming = this.whileResuming();
        if (resuming) return resuming;
        run.catchUp();
        if (run.finished.has(jobId))
          return refused('jobId', `job ${jobId} is not running (it is ${this.endedState(jobId)})`);
        const r = run.act((s, now) => s.resize(jobId, delta, now));
        if (!r.ok) return r;
        run.record('jobs.resize', { jobId, delta });
        return r;
      },
      'jobs.list': ({ states, limit, since }) => {
        const scheduler = run.scheduler;
        // Every change to a job is an event: the run and its event count tell whether anything listed may differ.
        const version = `${run.runNumber}:${scheduler.eventCount}`;
        const wanted = states ? new Set(states) : undefined;
        if (since === version) {
          let total = 0;
          for (const j of scheduler.jobs()) if (!wanted || wanted.has(j.state)) total++;
          for (const { summary } of run.finished.values()) if (!wanted || wanted.has(summary.state)) total++;
          return { ok: true, value: { jobs: [], total, version, unchanged: true } };
        }
        // The scheduler's jobs and those that left memory (ended, stored), in submission order.
        const released = [...run.finished.values()].filter((j) => !wanted || wanted.has(j.summary.state));
        const held = [...scheduler.jobs()].filter((j) => !wanted || wanted.has(j.state));
        // Decision: a waiting job's planned start is listed as of the last event (the version): a pass that moves only
        // reservations (a poll that saw another background load) shows at the next event.
        const grid = scheduler.grid;
        const named = (i: number) => grid.clusters[i]?.name;
        const listed = listJobs(held, released, limit, named, (j) => scheduler.plannedStart(j.id));
        return { ok: true, value: { ...listed, version } };
      },
      'plan.snapshot': ({ limit }) => {
        if (run.mode.resuming)
          return {
            ok: true,
            value: {
              now: 0,
              queuePolicy: run.scheduler.queuePolicyName,
              planner: run.scheduler.queuePolicyName,
              limit,
              clusters: [],
            },
          };
        return { ok: true, value: run.scheduler.planSnapshot(run.now(), limit) };
      },
    };
  }
}
