// The scheduler's settings (approach, malleability policy, placement tries threshold, the living grid's stream of
// jobs: arrivals per hour and mix, the queue policy, reservation depth and priority, the FPE variant and a profiled
// job's grow timeout and attempts): loaded with
// settings.get, edited in a form, saved with settings.set; the API's field errors land on their fields. The
// malleability policies, queue policies, priorities and FPE variants offered come from the host (settings.choices),
// never copied here.
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ApiClient, FieldError, MethodOutput } from '../api/types.js';

export type Settings = MethodOutput<'settings.get'>;
export type SettingsChoices = MethodOutput<'settings.choices'>;
export const APPROACH_OPTIONS = ['pra', 'pwa'] as const;

export const STREAM_FIELDS = ['jobsPerHour', 'malleablePct', 'rigidPct', 'evolvingPct'] as const;
export type StreamField = (typeof STREAM_FIELDS)[number];
export const SETTINGS_FIELDS = [
  'approach',
  'policy',
  'triesThreshold',
  ...STREAM_FIELDS,
  'queue',
  'reservationDepth',
  'priority',
  'fpeVariant',
  'fpeGrowTimeoutS',
  'fpeGrowAttempts',
  'form',
] as const;
export type SettingsField = (typeof SETTINGS_FIELDS)[number];
export type SettingsErrors = Partial<Record<SettingsField, string>>;

export interface SettingsForm {
  approach: string;
  policy: string;
  triesThreshold: number | null;
  jobsPerHour: number | null;
  malleablePct: number | null;
  rigidPct: number | null;
  evolvingPct: number | null;
  queue: string;
  /** Empty (null): the queue policy's own depth. */
  reservationDepth: number | null;
  priority: string;
  /** How profiled evolving jobs are scheduled. */
  fpeVariant: string;
  /** Seconds a profiled job's step grow may take to be all running before it is withdrawn as failed. */
  fpeGrowTimeoutS: number | null;
  /** Failed grows of one step after which a profiled job ends, failed. */
  fpeGrowAttempts: number | null;
}

/** The settings the form requires (an empty one is refused at its field before the API is called). */
const REQUIRED_FIELDS = ['triesThreshold', 'fpeGrowTimeoutS', 'fpeGrowAttempts'] as const;

/** What is wrong with a reservation depth as typed, if anything (null, empty, is the policy's own). */
export function reservationDepthError(depth: number | null): string | undefined {
  if (depth === null) return undefined;
  return Number.isInteger(depth) && depth >= 0
    ? undefined
    : "must be a whole number of jobs, 0 or more (or empty: the queue policy's own)";
}

