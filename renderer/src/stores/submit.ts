// The submit form: its state, live validation with the core's own jobSpecSchema (each zod issue lands on its form
// field), the API's field errors mapped the same way, and the submit action. When the run's queue policy plans ahead
// (fcfs, easy, cbf: it reads each job's walltime), the form requires a walltime.
import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import {
  jobSpecSchema,
  JOB_KINDS,
  PLACEMENT_POLICIES,
  type JobSpecInput,
  type PlacementPolicyName,
} from '../../../core/model/schemas.js';
import { isUnanswered, type ApiClient, type FieldError } from '../api/types.js';
import { hms } from '../format.js';
import { callRetryingOnce } from '../api/retry.js';

export type JobKindName = (typeof JOB_KINDS)[number];
export const APP_MODELS = ['ft', 'gadget2', 'evolving'] as const;
export type AppModelName = (typeof APP_MODELS)[number];
export { JOB_KINDS, PLACEMENT_POLICIES };

export const FORM_FIELDS = [
  'name',
  'kind',
  'processors',
  'min',
  'max',
  'initial',
  'app',
  'phases',
  'phaseS',
  'announceS',
  'arrivalMs',
  'periodMs',
  'dataUnits',
  'deadlineMs',
  'load',
  'overrunEvery',
  'overrunFactor',
  'interactive',
  'profile',
  'placement',
  'program',
  'args',
  'cluster',
  'walltime',
  'form',
] as const;
/** The evolving application model's parameters: form fields named as the spec's `app` fields. */
const EVOLVING_MODEL_FIELDS = ['phases', 'phaseS', 'announceS'] as const;
/** An interactive job's (A, T, σ, D): form fields named as the spec's `interactive` fields. */
export const INTERACTIVE_FIELDS = ['arrivalMs', 'periodMs', 'dataUnits', 'deadlineMs'] as const;
/** An interactive job's simulated application (the `periodic` model, the periodic demo's arguments): form fields named as its `app` fields. */
export const PERIODIC_MODEL_FIELDS = ['load', 'overrunEvery', 'overrunFactor'] as const;
export type FormField = (typeof FORM_FIELDS)[number];
export type FieldErrors = Partial<Record<FormField, string>>;
/** A step of an evolution profile as the form holds it (null: left empty). */
export interface FormStep {
  duration_s: number | null;
  processors: number | null;
}
/** Errors of the evolution profile's steps, keyed `<index>.<field>` (e.g. `2.processors`). */
export type StepErrors = Partial<Record<string, string>>;

export interface SubmitForm {
  name: string;
  kind: JobKindName;
  /** Rigid jobs only. */
  processors: number | null;
  min: number | null;
  max: number | null;
  /** Malleable and evolving jobs only (optional): the size at start. */
  initial: number | null;
  app: AppModelName;
  /** The evolving model (an evolving job's working-set phases): how many, seconds each, seconds announced ahead. */
  phases: number | null;
  phaseS: number | null;
  announceS: number | null;
  /** Evolving jobs: sized by an evolution profile (its steps) instead of min, initial and max. */
  profiled: boolean;
  steps: FormStep[];
  /** Interactive jobs: A (ms after admission), T (ms), σ (data units), D (ms). */
  arrivalMs: number | null;
  periodMs: number | null;
  dataUnits: number | null;
  deadlineMs: number | null;
  /** Interactive jobs in simulation: each task computes load × C; every overrunEvery-th iteration overrunFactor × C. */
  load: number | null;
  overrunEvery: number | null;
  overrunFactor: number | null;
  placement: PlacementPolicyName;
  program: string;
  /** The program's arguments, words separated by spaces (each one word, quoted when it reaches a shell). */
  args: string;
  /** A fixed cluster for the job (optional: null lets the placement policy choose). */
  cluster: string | null;
  /** As typed: seconds (5400) or h:mm:ss (1:30:00); empty for none. */
  walltime: string;
}

export const WALLTIME_FORMAT = 'seconds (5400) or h:mm:ss (1:30:00)';

