// One dispatcher behind both transports: validates the input, calls the service, validates the output, and turns
// any failure into a typed error result. A service may answer later (a promise): the dispatcher then answers with
// a promise too, checked the same way.
import type { z } from 'zod';
import { fromZodError } from '../../core/model/result.js';
import { isMethod, methods, type ApiResult, type AsyncMethodName, type MethodName } from './contract.js';

export type Handlers = {
  [M in MethodName]: (
    input: z.infer<(typeof methods)[M]['input']>,
  ) => M extends AsyncMethodName ? Promise<ApiResult<M>> : ApiResult<M>;
};

const internalError = (error: unknown): ApiResult<MethodName> => ({
  ok: false,
  errors: [{ path: '', message: `internal error: ${error instanceof Error ? error.message : String(error)}` }],
});

/** Typed by method name where the caller names one (a sync method answers at once); any string from a transport. */
export interface Dispatch {
  <M extends MethodName>(method: M, payload: unknown): M extends AsyncMethodName ? Promise<ApiResult<M>> : ApiResult<M>;
  (method: string, payload: unknown): ApiResult<MethodName> | Promise<ApiResult<MethodName>>;
}

export function createDispatcher(handlers: Handlers): Dispatch {
  return function dispatch(method: string, payload: unknown): ApiResult<MethodName> | Promise<ApiResult<MethodName>> {
    if (!isMethod(method)) return { ok: false, errors: [{ path: 'method', message: `unknown method "${method}"` }] };
    const spec = methods[method];
    const input = spec.input.safeParse(payload ?? {});
    if (!input.success) return { ok: false, errors: fromZodError(input.error) };
    const checked = (answer: ApiResult<MethodName>): ApiResult<MethodName> => {
      if (!answer.ok) return answer;
      const output = spec.output.safeParse(answer.value);
      if (!output.success)
        return {
          ok: false,
          errors: fromZodError(output.error).map((e) => ({ ...e, message: `host answered wrongly: ${e.message}` })),
        };
      return { ok: true, value: output.data } as ApiResult<MethodName>;
    };
    let answer: ApiResult<MethodName> | Promise<ApiResult<MethodName>>;
    try {
      answer = (handlers[method] as (i: unknown) => ApiResult<MethodName> | Promise<ApiResult<MethodName>>)(input.data);
    } catch (error) {
      return internalError(error);
    }
    return answer instanceof Promise ? answer.then(checked, internalError) : checked(answer);
  } as Dispatch;
}
