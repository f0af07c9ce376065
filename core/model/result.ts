// Typed results for everything that can be refused: callers branch on `ok`, nothing throws across a boundary.
import type { z } from 'zod';

export interface FieldError {
  /** Dotted path of the offending field, e.g. `components[0].min`; empty for the whole value. */
  path: string;
  message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(errors: FieldError[]): Result<T> => ({ ok: false, errors });

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

export function fromZodError(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

/** One line per error, `path: message`. */
export function describeErrors(errors: readonly FieldError[], prefix = ''): string {
  return errors.map((e) => `${prefix}${e.path ? `${e.path}: ` : ''}${e.message}`).join('\n');
}

/** Parses with a zod schema into a Result. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): Result<z.infer<S>> {
  const parsed = schema.safeParse(input);
  return parsed.success ? ok(parsed.data) : fail(fromZodError(parsed.error));
}