/**
 * The walltime typed in the form, in seconds (undefined: empty), or what is wrong with it. Decision: the form takes
 * a number of seconds or h:mm:ss (hours of any length, minutes and seconds of two digits), as batch systems print
 * times; other forms (days, m:ss) are refused rather than guessed.
 */
export function parseWalltime(
  text: string,
): { ok: true; seconds: number | undefined } | { ok: false; message: string } {
  const t = text.trim();
  if (t === '') return { ok: true, seconds: undefined };
  let seconds: number | undefined;
  if (/^\d+(\.\d+)?$/.test(t)) seconds = Number(t);
  else {
    const m = /^(\d+):([0-5]\d):([0-5]\d)$/.exec(t);
    if (m) seconds = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
  }
  if (seconds === undefined) return { ok: false, message: `must be ${WALLTIME_FORMAT} (got "${t}")` };
  if (!(seconds > 0)) return { ok: false, message: 'must be more than 0 seconds' };
  return { ok: true, seconds };
}

/** A walltime as the form shows it: h:mm:ss for whole seconds, else the seconds. */
export const walltimeText = (seconds: number): string => (Number.isInteger(seconds) ? hms(seconds) : String(seconds));

export const defaultForm = (): SubmitForm => ({
  name: '',
  kind: 'malleable',
  processors: 8,
  min: 2,
  max: 32,
  initial: null,
  app: 'ft',
  phases: 6,
  phaseS: 300,
  announceS: 0,
  profiled: false,
  steps: [
    { duration_s: 600, processors: 4 },
    { duration_s: 300, processors: 16 },
  ],
  arrivalMs: 0,
  periodMs: 1000,
  dataUnits: 20,
  deadlineMs: 500,
  load: 0.5,
  overrunEvery: 0,
  overrunFactor: 2,
  placement: 'wf',
  program: 'ft',
  args: '',
  cluster: null,
  walltime: '',
});

/**
 * The arguments typed in the form, one per word. Decision: the form takes words separated by spaces (what a user
 * types after a program); an argument holding a space can be given through the API or the command line.
 */
export const argsOf = (text: string): string[] => text.split(/\s+/).filter((word) => word.length > 0);

/** Kinds that start at a chosen size inside min..max. */
export const hasInitial = (kind: JobKindName): boolean => kind === 'malleable' || kind === 'evolving';

type AppSpecInput = NonNullable<JobSpecInput['app']>;

/** The application model the form stands for; the evolving model with the parameters given (the others default). */
function appOf(form: SubmitForm): AppSpecInput {
  if (form.app !== 'evolving') return { model: form.app };
  const app: Extract<AppSpecInput, { model: 'evolving' }> = { model: 'evolving' };
  for (const f of EVOLVING_MODEL_FIELDS) {
    const value = form[f];
    if (value !== null) app[f] = value;
  }
  return app;
}

