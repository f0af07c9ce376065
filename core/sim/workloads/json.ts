// Jobs and grids from JSON text, with errors that point at the source position or the offending field.
import { gridSpecSchema, type GridSpec, type JobSpec } from '../../model/schemas.js';
import { fail, ok, parseWith, type FieldError, type Result } from '../../model/result.js';
import { parseJob } from '../../model/job.js';
import type { Grid } from '../../model/grid.js';
import { parseJson } from '../../model/json-text.js';

function parseJsonText(text: string, source: string): Result<unknown> {
  const parsed = parseJson(text);
  if (parsed.ok) return ok(parsed.value);
  return fail([{ path: `${source}:${parsed.line}:${parsed.column}`, message: `is not valid JSON: ${parsed.message}` }]);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Jobs from a JSON array of job specs, or from `{ "jobs": [...] }` (with an optional "description"). Missing ids
 * become `job-<index>` (the index in the array, matching the `jobs[i]` error paths); duplicate ids are refused.
 * With a grid, each job is also checked against it (clusters, files, sizes that can never fit).
 */
export function parseJobsJson(text: string, source: string, grid?: Grid): Result<JobSpec[]> {
  const parsed = parseJsonText(text, source);
  if (!parsed.ok) return fail(parsed.errors);
  const root = parsed.value;
  let list: unknown[];
  if (Array.isArray(root)) {
    list = root;
  } else if (isRecord(root)) {
    const unknownKeys = Object.keys(root).filter((k) => k !== 'jobs' && k !== 'description');
    if (unknownKeys.length)
      return fail(
        unknownKeys.map((k) => ({
          path: k,
          message: 'is not a known key (expected "jobs" and optionally "description")',
        })),
      );
    if (!Array.isArray(root.jobs)) return fail([{ path: 'jobs', message: 'must be an array of job specs' }]);
    list = root.jobs;
  } else {
    return fail([{ path: '', message: `${source} must hold an array of job specs or an object with a "jobs" array` }]);
  }

  const errors: FieldError[] = [];
  const jobs: JobSpec[] = [];
  const seen = new Map<string, number>();
  list.forEach((input, index) => {
    const at = `jobs[${index}]`;
    const withId = isRecord(input) && input.id === undefined ? { ...input, id: `job-${index}` } : input;
    const job = parseJob(withId, grid);
    if (!job.ok) {
      for (const e of job.errors) errors.push({ path: e.path ? `${at}.${e.path}` : at, message: e.message });
      return;
    }
    const id = job.value.id!;
    const first = seen.get(id);
    if (first !== undefined)
      errors.push({
        path: `${at}.id`,
        message: `duplicates id "${id}": jobs[${first}] and jobs[${index}] both use it`,
      });
    else seen.set(id, index);
    jobs.push(job.value);
  });
  return errors.length ? fail(errors) : ok(jobs);
}

/** A grid spec from JSON text; syntax errors name `source:line:column`, field errors their path. */
export function parseGridJson(text: string, source: string): Result<GridSpec> {
  const parsed = parseJsonText(text, source);
  if (!parsed.ok) return fail(parsed.errors);
  return parseWith(gridSpecSchema, parsed.value);
}
