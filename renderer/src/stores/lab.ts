// The Lab: the form that starts a run (the KOALA experiment or one simulation), the runs with their progress as
// the host pushes it (topic lab), the results of the runs chosen for the charts, and the charts' data merged over
// those runs, with CSV export. The API's field errors land on their fields.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ApiClient, FieldError, MethodInput, MethodOutput, StreamMessage } from '../api/types.js';
import { APPROACH_OPTIONS, POLICY_OPTIONS } from './settings.js';
import { csvLines } from '../../../core/text/csv.js';

export type LabRun = MethodOutput<'lab.list'>['runs'][number];
export type LabResult = MethodOutput<'lab.result'>;
export type LabPanel = LabResult['utilization'];
export type LabSpec = MethodInput<'lab.start'>;
export type LabKind = LabSpec['kind'];

/** The presets of core/sim (grids.ts, workloads/koala.ts), kept here so the core's runtime is not bundled. */
export const LAB_GRIDS = ['das3'] as const;
export const LAB_WORKLOADS = ['wm', 'wmr', 'wm-fast', 'wmr-fast', 'wme'] as const;
export { APPROACH_OPTIONS, POLICY_OPTIONS };

export const LAB_FIELDS = ['kind', 'seeds', 'poll', 'backgroundLoad', 'grid', 'workload', 'approach', 'policy', 'seed', 'maxJobs', 'form'] as const;
export type LabField = (typeof LAB_FIELDS)[number];
export type LabErrors = Partial<Record<LabField, string>>;

export interface LabForm {
  kind: LabKind;
  seeds: number | null;
  /** Seconds; empty for the simulator's default. */
  poll: number | null;
  /** 0..1; empty for the default 7.5 %. */
  backgroundLoad: number | null;
  grid: string;
  workload: string;
  approach: string;
  policy: string;
  seed: number | null;
  /** Empty for the whole workload. */
  maxJobs: number | null;
}

const ENDED = new Set<LabRun['status']>(['done', 'failed', 'cancelled']);
export const isEnded = (run: LabRun): boolean => ENDED.has(run.status);