/** The job spec the form stands for: only the fields that apply to its kind. */
export function toSpec(form: SubmitForm): JobSpecInput {
  const component: JobSpecInput['components'][number] = { program: form.program };
  const args = argsOf(form.args);
  if (args.length) component.args = args;
  if (form.cluster !== null && form.cluster !== '') component.cluster = form.cluster;
  if (form.kind === 'interactive') {
    // Its worker nodes follow from (T, σ, D) on the cluster's cost model; its driver runs no application model.
    const interactive: Partial<Record<(typeof INTERACTIVE_FIELDS)[number], number>> = {};
    for (const f of INTERACTIVE_FIELDS) if (form[f] !== null) interactive[f] = form[f];
    // Its simulated application (live jobs ignore it): an empty field is the schema's default.
    const app: Extract<AppSpecInput, { model: 'periodic' }> = { model: 'periodic' };
    for (const f of PERIODIC_MODEL_FIELDS) {
      const value = form[f];
      if (value !== null) app[f] = value;
    }
    const spec: JobSpecInput = {
      kind: form.kind,
      components: [component],
      placement: form.placement,
      interactive: interactive as NonNullable<JobSpecInput['interactive']>,
      app,
    };
    if (form.name.trim()) spec.name = form.name;
    const walltime = parseWalltime(form.walltime);
    if (walltime.ok && walltime.seconds !== undefined) spec.walltime = walltime.seconds;
    return spec;
  }
  if (form.kind === 'evolving' && form.profiled) {
    // Its sizes are its steps'; a step's empty field is left out, so the schema says at the field that it is needed.
    const steps = form.steps.map((s) => ({
      ...(s.duration_s === null ? {} : { duration_s: s.duration_s }),
      ...(s.processors === null ? {} : { processors: s.processors }),
    }));
    const spec: JobSpecInput = {
      kind: form.kind,
      components: [component],
      placement: form.placement,
      profile: { steps: steps as Array<{ duration_s: number; processors: number }> },
    };
    if (form.name.trim()) spec.name = form.name;
    const walltime = parseWalltime(form.walltime);
    if (walltime.ok && walltime.seconds !== undefined) spec.walltime = walltime.seconds;
    return spec;
  }
  if (form.kind === 'rigid') {
    if (form.processors !== null) component.processors = form.processors;
  } else {
    if (form.min !== null) component.min = form.min;
    if (form.max !== null) component.max = form.max;
    if (hasInitial(form.kind) && form.initial !== null) component.initial = form.initial;
  }
  const spec: JobSpecInput = { kind: form.kind, components: [component], placement: form.placement, app: appOf(form) };
  if (form.name.trim()) spec.name = form.name;
  const walltime = parseWalltime(form.walltime);
  // A walltime that does not parse is left out here: validate() says so at its field.
  if (walltime.ok && walltime.seconds !== undefined) spec.walltime = walltime.seconds;
  return spec;
}

/**
 * The form for a job spec (a saved template): what the form cannot show keeps its default. Decision: an application
 * model the form does not offer (fixed, amdahl) becomes FT, and only the first component is kept.
 */
export function fromSpec(spec: JobSpecInput): SubmitForm {
  const base = defaultForm();
  const c = spec.components[0];
  const model = spec.app?.model;
  return {
    name: spec.name ?? '',
    kind: spec.kind,
    processors: c?.processors ?? base.processors,
    min: c?.min ?? base.min,
    max: c?.max ?? base.max,
    initial: c?.initial ?? null,
    app: (APP_MODELS as readonly string[]).includes(model ?? '') ? (model as AppModelName) : base.app,
    // An evolving model's parameter the spec leaves out stays out (empty: the schema's default).
    phases: spec.app?.model === 'evolving' ? (spec.app.phases ?? null) : base.phases,
    phaseS: spec.app?.model === 'evolving' ? (spec.app.phaseS ?? null) : base.phaseS,
    announceS: spec.app?.model === 'evolving' ? (spec.app.announceS ?? null) : base.announceS,
    profiled: spec.profile !== undefined,
    steps: spec.profile
      ? spec.profile.steps.map((s) => ({ duration_s: s.duration_s, processors: s.processors }))
      : base.steps,
    arrivalMs: spec.interactive ? (spec.interactive.arrivalMs ?? null) : base.arrivalMs,
    periodMs: spec.interactive ? (spec.interactive.periodMs ?? null) : base.periodMs,
    dataUnits: spec.interactive ? (spec.interactive.dataUnits ?? null) : base.dataUnits,
    deadlineMs: spec.interactive ? (spec.interactive.deadlineMs ?? null) : base.deadlineMs,
    load: spec.app?.model === 'periodic' ? (spec.app.load ?? null) : base.load,
    overrunEvery: spec.app?.model === 'periodic' ? (spec.app.overrunEvery ?? null) : base.overrunEvery,
    overrunFactor: spec.app?.model === 'periodic' ? (spec.app.overrunFactor ?? null) : base.overrunFactor,
    placement: spec.placement ?? base.placement,
    program: c?.program ?? base.program,
    args: (c?.args ?? []).join(' '),
    cluster: c?.cluster ?? null,
    walltime: spec.walltime === undefined ? '' : walltimeText(spec.walltime),
  };
}

