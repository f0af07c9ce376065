// The run's scheduler settings (`settings.*`): read, changed (each change stored with the run and replayed when it
// is resumed) and the choices Settings offers, described.
import { NO_JOB_STREAM, type JobStreamSettings } from '../../../core/sim/workloads/stream.js';
import type { Scheduler, SchedulerOptions } from '../../../core/scheduler/scheduler.js';
import { queuePolicies } from '../../../core/queue/registry.js';
import { malleabilityPolicies } from '../../../core/malleability/registry.js';
import { fpeVariants, type FpeVariantName } from '../../../core/fpe/registry.js';
import type { QueuePolicy, QueuePolicyName } from '../../../core/queue/policy.js';
import { QUEUE_PRIORITIES, type QueuePriorityName } from '../../../core/queue/priority.js';
import type { StoredQueueSettings } from '../../store/store.js';
import type { HostRun, Refusal, ServiceHandlers } from './run.js';

/** The settings kept as stored commands and applied again when a run is resumed (a live run's too). */
export const SCHEDULER_SETTINGS = new Set([
  'approach',
  'policy',
  'triesThreshold',
  'queue',
  'reservationDepth',
  'priority',
  'fpeVariant',
  'fpeGrowTimeoutS',
  'fpeGrowAttempts',
]);

/** The scheduler settings a new run does not take from its config (the queue settings are in it): carried as commands. */
const CARRIED_SETTINGS = [
  'approach',
  'policy',
  'triesThreshold',
  'fpeVariant',
  'fpeGrowTimeoutS',
  'fpeGrowAttempts',
] as const;

/** The priorities in words for Settings (a new name in QUEUE_PRIORITIES needs its words here: the Record says so). */
const PRIORITY_DESCRIPTIONS: Readonly<Record<QueuePriorityName, string>> = {
  submit: 'submission order: the earliest submitted job first',
  wait: 'waiting time: the job that has waited longest first',
  size: 'size: ordered by the processors each job needs',
};

/**
 * Whether a queue policy plans over time (its jobs' walltimes say when processors come free). Decision: a policy
 * plans ahead when it runs its own pass over the plans (fcfs, easy, cbf...), not the scheduler's scan (koala): asked
 * of the policy itself on an empty view, so a policy added to core/queue is classed without a list here; one whose
 * pass cannot begin on an empty view reads the view, so it plans.
 */
function plansAhead(policy: QueuePolicy): boolean {
  const empty = {
    now: 0,
    clusterCount: 0,
    plan: () => {
      throw new Error('no cluster');
    },
    freed: () => true,
    promised: 0,
  };
  try {
    return policy.begin(empty) !== undefined;
  } catch {
    return true;
  }
}

/** A run's stored queue settings as the scheduler takes them (undefined: its defaults). */
export function schedulerQueueOptions(
  q: StoredQueueSettings | undefined,
): Pick<SchedulerOptions, 'queue' | 'reservationDepth' | 'priority'> | undefined {
  if (!q) return undefined;
  return {
    queue: q.queue as QueuePolicyName,
    reservationDepth: q.reservationDepth ?? undefined,
    priority: q.priority as QueuePriorityName,
  };
}

export class SettingsService {
  constructor(
    private readonly run: HostRun,
    /** Why commands are refused while a stored live run resumes, if they are. */
    private readonly whileResuming: () => Refusal | undefined,
  ) {}

  get() {
    const s = this.run.scheduler;
    return {
      approach: s.approachName as 'pra' | 'pwa',
      policy: s.policy.name,
      triesThreshold: s.queue.triesThreshold,
      fpeVariant: s.fpeVariant,
      fpeGrowTimeoutS: s.fpeGrowTimeoutS,
      fpeGrowAttempts: s.fpeGrowAttempts,
      stream: this.run.world.streamSettings ?? NO_JOB_STREAM,
      ...this.queueSettings(),
    };
  }

  /** The run's queue settings now. */
  queueSettings(): { queue: QueuePolicyName; reservationDepth: number | null; priority: QueuePriorityName } {
    const s = this.run.scheduler;
    return { queue: s.queuePolicyName, reservationDepth: s.reservationDepth ?? null, priority: s.priority };
  }

  /** The run's scheduler settings other than the queue ones, which a new run's config does not hold. */
  carried(): Record<(typeof CARRIED_SETTINGS)[number], unknown> {
    const s = this.get();
    return {
      approach: s.approach,
      policy: s.policy,
      triesThreshold: s.triesThreshold,
      fpeVariant: s.fpeVariant,
      fpeGrowTimeoutS: s.fpeGrowTimeoutS,
      fpeGrowAttempts: s.fpeGrowAttempts,
    };
  }

  /**
   * `settings` (from carried()) applied to the run that has just started, each one it does not have already stored
   * as a command so that a resume replays it (one it has is the new run's default: nothing to replay).
   */
  carryInto(settings: Record<string, unknown>): void {
    const t = this.run.now();
    const has = this.carried();
    for (const key of CARRIED_SETTINGS) {
      const value = settings[key];
      if (value === undefined || value === has[key] || !this.apply(key, value).ok) continue;
      this.run.flush({ t, key, value });
    }
  }

  /** A setting (a stored one too, replayed) applied to the run's scheduler now. */
  apply(key: string, value: unknown): { ok: true } | Refusal {
    return this.run.act((s) => this.applyTo(s, key, value));
  }

  private applyTo(s: Scheduler, key: string, value: unknown): { ok: true } | Refusal {
    // The queue settings are checked by the scheduler too: its refusal names the field.
    if (key === 'queue') return s.setQueuePolicy(String(value));
    if (key === 'reservationDepth') return s.setReservationDepth(value === null ? undefined : Number(value));
    if (key === 'priority') return s.setPriority(String(value));
    if (key === 'fpeVariant') return s.setFpeVariant(String(value));
    if (key === 'fpeGrowTimeoutS') return s.setFpeGrowTimeoutS(Number(value));
    if (key === 'fpeGrowAttempts') return s.setFpeGrowAttempts(Number(value));
    if (key === 'approach') s.setApproach(String(value));
    else if (key === 'policy') s.setPolicy(String(value));
    else if (key === 'triesThreshold') s.queue.triesThreshold = Number(value);
    else if (key === 'stream') this.run.world.setStream(value as JobStreamSettings);
    return { ok: true };
  }

  handlers(): ServiceHandlers<'settings.get' | 'settings.set' | 'settings.choices'> {
    return {
      'settings.get': () => ({ ok: true, value: this.get() }),
      'settings.set': (changes) => {
        const resuming = this.whileResuming();
        if (resuming) return resuming;
        this.run.catchUp();
        const t = this.run.now();
        for (const [key, value] of Object.entries(changes)) {
          if (value === undefined) continue;
          const r = this.apply(key, value);
          if (!r.ok) return r;
          this.run.flush({ t, key, value });
        }
        return { ok: true, value: this.get() };
      },
      'settings.choices': () => ({
        ok: true,
        value: {
          queuePolicies: Object.values(queuePolicies).map((q) => ({
            name: q.name,
            description: q.description,
            plansAhead: plansAhead(q),
          })),
          priorities: QUEUE_PRIORITIES.map((name) => ({ name, description: PRIORITY_DESCRIPTIONS[name] })),
          policies: Object.values(malleabilityPolicies).map((p) => ({ name: p.name, description: p.description })),
          fpeVariants: Object.values(fpeVariants).map((v) => ({
            name: v.name as FpeVariantName,
            description: v.description,
          })),
        },
      }),
    };
  }
}
