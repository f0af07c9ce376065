// The application control protocol's messages: JSON lines in two append-only files of the job's directory on the
// cluster's shared file system, one per direction. Every line carries the protocol version `v` and a `seq` number
// that its writer increases by one per line, so a reader that starts over from the top skips what it has seen.
import { z } from 'zod';
import { describeErrors, parseWith } from '../../core/model/result.js';

/**
 * Decision: still version 1 with evolving jobs: `update` and `refused` are new types and `deadline` a new optional
 * field, so every line an older writer wrote still decodes; an older reader names the new types as errors. The same
 * holds for interactive jobs' `tasks` and `iteration`, and for `granted` (an accepted grow cut: an
 * older application that skips it goes on as before, waiting for processors that never come).
 */
export const PROTOCOL_VERSION = 1;
/** Concertina -> application. */
export const TO_APP_FILE = 'to-app.jsonl';
/** Application -> Concertina. */
export const FROM_APP_FILE = 'from-app.jsonl';
/** The size-1 local jobs' stubs each write a file here (host, pid). */
export const SLOTS_DIR = 'slots';

const processors = z.number().int().positive();
const size = z.number().int().nonnegative();
const offerId = z.number().int().nonnegative();
// Decision: unknown fields are ignored (zod strips them), so a v1 message can gain optional fields later.
const envelope = { v: z.literal(PROTOCOL_VERSION), seq: z.number().int().positive() };

export const toAppMessageSchema = z.discriminatedUnion('type', [
  /** The number of processors Concertina now holds for the job (after grown local jobs are active, or released ones cancelled). */
  z.object({ ...envelope, type: z.literal('resources'), size }),
  /** A voluntary grow offer of up to `processors` more. */
  z.object({ ...envelope, type: z.literal('offer'), offerId, processors }),
  /**
   * Of the `accepted` processors the application took in its answer to offer `offerId` (or was last told it gets), only
   * `processors` (fewer, maybe 0) are coming: the cluster lost processors meanwhile, or local jobs of the grow ended
   * before they ran. Sent only then; the application counts on these.
   */
  z.object({ ...envelope, type: z.literal('granted'), offerId, processors: size, accepted: size }),
  /**
   * Give back `processors`; mandatory shrinks must be answered and released within the grace period. `deadline`
   * (wall-clock milliseconds since the Unix epoch): release them by then, not necessarily at once (a shrink ahead of
   * an evolving job's announced update).
   */
  z.object({
    ...envelope,
    type: z.literal('shrink'),
    offerId,
    processors,
    mandatory: z.boolean(),
    deadline: z.number().nonnegative().optional(),
  }),
  /** Finish now (the job is being cancelled). */
  z.object({ ...envelope, type: z.literal('stop'), reason: z.string() }),
  /**
   * An evolving job's `update` cannot be served, or its processors will not come (the grow's local jobs ended before
   * they ran); why. Its size stays what the last `resources` said.
   */
  z.object({ ...envelope, type: z.literal('refused'), reason: z.string() }),
  /**
   * An interactive job's periodic tasks (core/interactive), at start and after each re-placement: every `periodMs`
   * the application releases one task per entry of `nodes`, task i processing `fractions[i]` of `dataUnits` within
   * `deadlineMs`, each bounded by `costMs`; `generation` numbers the placement.
   */
  z.object({
    ...envelope,
    type: z.literal('tasks'),
    generation: z.number().int().positive(),
    nodes: z.array(z.number().int().nonnegative()).min(1),
    costMs: z.number().positive(),
    periodMs: z.number().positive(),
    deadlineMs: z.number().positive(),
    dataUnits: z.number().positive(),
    fractions: z.array(z.number().nonnegative()).min(1),
  }),
]);

