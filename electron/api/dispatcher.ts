// One dispatcher behind both transports: validates the input, calls the service, validates the output, and turns
// any failure into a typed error result.
import type { z } from 'zod';
import { fromZodError } from '../../core/model/result.js';
import { isMethod, methods, type ApiResult, type MethodName } from './contract.js';

export type Handlers = { [M in MethodName]: (input: z.infer<(typeof methods)[M]['input']>) => ApiResult<M> };

export function createDispatcher(handlers: Handlers) {
  return function dispatch(method: string, payload: unknown): ApiResult<MethodName> {
    if (!isMethod(method)) return { ok: false, errors: [{ path: 'method', message: `unknown method "${method}"` }] };
    const spec = methods[method];
    const input = spec.input.safeParse(payload ?? {});
    if (!input.success) return { ok: false, errors: fromZodError(input.error) };
    let answer: ApiResult<MethodName>;
    try {
      answer = (handlers[method] as (i: unknown) => ApiResult<MethodName>)(input.data);
    } catch (error) {
      return { ok: false, errors: [{ path: '', message: `internal error: ${error instanceof Error ? error.message : String(error)}` }] };
    }
    if (!answer.ok) return answer;
    const output = spec.output.safeParse(answer.value);
    if (!output.success) return { ok: false, errors: fromZodError(output.error).map((e) => ({ ...e, message: `host answered wrongly: ${e.message}` })) };
    return { ok: true, value: output.data } as ApiResult<MethodName>;
  };
}

export type Dispatch = ReturnType<typeof createDispatcher>;
