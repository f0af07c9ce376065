// What a Lab experiment is: a name, a spec schema (a strict object whose `kind` is the name), the parameters its form
// shows, a label and a run count for the list of runs, and a computation that reports its progress and gives the
// charts. A new experiment is a new file here and one line in electron/lab/registry.ts.
import type { z } from 'zod';
import type { LabOutcome, LabParam, LabProgress } from '../schemas.js';

export interface LabExperiment<
  Name extends string,
  Schema extends z.ZodObject<{ kind: z.ZodLiteral<Name> } & z.ZodRawShape>,
> {
  readonly name: Name;
  readonly title: string;
  readonly description: string;
  readonly schema: Schema;
  /** In the form's order; each names a field of the schema. */
  readonly params: readonly LabParam[];
  /** One line for the list of runs. */
  label(spec: z.infer<Schema>): string;
  /** How many simulation runs it makes (its progress counts them). */
  runsTotal(spec: z.infer<Schema>): number;
  compute(spec: z.infer<Schema>, onProgress: (p: LabProgress) => void): LabOutcome;
}

/** Checks an experiment's shape while keeping its schema's own type (for the registry's union). */
export function defineExperiment<
  Name extends string,
  Schema extends z.ZodObject<{ kind: z.ZodLiteral<Name> } & z.ZodRawShape>,
>(experiment: LabExperiment<Name, Schema>): LabExperiment<Name, Schema> {
  return experiment;
}