export const fromAppMessageSchema = z.discriminatedUnion('type', [
  z.object({ ...envelope, type: z.literal('hello'), pid: z.number().int().positive(), size, sdk: z.string() }),
  z.object({ ...envelope, type: z.literal('offerAnswer'), offerId, accepted: size }),
  z.object({ ...envelope, type: z.literal('shrinkAnswer'), offerId, accepted: size }),
  // Decision: released processors are the most recently granted ones (LIFO), so the application and the runner
  // agree on which local jobs to cancel without naming them.
  z.object({ ...envelope, type: z.literal('released'), processors, offerId: offerId.optional() }),
  /**
   * An evolving job asks for a new total size (within its min..max): at once (`announceS` absent or 0), or
   * `announceS` seconds from now. Answered by `resources` once granted, or `refused`. Decision: a smaller size is
   * sent after the application has stopped using its last processors (as with `released`), so it is served at once.
   */
  z.object({
    ...envelope,
    type: z.literal('update'),
    processors,
    announceS: z.number().nonnegative().finite().optional(),
  }),
  /**
   * An interactive job's task `task` ran one instance: `executedMs` of its own processing (measured by the task,
   * compared with C), `responseMs` from its release to its end (optional), after its deadline when `missed`;
   * `generation`: the placement (tasks message) it ran under.
   */
  z.object({
    ...envelope,
    type: z.literal('iteration'),
    task: z.number().int().nonnegative(),
    executedMs: z.number().nonnegative().finite(),
    missed: z.boolean(),
    generation: z.number().int().positive().optional(),
    responseMs: z.number().nonnegative().finite().optional(),
  }),
  z.object({
    ...envelope,
    type: z.literal('progress'),
    fraction: z.number().min(0).max(1),
    note: z.string().optional(),
  }),
  z.object({ ...envelope, type: z.literal('done'), ok: z.boolean(), note: z.string().optional() }),
]);

export type ToAppMessage = z.infer<typeof toAppMessageSchema>;
export type FromAppMessage = z.infer<typeof fromAppMessageSchema>;
export type ProtocolMessage = ToAppMessage | FromAppMessage;

type WithoutEnvelope<T> = T extends unknown ? Omit<T, 'v' | 'seq'> : never;
/** A message as its sender builds it; the writer adds `v` and `seq`. */
export type ToAppBody = WithoutEnvelope<ToAppMessage>;
export type FromAppBody = WithoutEnvelope<FromAppMessage>;

/** A line that could not be decoded: where it is and why. Reading goes on after it. */
export interface LineError {
  readonly file: string;
  /** 1-based line number in the file. */
  readonly line: number;
  readonly reason: string;
  /** `file:line: reason`. */
  readonly message: string;
}

export function lineError(file: string, line: number, reason: string): LineError {
  return { file, line, reason, message: `${file}:${line}: ${reason}` };
}

export type Decoded<M> = { ok: true; message: M } | { ok: false; reason: string };
export type LineDecoder<M> = (text: string) => Decoded<M>;

function decoderFor<M>(schema: z.ZodType<M>, types: readonly string[]): LineDecoder<M> {
  return (text) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { ok: false, reason: `not JSON (${(error as Error).message})` };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { ok: false, reason: 'not a JSON object' };
    const record = value as Record<string, unknown>;
    if (typeof record.v === 'number' && record.v !== PROTOCOL_VERSION) {
      return {
        ok: false,
        reason: `protocol version ${record.v} is not supported (this reader knows ${PROTOCOL_VERSION})`,
      };
    }
    if (typeof record.type !== 'string' || !types.includes(record.type)) {
      return { ok: false, reason: `type: must be one of ${types.join(', ')} (got ${JSON.stringify(record.type)})` };
    }
    const parsed = parseWith(schema, value);
    if (!parsed.ok) return { ok: false, reason: describeErrors(parsed.errors).replaceAll('\n', '; ') };
    return { ok: true, message: parsed.value };
  };
}

export const decodeToApp: LineDecoder<ToAppMessage> = decoderFor(toAppMessageSchema, [
  'resources',
  'offer',
  'granted',
  'shrink',
  'stop',
  'refused',
  'tasks',
]);
export const decodeFromApp: LineDecoder<FromAppMessage> = decoderFor(fromAppMessageSchema, [
  'hello',
  'offerAnswer',
  'shrinkAnswer',
  'released',
  'update',
  'iteration',
  'progress',
  'done',
]);

/**
 * The JSON text of `body` after `"v":1,"seq":N,` — what a writer appends once it knows the seq. Keys `v` and `seq`
 * come first on every line Concertina writes, so the shell helper can read the seq with sed.
 */
export function bodyJson(body: ToAppBody | FromAppBody): string {
  return JSON.stringify(body).slice(1);
}

/** One complete line (without its newline). */
export function encodeLine(seq: number, body: ToAppBody | FromAppBody): string {
  return `{"v":${PROTOCOL_VERSION},"seq":${seq},${bodyJson(body)}`;
}