/**
 * The form field a path names: `components[0].min` → min, `app.model` → app, `app.phases` → phases,
 * `interactive.periodMs` → periodMs (a refusal of the whole interactive job: interactive); else form.
 */
export function fieldOf(path: string | readonly PropertyKey[]): FormField {
  const keys = typeof path === 'string' ? path.split(/[.[\]]+/).filter(Boolean) : path.map(String);
  if (keys[0] === 'components' && keys.length >= 3) keys.splice(0, 2);
  if (
    keys[0] === 'app' &&
    ([...EVOLVING_MODEL_FIELDS, ...PERIODIC_MODEL_FIELDS] as readonly string[]).includes(keys[1] ?? '')
  )
    keys.shift();
  if (keys[0] === 'interactive' && (INTERACTIVE_FIELDS as readonly string[]).includes(keys[1] ?? '')) keys.shift();
  const key = keys[0] ?? '';
  return (FORM_FIELDS as readonly string[]).includes(key) ? (key as FormField) : 'form';
}

/** Where a path names a step's field of the evolution profile (`profile.steps[2].processors`): its key, e.g. `2.processors`. */
export function stepKeyOf(path: string | readonly PropertyKey[]): string | undefined {
  const keys = typeof path === 'string' ? path.split(/[.[\]]+/).filter(Boolean) : path.map(String);
  if (keys[0] !== 'profile' || keys[1] !== 'steps' || keys[2] === undefined || keys[3] === undefined) return undefined;
  return `${keys[2]}.${keys[3]}`;
}

/** The first message per step field. */
export function byStep(errors: readonly { path: string | readonly PropertyKey[]; message: string }[]): StepErrors {
  const out: StepErrors = {};
  for (const e of errors) {
    const key = stepKeyOf(e.path);
    if (key !== undefined) out[key] ??= e.message;
  }
  return out;
}

/** The errors of the profile's steps the form stands for (the core's schema). */
export function validateSteps(form: SubmitForm): StepErrors {
  if (form.kind !== 'evolving' || !form.profiled) return {};
  const result = jobSpecSchema.safeParse(toSpec(form));
  return result.success ? {} : byStep(result.error.issues);
}

/** The first message per field. */
export function byField(errors: readonly { path: string | readonly PropertyKey[]; message: string }[]): FieldErrors {
  const out: FieldErrors = {};
  for (const e of errors) {
    // A step's error is shown at the step (byStep); the profile as a whole has a field of its own.
    if (stepKeyOf(e.path) !== undefined) continue;
    const field = fieldOf(e.path);
    out[field] ??= e.message;
  }
  return out;
}

/**
 * The form's errors: the core's schema on the spec, the walltime as typed, and, when `planningPolicy` names the run's
 * queue policy that plans ahead, a missing walltime. Decision: only the form requires it (a job spec from the API or
 * a trace may leave it out: the job is then planned as never ending, or, sized by an evolution profile, by its steps'
 * lengths).
 */
export function validate(form: SubmitForm, planningPolicy?: string): FieldErrors {
  const result = jobSpecSchema.safeParse(toSpec(form));
  const errors = result.success ? {} : byField(result.error.issues);
  const walltime = parseWalltime(form.walltime);
  if (!walltime.ok) errors.walltime = walltime.message;
  else if (walltime.seconds === undefined && planningPolicy !== undefined) {
    errors.walltime = `is required: the queue policy ${planningPolicy} plans with each job's walltime`;
  }
  return errors;
}

/** How long a submission waits for its answer before it counts as unanswered (and is sent once more). */
export const SUBMIT_TIMEOUT_MS = 15_000;

