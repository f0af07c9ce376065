// The input shapes of interactive periodic divisible jobs and of a cluster's RT-DLT cost model, for the job JSON,
// the Submit form and the API (the later steps); checked with zod into field errors, as every input of the core.
import { z } from 'zod';
import { parseWith, type Result } from '../model/result.js';
import type { CostModel, InteractiveJob } from './model.js';

const wholeMs = (what: string, min: number) =>
  z.number().int(`${what} must be a whole number of ms`).min(min, `${what} must be at least ${min} ms`);

export const interactiveJobSchema = z
  .object({
    id: z.string().min(1).max(200),
    arrival_ms: wholeMs('arrival', 0).default(0),
    period_ms: wholeMs('period', 1),
    deadline_ms: wholeMs('deadline', 1),
    data_units: z.number().positive('data size must be positive').finite(),
  })
  .strict()
  .refine((j) => j.deadline_ms <= j.period_ms, {
    message: 'deadline must not exceed the period',
    path: ['deadline_ms'],
  });

export const costModelSchema = z
  .object({
    cms_ms_per_unit: z.number().min(0, 'Cms must be >= 0').finite(),
    cps_ms_per_unit: z.number().positive('Cps must be > 0').finite(),
  })
  .strict();

export function parseInteractiveJob(input: unknown): Result<InteractiveJob> {
  const r = parseWith(interactiveJobSchema, input);
  if (!r.ok) return r;
  const j = r.value;
  return {
    ok: true,
    value: {
      id: j.id,
      arrivalMs: j.arrival_ms,
      periodMs: j.period_ms,
      deadlineMs: j.deadline_ms,
      dataUnits: j.data_units,
    },
  };
}

export function parseCostModel(input: unknown): Result<CostModel> {
  const r = parseWith(costModelSchema, input);
  return r.ok
    ? { ok: true, value: { cmsMsPerUnit: r.value.cms_ms_per_unit, cpsMsPerUnit: r.value.cps_ms_per_unit } }
    : r;
}
