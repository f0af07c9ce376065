// Standard Workload Format (Parallel Workloads Archive) import: each usable record becomes a rigid job.
import type { JobSpec } from '../../model/schemas.js';
import { fail, ok, type FieldError, type Result } from '../../model/result.js';
import { SwfJobColumns, type SwfJobs } from './swf-jobs.js';

export interface SwfOptions {
  /** Stop after this many jobs kept (records skipped do not count towards it). */
  maxJobs?: number;
  /** Refuse the whole text on any malformed line instead of skipping it. */
  strict?: boolean;
  /** Also measure each partition's peak (`partitions`), for a grid built from the trace. */
  partitions?: boolean;
}

/** One partition of a trace (SWF field 16; -1 when unknown) and the most processors its kept jobs ran at once. */
export interface SwfPartition {
  readonly partition: number;
  readonly peak: number;
}

export interface SwfSkip {
  /** 1-based line number in the text. */
  line: number;
  reason: string;
  /** The reason without the line's own values, so that skips group (`malformed line`, `run time not positive`, ...). */
  cause: SwfSkipCause;
}

export const SWF_SKIP_CAUSES = [
  'malformed line',
  'run time not positive',
  'no processor count',
  'processor count not whole',
  'submit time unknown',
] as const;
export type SwfSkipCause = (typeof SWF_SKIP_CAUSES)[number];

export interface SwfWorkload extends Omit<SwfTrace, 'jobs'> {
  jobs: JobSpec[];
}

/** A parsed trace, its jobs held as columns (swf-jobs.ts): what `concertina simulate` replays. */
export interface SwfTrace {
  jobs: SwfJobs;
  skipped: SwfSkip[];
  /** Data records read to get the jobs: the jobs and the records skipped (reading stops after the `maxJobs`-th job). */
  records: number;
  /** `; Key: value` header pairs; repeated keys are joined with newlines. */
  header: Record<string, string>;
  /** Jobs without a requested time (field 9 unknown), whose run time became their walltime. */
  walltimeFromRunTime: number;
  /** With `partitions` asked for: every partition of the kept jobs, in increasing order. */
  partitions?: SwfPartition[];
}

const FIELDS = 18;
// Decision: an SWF file is read as UTF-8 bytes (the CLI hands over the file's bytes, with no string made of them: on a
// NASA replay that string sat in the large-object space to the end of the run, issue 17); text given as a string is
// encoded to bytes first, so there is one tokenizer. The BOM, if any, is kept, as Buffer.toString kept it.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** The text of bytes [from, to): separators, newlines and ';' are ASCII, so a range between them is whole UTF-8. */
function textOf(bytes: Uint8Array, from: number, to: number): string {
  return utf8.decode(bytes.subarray(from, to));
}
// Strict mode lists at most this many malformed lines, so a binary file does not yield a million errors.
const MAX_ERRORS = 100;

// `; Key: value`: the key sits right after the ';' (continuation lines are indented further) and its colon is followed
// by a blank, which keeps `;   http://...` continuations from passing as keys.
const HEADER_PAIR = /^;\s{0,2}([A-Za-z][\w-]*):(?:\s+(.*))?$/;

/** What a parse has gathered so far. */
interface ParseState {
  readonly source: string;
  readonly strict: boolean;
  readonly jobs: SwfJobColumns;
  readonly skipped: SwfSkip[];
  readonly header: Record<string, string>;
  readonly errors: FieldError[];
  malformed: number;
  walltimeFromRunTime: number;
  /** The header key an indented comment line continues. */
  lastKey: string | undefined;
  earliest: number;
  /** With `partitions`: when and where each kept job ran, in job order. */
  readonly ran: JobsRan | undefined;
}

/** Kept jobs' partitions, starts (submit + wait), ends (start + run time) and processors, by job in job order. */
export interface JobsRan {
  readonly partition: number[];
  readonly start: number[];
  readonly end: number[];
  readonly processors: number[];
}

