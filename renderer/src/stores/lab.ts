// The Lab: the form that starts a run of one of the host's experiments (lab.experiments: one simulation, KOALA,
// CooRMv2, ...; the form is built from their parameters), the runs with their progress as the host pushes it (topic
// lab), the results of the runs chosen for the charts, and the charts' data merged over those runs, with CSV export.
// The API's field errors land on their fields.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ApiClient, FieldError, MethodInput, MethodOutput, StreamMessage } from '../api/types.js';
import { csvLines } from '../../../core/model/csv.js';

export type LabRun = MethodOutput<'lab.list'>['runs'][number];
export type LabResult = MethodOutput<'lab.result'>;
export type LabPanel = LabResult['panels'][number];
export type LabColumn = LabResult['columns'][number];
export type LabSpec = MethodInput<'lab.start'>;
export type LabExperiment = MethodOutput<'lab.experiments'>['experiments'][number];
export type LabParam = LabExperiment['params'][number];

/** A field's value: a number, a choice, a list as typed (comma-separated), or empty. */
export type LabValue = number | string | null;

/** The form: the experiment chosen, and each experiment's values (kept when another is chosen and back). */
export interface LabForm {
  kind: string;
  values: Record<string, Record<string, LabValue>>;
}

/** Errors by parameter name, `kind`, or `form` for what names no field. */
export type LabErrors = Record<string, string>;

const ENDED = new Set<LabRun['status']>(['done', 'failed', 'cancelled']);
export const isEnded = (run: LabRun): boolean => ENDED.has(run.status);

/** The field an API error path names (a parameter of `experiment`, or `kind`); anything else → form. */
export function labFieldOf(path: string, experiment?: LabExperiment): string {
  const key = path.split(/[.[\]"']+/).filter(Boolean)[0] ?? '';
  return key === 'kind' || experiment?.params.some((p) => p.name === key) ? key : 'form';
}

/** Numbers written comma-separated (spaces allowed), or why not. */
export function parseList(text: string): number[] | string {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^-?\d+(\.\d+)?$/.test(p))) return 'must be numbers separated by commas';
  return parts.map(Number);
}

/** The spec the form asks for, or the fields it still lacks or cannot read. */
export function specOf(
  form: LabForm,
  experiment: LabExperiment | undefined,
): { spec: LabSpec } | { errors: LabErrors } {
  if (!experiment) return { errors: { kind: 'the experiments are not loaded yet' } };
  const values = form.values[experiment.name] ?? {};
  const errors: LabErrors = {};
  const spec: Record<string, unknown> = { kind: experiment.name };
  for (const p of experiment.params) {
    const v = values[p.name] ?? null;
    if (v === null || (typeof v === 'string' && v.trim() === '')) {
      if (p.required) errors[p.name] = 'is required';
      continue;
    }
    if (p.type === 'list') {
      const parsed = parseList(String(v));
      if (typeof parsed === 'string') errors[p.name] = parsed;
      else spec[p.name] = parsed;
    } else spec[p.name] = v;
  }
  return Object.keys(errors).length ? { errors } : { spec: spec as LabSpec };
}

/** Each experiment's initial values, with what `held` already has kept. */
export function initialValues(experiments: readonly LabExperiment[], held: LabForm['values'] = {}): LabForm['values'] {
  return Object.fromEntries(
    experiments.map((e) => [
      e.name,
      { ...Object.fromEntries(e.params.map((p) => [p.name, p.initial])), ...held[e.name] },
    ]),
  );
}

/** A chart's data: one panel of every chosen result, series named after their run when there are several. */
export type MergedPanel = LabPanel;