/** The field an API error path names; anything else → form. */
export function labFieldOf(path: string): LabField {
  const key = path.split(/[.[\]"']+/).filter(Boolean)[0] ?? '';
  return (LAB_FIELDS as readonly string[]).includes(key) ? (key as LabField) : 'form';
}

/** The spec the form asks for, or the fields it still lacks. */
export function specOf(form: LabForm): { spec: LabSpec } | { errors: LabErrors } {
  const errors: LabErrors = {};
  const optional = <K extends string>(key: K, value: number | null) => (value === null ? {} : ({ [key]: value } as Record<K, number>));
  if (form.kind === 'koala') {
    if (form.seeds === null) errors.seeds = 'is required';
    if (Object.keys(errors).length) return { errors };
    return { spec: { kind: 'koala', seeds: form.seeds!, ...optional('poll', form.poll), ...optional('backgroundLoad', form.backgroundLoad) } };
  }
  if (form.seed === null) errors.seed = 'is required';
  if (Object.keys(errors).length) return { errors };
  return {
    spec: {
      kind: 'simulate',
      grid: form.grid,
      workload: form.workload,
      approach: form.approach,
      policy: form.policy,
      seed: form.seed!,
      ...optional('poll', form.poll),
      ...optional('maxJobs', form.maxJobs),
    },
  };
}

/** A chart's data: one panel of every chosen result, series named after their run when there are several. */
export interface MergedPanel extends LabPanel {
  /** Steps (CDFs), or lines (time series). */
  step: boolean;
}

export function mergePanels(results: readonly LabResult[]): MergedPanel[] {
  if (results.length === 0) return [];
  const name = (r: LabResult, series: string) => (results.length > 1 ? `${r.runId} ${series}` : series);
  const merge = (pick: (r: LabResult) => LabPanel | undefined, step: boolean): MergedPanel | undefined => {
    const first = pick(results[0]!);
    if (!first) return undefined;
    const series = results.flatMap((r) => (pick(r)?.series ?? []).map((s) => ({ name: name(r, s.name), points: s.points })));
    return { id: first.id, title: first.title, xName: first.xName, yName: first.yName, series, step };
  };
  const cdfIds = results[0]!.cdfs.map((p) => p.id);
  return [
    ...cdfIds.map((id) => merge((r) => r.cdfs.find((p) => p.id === id), true)),
    merge((r) => r.utilization, false),
    merge((r) => r.activity, true),
  ].filter((p): p is MergedPanel => p !== undefined);
}

/** A panel as CSV: one row per point, `series,<x name>,<y name>`. */
export function panelCsv(panel: LabPanel): string {
  const rows: Array<Array<string | number>> = [['series', panel.xName, panel.yName]];
  for (const s of panel.series) for (const [x, y] of s.points) rows.push([s.name, x, y]);
  return csvLines(rows);
}

export function defineLabStore(client: ApiClient) {
  return defineStore('lab', () => {
    const form = ref<LabForm>({
      kind: 'simulate',
      seeds: 1,
      poll: null,
      backgroundLoad: null,
      grid: 'das3',
      workload: 'wm',
      approach: 'pra',
      policy: 'fpsma',
      seed: 1,
      maxJobs: null,
    });
    const runs = ref<LabRun[]>([]);
    const results = shallowRef<Record<string, LabResult>>({});
    /** The runs whose results are charted, in the order chosen. */
    const chosen = ref<string[]>([]);
    const errors = ref<LabErrors>({});
    const starting = ref(false);
    /** A run started here is charted once it is done. */
    const showWhenDone = new Set<string>();

    const newestFirst = computed(() => [...runs.value].reverse());
    const chosenResults = computed(() => chosen.value.flatMap((id) => (results.value[id] ? [results.value[id]!] : [])));
    const panels = computed(() => mergePanels(chosenResults.value));

    function upsert(run: LabRun) {
      const i = runs.value.findIndex((r) => r.runId === run.runId);
      if (i >= 0) runs.value.splice(i, 1, run);
      else runs.value.push(run);
      if (run.status === 'done' && showWhenDone.delete(run.runId)) void choose(run.runId, true);
      else if (run.status === 'done' && chosen.value.includes(run.runId) && !results.value[run.runId]) void load(run.runId);
    }

    function receive(message: StreamMessage) {
      if (message.topic === 'lab') upsert(message.run);
    }

    async function refresh(): Promise<boolean> {
      const answer = await client.call('lab.list', {});
      if (!answer.ok) {
        errors.value = { form: answer.errors.map((e) => e.message).join('; ') };
        return false;
      }
      for (const run of answer.value.runs) upsert(run);
      return true;
    }

    async function start(): Promise<string | undefined> {
      if (starting.value) return undefined;
      const built = specOf(form.value);
      if ('errors' in built) {
        errors.value = built.errors;
        return undefined;
      }
      starting.value = true;
      try {
        const answer = await client.call('lab.start', built.spec);
        if (!answer.ok) {
          errors.value = errorsOf(answer.errors);
          return undefined;
        }
        errors.value = {};
        const { runId } = answer.value;
        showWhenDone.add(runId);
        // The stream may already have told; otherwise the list does.
        if (!runs.value.some((r) => r.runId === runId)) await refresh();
        const run = runs.value.find((r) => r.runId === runId);
        if (run) upsert(run);
        return runId;
      } finally {
        starting.value = false;
      }
    }

    async function cancel(runId: string): Promise<boolean> {
      const answer = await client.call('lab.cancel', { runId });
      if (answer.ok) upsert(answer.value);
      else errors.value = { form: answer.errors.map((e) => e.message).join('; ') };
      return answer.ok;
    }

    async function load(runId: string): Promise<boolean> {
      const answer = await client.call('lab.result', { runId });
      if (!answer.ok) {
        errors.value = { form: answer.errors.map((e) => e.message).join('; ') };
        return false;
      }
      results.value = { ...results.value, [runId]: answer.value };
      return true;
    }

    /** Charts a run's result (fetched when first needed), or stops charting it. */
    async function choose(runId: string, on: boolean): Promise<void> {
      if (!on) {
        chosen.value = chosen.value.filter((id) => id !== runId);
        return;
      }
      if (!chosen.value.includes(runId)) chosen.value = [...chosen.value, runId];
      if (!results.value[runId] && runs.value.find((r) => r.runId === runId)?.status === 'done') await load(runId);
    }

    /** An edit makes that field's error stale. */
    function touch(field: LabField) {
      if (!errors.value[field] && !errors.value.form) return;
      const next = { ...errors.value };
      delete next[field];
      delete next.form;
      errors.value = next;
    }

    let stop: (() => void) | undefined;
    function connect() {
      if (stop) return;
      stop = client.subscribe(receive);
      void refresh();
    }
    function disconnect() {
      stop?.();
      stop = undefined;
    }

    return { form, runs, results, chosen, errors, starting, newestFirst, chosenResults, panels, receive, refresh, start, cancel, load, choose, touch, connect, disconnect };
  });
}
export type LabStore = ReturnType<ReturnType<typeof defineLabStore>>;

function errorsOf(errors: readonly FieldError[]): LabErrors {
  const out: LabErrors = {};
  for (const e of errors) out[labFieldOf(e.path)] ??= e.message;
  return out;
}