function headerLine(state: ParseState, raw: string): void {
  const pair = HEADER_PAIR.exec(raw);
  const { header } = state;
  if (pair) {
    const key = pair[1]!;
    const value = (pair[2] ?? '').trim();
    header[key] = Object.hasOwn(header, key) ? `${header[key]}\n${value}` : value;
    state.lastKey = key;
    return;
  }
  const rest = raw.slice(1).trim();
  // An indented line continues the previous key's value; a bare ';' ends it.
  if (rest === '') state.lastKey = undefined;
  else if (state.lastKey !== undefined) header[state.lastKey] = `${header[state.lastKey]} ${rest}`;
}

function malformedLine(state: ParseState, line: number, problem: string): void {
  state.malformed++;
  if (!state.strict) state.skipped.push({ line, reason: `malformed: ${problem}`, cause: 'malformed line' });
  else if (state.errors.length < MAX_ERRORS) state.errors.push({ path: `${state.source}:${line}`, message: problem });
}

/**
 * Turns one data line's fields into a job, or records why not. `notNumber` is the index of the line's first field that
 * is not a finite number, or -1: the tokenizer knows it, and a check of the 18 values per line cost more than the rest
 * of this function while the engine is cold.
 */
function dataLine(
  state: ParseState,
  values: Float64Array,
  count: number,
  notNumber: number,
  line: number,
  bytes: Uint8Array,
  from: number,
  to: number,
): void {
  state.lastKey = undefined;
  if (count !== FIELDS) return malformedLine(state, line, `has ${count} fields, SWF needs ${FIELDS}`);
  if (notNumber >= 0) {
    const field = textOf(bytes, from, to).trim().split(/\s+/)[notNumber];
    return malformedLine(state, line, `field ${notNumber + 1} "${field}" is not a number`);
  }
  const submit = values[1]!;
  const runtime = values[3]!;
  const allocated = values[4]!;
  const requested = values[7]!;
  const requestedTime = values[8]!;
  const processors = allocated >= 1 ? allocated : requested;
  let skip: SwfSkip | undefined;
  if (!(runtime > 0)) skip = { line, reason: `run time ${runtime} is not positive`, cause: 'run time not positive' };
  else if (!(processors >= 1))
    skip = {
      line,
      reason: `no processor count (allocated ${allocated}, requested ${requested})`,
      cause: 'no processor count',
    };
  else if (!Number.isInteger(processors))
    skip = { line, reason: `processor count ${processors} is not a whole number`, cause: 'processor count not whole' };
  else if (!(submit >= 0)) skip = { line, reason: `submit time ${submit} is unknown`, cause: 'submit time unknown' };
  if (skip !== undefined) {
    state.skipped.push(skip);
    return;
  }
  if (submit < state.earliest) state.earliest = submit;
  // Decision: a requested time of -1 (unknown) or 0 (some logs use it alike) gives the job its run time as walltime.
  const known = requestedTime > 0;
  if (!known) state.walltimeFromRunTime++;
  state.jobs.push(values[0]!, processors, submit, runtime, known ? requestedTime : runtime);
  if (state.ran) {
    const wait = values[2]! > 0 ? values[2]! : 0;
    state.ran.partition.push(values[15]!);
    state.ran.start.push(submit + wait);
    state.ran.end.push(submit + wait + runtime);
    state.ran.processors.push(processors);
  }
}

/**
 * The most processors each partition's jobs held at once in the log, from their recorded start (submit + wait,
 * field 3; an unknown wait counts as none) to their start plus run time.
 * Decision: a grid built from a trace has one cluster per partition sized by this peak, what the site was seen to run
 * at once (the log gives no machine sizes per partition); jobs ending at an instant free their processors before those
 * starting then take theirs.
 */
