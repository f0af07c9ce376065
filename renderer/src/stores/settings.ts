// The scheduler's settings (approach, malleability policy, placement tries threshold, the living grid's stream of
// jobs: arrivals per hour and mix): loaded with settings.get,
// edited in a form, saved with settings.set; the API's field errors land on their fields.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ApiClient, FieldError, MethodOutput } from '../api/types.js';

export type Settings = MethodOutput<'settings.get'>;
export const APPROACH_OPTIONS = ['pra', 'pwa'] as const;
/** The malleability policies of core/malleability/registry.ts, kept here so the core's runtime is not bundled. */
export const POLICY_OPTIONS = ['fpsma', 'egs', 'equipartition'] as const;

export const STREAM_FIELDS = ['jobsPerHour', 'malleablePct', 'rigidPct', 'evolvingPct'] as const;
export type StreamField = (typeof STREAM_FIELDS)[number];
export const SETTINGS_FIELDS = ['approach', 'policy', 'triesThreshold', ...STREAM_FIELDS, 'form'] as const;
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
    const form = ref<SettingsForm>({ approach: 'pra', policy: 'fpsma', triesThreshold: 3, jobsPerHour: null, malleablePct: null, rigidPct: null, evolvingPct: null });
    const loaded = ref<Settings | undefined>();
    const errors = ref<SettingsErrors>({});
    const loading = ref(false);
    const saving = ref(false);
    const saved = ref(false);

    function apply(s: Settings) {
      loaded.value = s;
      form.value = { approach: s.approach, policy: s.policy, triesThreshold: s.triesThreshold, ...(s.stream ?? { jobsPerHour: null, malleablePct: null, rigidPct: null, evolvingPct: null }) };
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
      const missing = (['triesThreshold', ...STREAM_FIELDS] as const).filter((k) => f[k] === null && (k === 'triesThreshold' || loaded.value?.stream));
      if (missing.length) {
        errors.value = Object.fromEntries(missing.map((k) => [k, 'is required']));
        return false;
      }
      saving.value = true;
      try {
        const stream =
          f.jobsPerHour !== null && f.malleablePct !== null && f.rigidPct !== null && f.evolvingPct !== null
            ? { stream: { jobsPerHour: f.jobsPerHour, malleablePct: f.malleablePct, rigidPct: f.rigidPct, evolvingPct: f.evolvingPct } }
            : {};
        const result = await client.call('settings.set', {
          approach: f.approach as Settings['approach'],
          policy: f.policy,
          triesThreshold: f.triesThreshold!,
          ...stream,
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

    return { form, loaded, errors, loading, saving, saved, load, save, touch };
  });
}
export type SettingsStore = ReturnType<ReturnType<typeof defineSettingsStore>>;
