// The Lab's experiments by name: one map, from which the spec union the API validates, the run info that carries a
// spec, the descriptions the console builds its form from (lab.experiments), and the computation are derived. A new
// experiment is a new file in electron/lab/experiments/ and one line here.
import { z } from 'zod';
import { coormExperiment } from './experiments/coorm.js';
import { dbesExperiment } from './experiments/dbes.js';
import { fpeExperiment } from './experiments/fpe.js';
import { interactiveExperiment } from './experiments/interactive.js';
import { koalaExperiment } from './experiments/koala.js';
import { simulateExperiment } from './experiments/simulate.js';
import { labRunStateSchema, type LabExperimentInfo, type LabOutcome, type LabProgress } from './schemas.js';

/** In the order the console offers them. */
export const LAB_EXPERIMENTS = {
  simulate: simulateExperiment,
  koala: koalaExperiment,
  coorm: coormExperiment,
  fpe: fpeExperiment,
  interactive: interactiveExperiment,
  dbes: dbesExperiment,
} as const;
export type LabExperimentName = keyof typeof LAB_EXPERIMENTS;
export const LAB_EXPERIMENT_NAMES = Object.keys(LAB_EXPERIMENTS) as LabExperimentName[];

export const labSpecSchema = z.discriminatedUnion(
  'kind',
  [
    simulateExperiment.schema,
    koalaExperiment.schema,
    coormExperiment.schema,
    fpeExperiment.schema,
    interactiveExperiment.schema,
    dbesExperiment.schema,
  ],
  {
    error: () => `must be one of ${LAB_EXPERIMENT_NAMES.join(', ')}`,
  },
);
export type LabSpec = z.infer<typeof labSpecSchema>;

export const labRunInfoSchema = labRunStateSchema.extend({ spec: labSpecSchema });
export type LabRunInfo = z.infer<typeof labRunInfoSchema>;

/** The experiment a spec names. */
// Each experiment takes its own spec: the union is checked by labSpecSchema, and `kind` picks the experiment.
const experimentOf = (spec: LabSpec) =>
  LAB_EXPERIMENTS[spec.kind] as unknown as {
    label(s: LabSpec): string;
    runsTotal(s: LabSpec): number;
    compute(s: LabSpec, p: (p: LabProgress) => void): LabOutcome;
  };

/** A label for a spec, shown in the list of runs. */
export function labLabel(spec: LabSpec): string {
  return experimentOf(spec).label(spec);
}

/** How many simulation runs a spec makes. */
export function labRunsTotal(spec: LabSpec): number {
  return experimentOf(spec).runsTotal(spec);
}

export function computeLab(spec: LabSpec, onProgress: (p: LabProgress) => void = () => {}): LabOutcome {
  return experimentOf(spec).compute(spec, onProgress);
}

/** What the console's form is built from. */
export function labExperimentInfos(): LabExperimentInfo[] {
  return LAB_EXPERIMENT_NAMES.map((name) => {
    const e = LAB_EXPERIMENTS[name];
    return { name, title: e.title, description: e.description, params: e.params.map((p) => ({ ...p })) };
  });
}