export function partitionPeaks(ran: JobsRan): SwfPartition[] {
  const count = ran.partition.length;
  // The jobs grouped by partition (a counting sort, in job order within each), with typed arrays rather than a pair
  // per start and end: on LCG's 188,000 jobs the pairs and their sort were a third of reading the trace.
  const ids = new Map<number, number>();
  const group = new Uint32Array(count);
  const sizes: number[] = [];
  for (let i = 0; i < count; i++) {
    let id = ids.get(ran.partition[i]!);
    if (id === undefined) ids.set(ran.partition[i]!, (id = sizes.push(0) - 1));
    group[i] = id;
    sizes[id]!++;
  }
  const offsets = new Uint32Array(sizes.length + 1);
  for (let id = 0; id < sizes.length; id++) offsets[id + 1] = offsets[id]! + sizes[id]!;
  const fill = offsets.slice(0, sizes.length);
  const byPartition = new Uint32Array(count);
  for (let i = 0; i < count; i++) byPartition[fill[group[i]!]!++] = i;
  const peaks: SwfPartition[] = [];
  for (const [partition, id] of ids) {
    const members = byPartition.subarray(offsets[id]!, offsets[id + 1]!);
    peaks.push({ partition, peak: peakHeld(members, ran) });
  }
  return peaks.sort((a, b) => a.partition - b.partition);
}

/** The most processors `members` (jobs of one partition) held at once: the peak is reached as some job starts. */
function peakHeld(members: Uint32Array, ran: JobsRan): number {
  const { start, end, processors } = ran;
  const size = processors[members[0]!]!;
  if (members.every((i) => processors[i] === size)) {
    // Jobs all of one size (a grid trace's, as LCG's): their times sorted as numbers, without a comparator, which
    // costs V8 a call per comparison.
    const starts = new Float64Array(members.length);
    const ends = new Float64Array(members.length);
    for (let k = 0; k < members.length; k++) {
      starts[k] = start[members[k]!]!;
      ends[k] = end[members[k]!]!;
    }
    starts.sort();
    ends.sort();
    let most = 0;
    for (let s = 0, e = 0; s < starts.length; s++) {
      while (e < ends.length && ends[e]! <= starts[s]!) e++;
      if (s + 1 - e > most) most = s + 1 - e;
    }
    return most * size;
  }
  const starts = members.slice().sort((a, b) => start[a]! - start[b]!);
  const ends = members.slice().sort((a, b) => end[a]! - end[b]!);
  let held = 0;
  let peak = 0;
  for (let s = 0, e = 0; s < starts.length; s++) {
    const i = starts[s]!;
    // Jobs ending at an instant free their processors before those starting then take theirs.
    while (e < ends.length && end[ends[e]!]! <= start[i]!) held -= processors[ends[e++]!]!;
    held += processors[i]!;
    if (held > peak) peak = held;
  }
  return peak;
}

/** The lines of the text: its newlines and one, the most jobs it can hold. */
function lineCount(bytes: Uint8Array): number {
  let lines = 1;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
  return lines;
}

/**
 * Parses SWF text. Lenient (default): malformed lines (not 18 fields, or a non-numeric field) and unusable records
 * (run time <= 0, no processor count, no submit time) are skipped and listed in `skipped`; the result is always ok.
 * Strict: any malformed line fails the parse with `source:line` paths; unusable records are still skipped, since
 * real logs hold them and the format allows them.
 *
 * Fields used: 1 job number (id `swf-<n>`), 2 submit time, 4 run time, 5 allocated processors, falling back to
 * 8 requested processors when 5 is unknown (-1, or 0 which some logs use alike), 9 requested time as the job's
 * walltime, falling back to its run time when unknown (counted in `walltimeFromRunTime`).
 * Decision: a job whose run time exceeds its requested time (10 % of HPC2N's first 3,170 jobs, by 1 s to 3 h) is
 * replayed as it would run under a batch system: killed at its walltime, its run time capped there as Batsim and
 * the textbook simulators do, and it ends failed with the walltime as reason. Decision: submit times are made
 * relative to the earliest kept job, which is the first one in a log sorted by submit time as SWF requires, and
 * can never turn negative in one that is not.
 */
export function parseSwf(text: string | Uint8Array, source: string, options: SwfOptions = {}): Result<SwfWorkload> {
  const parsed = parseSwfTrace(text, source, options);
  return parsed.ok ? ok({ ...parsed.value, jobs: parsed.value.jobs.specs() }) : parsed;
}

