// The host's one typed API: each method has a zod schema for its input and its output, and there is one event
// topic. Both transports (Electron IPC and HTTP + WebSocket) carry exactly this; the renderer gets a typed client.
import { z } from 'zod';
import { APPROACHES, jobSpecSchema } from '../../core/model/schemas.js';
import { malleabilityPolicies } from '../../core/malleability/registry.js';

export const SPEEDS = ['pause', '1x', '10x', '100x', 'max'] as const;
export const speedSchema = z.enum(SPEEDS, { error: () => `must be one of ${SPEEDS.join(', ')}` });
export type Speed = z.infer<typeof speedSchema>;

const policyNames = Object.keys(malleabilityPolicies) as [string, ...string[]];

const clusterSnapshot = z.object({
  name: z.string(),
  reachable: z.boolean(),
  lastPoll: z.number().nullable(),
  runningMalleable: z.number(),
  processors: z.number(),
  threshold: z.number(),
  background: z.number(),
  nonPreemptible: z.number(),
  preallocatedUnused: z.number(),
  preemptible: z.number(),
  earmarked: z.number(),
  idle: z.number(),
});

const jobSummary = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  state: z.string(),
  tries: z.number(),
  lastFailure: z.string(),
  size: z.number(),
  min: z.number(),
  max: z.number(),
  placement: z.string(),
  clusters: z.array(z.string()),
  submitted: z.number(),
});
export type JobSummary = z.infer<typeof jobSummary>;

const settings = z.strictObject({
  approach: z.enum(APPROACHES),
  policy: z.enum(policyNames),
  triesThreshold: z.number().int().min(1),
});
export type Settings = z.infer<typeof settings>;

export const methods = {
  'grid.snapshot': {
    input: z.strictObject({}),
    output: z.object({ time: z.number(), speed: speedSchema, clusters: z.array(clusterSnapshot) }),
  },
  'jobs.submit': { input: jobSpecSchema, output: z.object({ jobId: z.string() }) },
  'jobs.cancel': { input: z.strictObject({ jobId: z.string().min(1, 'is required') }), output: z.object({ jobId: z.string() }) },
  'jobs.list': {
    input: z.strictObject({ states: z.array(z.string()).optional(), limit: z.number().int().min(1).max(100_000).default(1000) }),
    output: z.object({ jobs: z.array(jobSummary), total: z.number() }),
  },
  'sim.setSpeed': { input: z.strictObject({ speed: speedSchema }), output: z.object({ speed: speedSchema }) },
  'settings.get': { input: z.strictObject({}), output: settings },
  'settings.set': { input: settings.partial(), output: settings },
} as const;

export type MethodName = keyof typeof methods;
export type MethodInput<M extends MethodName> = z.input<(typeof methods)[M]['input']>;
export type MethodOutput<M extends MethodName> = z.infer<(typeof methods)[M]['output']>;

/** Every answer: the output, or errors naming the field (never an exception across the boundary). */
export type ApiResult<M extends MethodName> =
  | { ok: true; value: MethodOutput<M> }
  | { ok: false; errors: Array<{ path: string; message: string }> };

export function isMethod(name: string): name is MethodName {
  return Object.hasOwn(methods, name);
}