/** Each chart of the chosen results once (in the order they first appear), with the series of every result that has it. */
export function mergePanels(results: readonly LabResult[]): MergedPanel[] {
  const name = (r: LabResult, series: string) => (results.length > 1 ? `${r.runId} ${series}` : series);
  const merged = new Map<string, MergedPanel>();
  for (const r of results) {
    for (const p of r.panels) {
      const into = merged.get(p.id) ?? {
        id: p.id,
        title: p.title,
        xName: p.xName,
        yName: p.yName,
        step: p.step,
        series: [],
      };
      into.series = [...into.series, ...p.series.map((s) => ({ name: name(r, s.name), points: s.points }))];
      merged.set(p.id, into);
    }
  }
  return [...merged.values()];
}

/** The metric columns of the chosen results, each once (the first result's label). */
export function mergeColumns(results: readonly LabResult[]): LabColumn[] {
  const columns = new Map<string, LabColumn>();
  for (const r of results) for (const c of r.columns) if (!columns.has(c.key)) columns.set(c.key, c);
  return [...columns.values()];
}

/** A metric as its column shows it. */
export function formatMetric(value: number | null | undefined, format: LabColumn['format']): string {
  if (value === null || value === undefined) return '–';
  if (format === 'percent') return `${(value * 100).toFixed(1)} %`;
  return value.toFixed(format === 'whole' ? 0 : format === 'fixed1' ? 1 : 2);
}

/** A panel as CSV: one row per point, `series,<x name>,<y name>`. */
export function panelCsv(panel: LabPanel): string {
  const rows: Array<Array<string | number>> = [['series', panel.xName, panel.yName]];
  for (const s of panel.series) for (const [x, y] of s.points) rows.push([s.name, x, y]);
  return csvLines(rows);
}

export function defineLabStore(client: ApiClient) {
  return defineStore('lab', () => {
    /** The experiments the host offers (lab.experiments), in its order. */
    const experiments = shallowRef<LabExperiment[]>([]);
    const form = ref<LabForm>({ kind: 'simulate', values: {} });
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
    const columns = computed(() => mergeColumns(chosenResults.value));
    const experiment = computed(() => experiments.value.find((e) => e.name === form.value.kind));

    async function loadExperiments(): Promise<boolean> {
      const answer = await client.call('lab.experiments', {});
      if (!answer.ok) {
        errors.value = { form: answer.errors.map((e) => e.message).join('; ') };
        return false;
      }
      experiments.value = answer.value.experiments;
      form.value = {
        kind: experiments.value.some((e) => e.name === form.value.kind)
          ? form.value.kind
          : (experiments.value[0]?.name ?? form.value.kind),
        values: initialValues(experiments.value, form.value.values),
      };
      return true;
    }

    function upsert(run: LabRun) {
      const i = runs.value.findIndex((r) => r.runId === run.runId);
      if (i >= 0) runs.value.splice(i, 1, run);
      else runs.value.push(run);
      if (run.status === 'done' && showWhenDone.delete(run.runId)) void choose(run.runId, true);
      else if (run.status === 'done' && chosen.value.includes(run.runId) && !results.value[run.runId])
        void load(run.runId);
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
      const built = specOf(form.value, experiment.value);
      if ('errors' in built) {
        errors.value = built.errors;
        return undefined;
      }
      starting.value = true;
      try {
        const answer = await client.call('lab.start', built.spec);
        if (!answer.ok) {
          errors.value = errorsOf(answer.errors, experiment.value);
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
    function touch(field: string) {
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
      if (experiments.value.length === 0) void loadExperiments();
    }
    function disconnect() {
      stop?.();
      stop = undefined;
    }

    return {
      experiments,
      experiment,
      form,
      runs,
      results,
      chosen,
      errors,
      starting,
      newestFirst,
      chosenResults,
      panels,
      columns,
      loadExperiments,
      receive,
      refresh,
      start,
      cancel,
      load,
      choose,
      touch,
      connect,
      disconnect,
    };
  });
}
export type LabStore = ReturnType<ReturnType<typeof defineLabStore>>;

function errorsOf(errors: readonly FieldError[], experiment: LabExperiment | undefined): LabErrors {
  const out: LabErrors = {};
  for (const e of errors) out[labFieldOf(e.path, experiment)] ??= e.message;
  return out;
}