/** The field an API error path names (`triesThreshold`, `[\"policy\"]`, `stream.rigidPct`…); anything else → form. */
export function settingsFieldOf(path: string): SettingsField {
  const keys = path.split(/[.[\]"']+/).filter(Boolean);
  const key = (keys[0] === 'stream' ? (keys[1] ?? 'jobsPerHour') : keys[0]) ?? '';
  return (SETTINGS_FIELDS as readonly string[]).includes(key) ? (key as SettingsField) : 'form';
}

export function settingsErrorsOf(errors: readonly FieldError[]): SettingsErrors {
  const out: SettingsErrors = {};
  for (const e of errors) out[settingsFieldOf(e.path)] ??= e.message;
  return out;
}

export function defineSettingsStore(client: ApiClient) {
  return defineStore('settings', () => {
    const form = ref<SettingsForm>({
      approach: 'pra',
      policy: 'fpsma',
      triesThreshold: 3,
      jobsPerHour: null,
      malleablePct: null,
      rigidPct: null,
      evolvingPct: null,
      queue: 'koala',
      reservationDepth: null,
      priority: 'submit',
      fpeVariant: '2X+c',
      fpeGrowTimeoutS: 300,
      fpeGrowAttempts: 3,
    });
    const loaded = ref<Settings | undefined>();
    const choices = ref<SettingsChoices | undefined>();
    /** The run's queue policy when it plans ahead with the jobs' walltimes (fcfs, easy, cbf...), else undefined. */
    const planningPolicy = computed(() => {
      const name = loaded.value?.queue;
      return choices.value?.queuePolicies.find((q) => q.name === name)?.plansAhead ? name : undefined;
    });
    const errors = ref<SettingsErrors>({});
    const loading = ref(false);
    const saving = ref(false);
    const saved = ref(false);

    function apply(s: Settings) {
      loaded.value = s;
      form.value = {
        approach: s.approach,
        policy: s.policy,
        triesThreshold: s.triesThreshold,
        ...(s.stream ?? { jobsPerHour: null, malleablePct: null, rigidPct: null, evolvingPct: null }),
        queue: s.queue,
        reservationDepth: s.reservationDepth,
        priority: s.priority,
        fpeVariant: s.fpeVariant,
        fpeGrowTimeoutS: s.fpeGrowTimeoutS,
        fpeGrowAttempts: s.fpeGrowAttempts,
      };
    }

    /** The malleability policies, queue policies, priorities and FPE variants the host offers (once: they do not change during a run). */
    async function loadChoices(): Promise<boolean> {
      if (choices.value) return true;
      const result = await client.call('settings.choices', {});
      if (result.ok) choices.value = result.value;
      return result.ok;
    }

    /** The run's settings as they are now, for other views (the Submit form), leaving the form's edits alone. */
    async function refresh(): Promise<void> {
      const [current] = await Promise.all([client.call('settings.get', {}), loadChoices()]);
      if (current.ok) loaded.value = current.value;
    }

    async function load(): Promise<boolean> {
      loading.value = true;
      try {
        const result = await client.call('settings.get', {});
        if (result.ok) {
          apply(result.value);
          errors.value = {};
          return true;
        }
        errors.value = settingsErrorsOf(result.errors);
        return false;
      } finally {
        loading.value = false;
      }
    }

    async function save(): Promise<boolean> {
      saved.value = false;
      if (saving.value) return false;
      const f = form.value;
      const missing = ([...REQUIRED_FIELDS, ...STREAM_FIELDS] as const).filter(
        (k) => f[k] === null && ((REQUIRED_FIELDS as readonly string[]).includes(k) || loaded.value?.stream),
      );
      const depthError = reservationDepthError(f.reservationDepth);
      if (missing.length || depthError) {
        errors.value = {
          ...Object.fromEntries(missing.map((k) => [k, 'is required'])),
          ...(depthError ? { reservationDepth: depthError } : {}),
        };
        return false;
      }
      saving.value = true;
      try {
        const stream =
          f.jobsPerHour !== null && f.malleablePct !== null && f.rigidPct !== null && f.evolvingPct !== null
            ? {
                stream: {
                  jobsPerHour: f.jobsPerHour,
                  malleablePct: f.malleablePct,
                  rigidPct: f.rigidPct,
                  evolvingPct: f.evolvingPct,
                },
              }
            : {};
        const result = await client.call('settings.set', {
          approach: f.approach as Settings['approach'],
          policy: f.policy,
          triesThreshold: f.triesThreshold!,
          ...stream,
          queue: f.queue as Settings['queue'],
          reservationDepth: f.reservationDepth,
          priority: f.priority as Settings['priority'],
          fpeVariant: f.fpeVariant as Settings['fpeVariant'],
          fpeGrowTimeoutS: f.fpeGrowTimeoutS!,
          fpeGrowAttempts: f.fpeGrowAttempts!,
        });
        if (result.ok) {
          apply(result.value);
          errors.value = {};
          saved.value = true;
          return true;
        }
        errors.value = settingsErrorsOf(result.errors);
        return false;
      } finally {
        saving.value = false;
      }
    }

    /** An edit makes the last answer (errors, confirmation) stale. */
    function touch(field?: SettingsField) {
      saved.value = false;
      if (field) {
        const next = { ...errors.value };
        delete next[field];
        errors.value = next;
      }
    }

    return {
      form,
      loaded,
      choices,
      planningPolicy,
      errors,
      loading,
      saving,
      saved,
      load,
      loadChoices,
      refresh,
      save,
      touch,
    };
  });
}
export type SettingsStore = ReturnType<ReturnType<typeof defineSettingsStore>>;
