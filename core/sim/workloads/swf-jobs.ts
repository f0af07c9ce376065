// A trace's kept jobs held as columns of numbers (a few dozen bytes a job against ~415 for its spec object), each
// job's spec built only when asked for: on LCG's 188,000 jobs the specs were most of the live data (issue 17).
import type { JobSpec } from '../../model/schemas.js';
import type { JobSequence } from '../job-sequence.js';

/**
 * Collects the kept jobs while the trace is read, into arrays made once at the most jobs the text can hold (its lines,
 * counted before it is read): grown in chunks and copied into arrays of their own size at the end, as they were, the
 * chunks were left as garbage for a full collection a replay may never run (0.8 MB on NASA, issue 17). Read through
 * the chunks instead, the NASA cbf replay took a fifth more CPU (interleaved pairs).
 */
export class SwfJobColumns {
  private readonly jobNumber: Float64Array;
  private readonly submit: Float64Array;
  private readonly processors: Float64Array;
  private readonly runtime: Float64Array;
  private readonly walltime: Float64Array;
  length = 0;

  /** `capacity`: the most jobs that will be pushed. */
  constructor(capacity: number) {
    this.jobNumber = new Float64Array(capacity);
    this.submit = new Float64Array(capacity);
    this.processors = new Float64Array(capacity);
    this.runtime = new Float64Array(capacity);
    this.walltime = new Float64Array(capacity);
  }

  push(jobNumber: number, processors: number, submitTime: number, runtime: number, walltime: number): void {
    const i = this.length++;
    this.jobNumber[i] = jobNumber;
    this.processors[i] = processors;
    this.submit[i] = submitTime;
    this.runtime[i] = runtime;
    this.walltime[i] = walltime;
  }

  /** The jobs, their submit times made relative to `earliest`: views of the columns' first `length` rows. */
  done(earliest: number): SwfJobs {
    const rows = (column: Float64Array) => column.subarray(0, this.length);
    const submit = rows(this.submit);
    for (let i = 0; i < submit.length; i++) submit[i]! -= earliest;
    return new SwfJobs(rows(this.jobNumber), submit, rows(this.processors), rows(this.runtime), rows(this.walltime));
  }
}

/** A trace's kept jobs, by index in the file's order; as a JobSequence, in submit order. */
export class SwfJobs implements JobSequence {
  /** The placement policy every job's spec names (`simulate --placement`). */
  placement: JobSpec['placement'] = 'wf';
  /** File indices in submit order (stable), or undefined when the file is in that order already, as SWF requires. */
  private readonly order: Uint32Array | undefined;

  constructor(
    private readonly jobNumber: Float64Array,
    private readonly submit: Float64Array,
    private readonly processors: Float64Array,
    private readonly runtime: Float64Array,
    private readonly walltime: Float64Array,
  ) {
    // Decision: a trace out of submit order is replayed in it, ties in file order, as its specs sorted stably were.
    let sorted = true;
    for (let i = 1; i < submit.length && sorted; i++) sorted = submit[i - 1]! <= submit[i]!;
    this.order = sorted ? undefined : Uint32Array.from(submit.keys()).sort((a, b) => submit[a]! - submit[b]! || a - b);
  }

  get length(): number {
    return this.submit.length;
  }

  submitTime(k: number): number {
    return this.submit[this.order ? this.order[k]! : k]!;
  }

  spec(k: number): JobSpec {
    return this.specAt(this.order ? this.order[k]! : k);
  }

  /** A fresh spec of the file's `i`-th kept job. */
  specAt(i: number): JobSpec {
    return {
      id: `swf-${this.jobNumber[i]!}`,
      kind: 'rigid',
      components: [{ processors: this.processors[i]!, program: 'swf', args: [], inputFiles: [] }],
      placement: this.placement,
      submitTime: this.submit[i]!,
      walltime: this.walltime[i]!,
      app: { model: 'fixed', runtime: this.runtime[i]! },
    };
  }

  /** Every job's spec, in the file's order. */
  specs(): JobSpec[] {
    return Array.from({ length: this.length }, (_, i) => this.specAt(i));
  }
}