/** `planningPolicy`: the run's queue policy when it plans ahead with walltimes (then the form requires one). */
export function defineSubmitStore(client: ApiClient, planningPolicy: () => string | undefined = () => undefined) {
  return defineStore('submit', () => {
    const form = ref<SubmitForm>(defaultForm());
    const serverErrors = ref<FieldErrors>({});
    const serverStepErrors = ref<StepErrors>({});
    const submitting = ref(false);
    const submittedId = ref('');
    /**
     * The submission the form stands for while no answer came for it, with its id. Decision: the same spec submitted
     * again after no answer is the same submission (same id: never a second job); after an answer, or with another
     * spec, it is a new one.
     */
    let unansweredSubmission: { id: string; spec: string } | undefined;

    const validation = computed(() => validate(form.value, planningPolicy()));
    /** The queue policy that needs the walltime, if the run's does. */
    const walltimeNeededBy = computed(() => planningPolicy());
    const stepValidation = computed(() => validateSteps(form.value));
    const valid = computed(
      () => Object.keys(validation.value).length === 0 && Object.keys(stepValidation.value).length === 0,
    );
    /** What each step's fields show: the live validation first, then the host's answer (a step too large for every cluster). */
    const stepErrors = computed<StepErrors>(() => ({ ...serverStepErrors.value, ...stepValidation.value }));
    /** What each field shows: the live validation first, then what the host answered for the last submission. */
    const errors = computed<FieldErrors>(() => ({ ...serverErrors.value, ...validation.value }));

    // An edit makes the host's last answer stale.
    watch(
      form,
      () => {
        serverErrors.value = {};
        serverStepErrors.value = {};
      },
      { deep: true },
    );
    // Decision: the evolving model goes with the evolving kind; choosing the kind chooses the model, and leaving the
    // kind leaves the model (another kind would run it as a fixed run time, not what the form's user meant).
    // A form filled from a template (a new form object) keeps the template's model.
    watch(
      () => [form.value, form.value.kind] as const,
      ([filled, kind], [before, kindBefore]) => {
        if (filled !== before) return;
        if (kind === 'evolving' && kindBefore !== 'evolving' && form.value.app !== 'evolving')
          form.value.app = 'evolving';
        else if (kind !== 'evolving' && form.value.app === 'evolving') form.value.app = 'ft';
      },
    );

    async function submit(): Promise<boolean> {
      submittedId.value = '';
      if (!valid.value || submitting.value) return false;
      submitting.value = true;
      try {
        const spec = toSpec(form.value);
        const key = JSON.stringify(spec);
        if (unansweredSubmission?.spec !== key) unansweredSubmission = { id: crypto.randomUUID(), spec: key };
        // A lost answer is asked for again with the same id: the host answers with the job it made, if it made one.
        const result = await callRetryingOnce(
          client,
          'jobs.submit',
          { ...spec, submissionId: unansweredSubmission.id },
          { timeoutMs: SUBMIT_TIMEOUT_MS },
        );
        if (!isUnanswered(result)) unansweredSubmission = undefined;
        if (result.ok) {
          submittedId.value = result.value.jobId;
          return true;
        }
        serverErrors.value = byField(result.errors as FieldError[]);
        serverStepErrors.value = byStep(result.errors as FieldError[]);
        return false;
      } finally {
        submitting.value = false;
      }
    }

    /** Fills the form from a job spec (a template). */
    function apply(spec: JobSpecInput) {
      form.value = fromSpec(spec);
      serverErrors.value = {};
      serverStepErrors.value = {};
      submittedId.value = '';
    }

    function reset() {
      form.value = defaultForm();
      serverErrors.value = {};
      serverStepErrors.value = {};
      submittedId.value = '';
    }

    function addStep() {
      const last = form.value.steps[form.value.steps.length - 1];
      form.value.steps.push({ duration_s: last?.duration_s ?? 600, processors: last?.processors ?? 4 });
    }

    function removeStep(index: number) {
      form.value.steps.splice(index, 1);
    }

    return {
      form,
      serverErrors,
      submitting,
      submittedId,
      validation,
      valid,
      errors,
      stepErrors,
      walltimeNeededBy,
      submit,
      apply,
      reset,
      addStep,
      removeStep,
    };
  });
}
export type SubmitStore = ReturnType<ReturnType<typeof defineSubmitStore>>;