/**
 * As parseSwf, the jobs kept as columns whose specs are built when asked for (a replay builds each as it arrives).
 * `text` is the trace's text or its UTF-8 bytes (a file's, read without decoding them).
 */
export function parseSwfTrace(text: string | Uint8Array, source: string, options: SwfOptions = {}): Result<SwfTrace> {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  const maxJobs = options.maxJobs ?? Infinity;
  // At most a job a line, and no more than maxJobs (a whole number of them: the loop stops once it has that many).
  const capacity = Math.min(lineCount(bytes), Math.max(0, Math.ceil(maxJobs)));
  const state: ParseState = {
    source,
    strict: options.strict ?? false,
    jobs: new SwfJobColumns(capacity),
    skipped: [],
    header: {},
    errors: [],
    malformed: 0,
    walltimeFromRunTime: 0,
    lastKey: undefined,
    earliest: Infinity,
    ran: options.partitions ? { partition: [], start: [], end: [], processors: [] } : undefined,
  };
  const { jobs } = state;
  const values = new Float64Array(FIELDS);

  // One flat pass over the characters with nothing but locals in the loop, reading whole numbers by hand; a token
  // with anything else in it (a decimal point, an exponent, junk) goes through Number(). Splitting with split()
  // and calling Number() per field was several times slower, above all before the engine has warmed up.
  const length = bytes.length;
  let line = 1;
  let lineStart = 0;
  let count = 0;
  let notNumber = -1;
  let tokenStart = -1;
  let value = 0;
  let digits = 0;
  let negative = false;
  let odd = false;
  for (let i = 0; i <= length; i++) {
    const c = i < length ? bytes[i]! : 10;
    if (c === 32 || c === 10 || c === 9 || c === 13 || c === 11 || c === 12) {
      if (tokenStart >= 0) {
        let v: number;
        if (odd || digits > 15) {
          // Past 15 digits the hand-read value could lose precision: let Number() round it.
          v = Number(textOf(bytes, tokenStart, i));
          if (notNumber < 0 && !Number.isFinite(v)) notNumber = count;
        } else if (digits === 0) {
          v = NaN; // a lone '-'
          if (notNumber < 0) notNumber = count;
        } else {
          v = negative ? -value : value;
        }
        if (count < FIELDS) values[count] = v;
        count++;
        tokenStart = -1;
      }
      if (c === 10) {
        if (count > 0) {
          if (jobs.length >= maxJobs) break;
          dataLine(state, values, count, notNumber, line, bytes, lineStart, i);
        }
        line++;
        lineStart = i + 1;
        count = 0;
        notNumber = -1;
      }
      continue;
    }
    if (tokenStart < 0) {
      if (count === 0 && c === 59 /* ; */) {
        // A header comment: handle the whole line and resume at its end.
        let end = bytes.indexOf(10, i);
        if (end === -1) end = length;
        headerLine(state, textOf(bytes, i, end).trimEnd());
        i = end - 1;
        continue;
      }
      tokenStart = i;
      value = 0;
      digits = 0;
      negative = c === 45; /* - */
      odd = false;
      if (negative) continue;
    }
    // A token with anything but digits goes through Number() whole: reading on would only overflow `value`'s small
    // integers, which threw the optimised loop back to the interpreter (a deopt, then a second compile) on batsim.
    if (odd) continue;
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits++;
    } else {
      odd = true;
    }
  }

  const { errors, malformed } = state;
  if (state.strict && malformed > 0) {
    if (malformed > errors.length)
      errors.push({ path: source, message: `and ${malformed - errors.length} more malformed lines` });
    return fail(errors);
  }
  const partitions = state.ran ? { partitions: partitionPeaks(state.ran) } : {};
  return ok({
    jobs: jobs.done(state.earliest),
    skipped: state.skipped,
    records: jobs.length + state.skipped.length,
    header: state.header,
    walltimeFromRunTime: state.walltimeFromRunTime,
    ...partitions,
  });
}
