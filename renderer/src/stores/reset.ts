// Reset with another grid or workload (sim.reset): a preset or a grid pasted as JSON, a workload preset or none, a
// seed; the host's field errors land on their fields. After a reset the console's views follow the new run.
import { defineStore } from 'pinia';
import { ref } from 'vue';
import type { ApiClient, FieldError } from '../api/types.js';
import { parseJson } from '../../../core/model/json-text.js';

/** The host's grid and workload presets (core/sim), kept here so the core's runtime is not bundled. */
export const GRID_OPTIONS = ['das3', 'custom'] as const;
export const WORKLOAD_OPTIONS = ['wm', 'wmr', 'wm-fast', 'wmr-fast', 'wme', 'none'] as const;

export const RESET_FIELDS = ['grid', 'gridJson', 'workload', 'seed', 'form'] as const;
export type ResetField = (typeof RESET_FIELDS)[number];
export type ResetErrors = Partial<Record<ResetField, string>>;

export interface ResetForm {
  grid: (typeof GRID_OPTIONS)[number];
  /** The grid as JSON, when `grid` is custom. */
  gridJson: string;
  workload: string;
  seed: number | null;
}

/** What the views need to follow a new run. */
export interface ResetTargets {
  grid: { clear(): void; refresh(): Promise<void> };
  jobs: { refresh(): Promise<void> };
  activity: { clear(): void };
  settings: { load(): Promise<boolean> };
}

/** Where a host error belongs: `grid.clusters[0]…` on the JSON field when the grid is custom. */
export function resetErrorsOf(errors: readonly FieldError[], custom: boolean): ResetErrors {
  const out: ResetErrors = {};
  for (const e of errors) {
    const key = e.path.split(/[.[]/)[0] ?? '';
    if (key === 'grid') {
      const inner = e.path.slice('grid'.length).replace(/^\./, '');
      const field: ResetField = custom ? 'gridJson' : 'grid';
      out[field] ??= inner ? `${inner}: ${e.message}` : e.message;
    } else if (key === 'workload' || key === 'seed') out[key] ??= e.message;
    else out.form ??= e.path ? `${e.path}: ${e.message}` : e.message;
  }
  return out;
}

export function defineResetStore(client: ApiClient) {
  return defineStore('reset', () => {
    const form = ref<ResetForm>({ grid: 'das3', gridJson: '', workload: 'wm', seed: 1 });
    const errors = ref<ResetErrors>({});
    const busy = ref(false);
    /** What the host started, once it did. */
    const done = ref('');
    /** Where the host kept a copy of the stored run it could not resume, when a reset dropped one ('' otherwise). */
    const backup = ref('');

    async function submit(targets: ResetTargets): Promise<boolean> {
      done.value = '';
      errors.value = {};
      const custom = form.value.grid === 'custom';
      let grid: unknown = form.value.grid;
      if (custom) {
        const parsed = parseJson(form.value.gridJson);
        if (!parsed.ok) {
          errors.value = {
            gridJson: `is not valid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.message}`,
          };
          return false;
        }
        grid = parsed.value;
      }
      if (form.value.seed === null) {
        errors.value = { seed: 'is required' };
        return false;
      }
      busy.value = true;
      try {
        const result = await client.call('sim.reset', { grid, workload: form.value.workload, seed: form.value.seed });
        if (!result.ok) {
          errors.value = resetErrorsOf(result.errors, custom);
          return false;
        }
        const r = result.value;
        backup.value = r.backup ?? '';
        done.value = `New run: ${r.grid} (${r.clusters} clusters), workload ${r.workload} (${r.jobs} jobs), seed ${r.seed}.${r.backup ? ` The stored run was kept as a copy: ${r.backup}` : ''}`;
        targets.activity.clear();
        targets.grid.clear();
        await Promise.all([targets.grid.refresh(), targets.jobs.refresh(), targets.settings.load()]);
        return true;
      } finally {
        busy.value = false;
      }
    }

    /** An edit makes the last answer stale. */
    function touch(field: ResetField) {
      done.value = '';
      const next = { ...errors.value };
      delete next[field];
      errors.value = next;
    }

    return { form, errors, busy, done, backup, submit, touch };
  });
}
export type ResetStore = ReturnType<ReturnType<typeof defineResetStore>>;
