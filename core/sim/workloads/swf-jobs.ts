// A trace's kept jobs held as columns of numbers (a few dozen bytes a job against ~415 for its spec object), each
// job's spec built only when asked for: on LCG's 188,000 jobs the specs were most of the live data (issue 17).
import type { JobSpec } from '../../model/schemas.js';
import { NumberColumn } from '../columns.js';
import type { JobSequence } from '../job-sequence.js';

/** Collects the kept jobs while the trace is read. */
export class SwfJobColumns {
  private readonly jobNumber = new NumberColumn();
  private readonly submit = new NumberColumn();
  private readonly processors = new NumberColumn();
  private readonly runtime = new NumberColumn();
  private readonly walltime = new NumberColumn();

  get length(): number {
    return this.submit.length;
  }

  push(jobNumber: number, processors: number, submitTime: number, runtime: number, walltime: number): void {
    this.jobNumber.push(jobNumber);
    this.processors.push(processors);
    this.submit.push(submitTime);
    this.runtime.push(runtime);
    this.walltime.push(walltime);
  }

  /** The jobs, their submit times made relative to `earliest`. */
  done(earliest: number): SwfJobs {
    return new SwfJobs(this.jobNumber, this.submit, earliest, this.processors, this.runtime, this.walltime);
  }
}

/** A trace's kept jobs, by index in the file's order; as a JobSequence, in submit order. */
export class SwfJobs implements JobSequence {
  /** The placement policy every job's spec names (`simulate --placement`). */
  placement: JobSpec['placement'] = 'wf';
  /** File indices in submit order (stable), or undefined when the file is in that order already, as SWF requires. */
  private readonly order: Uint32Array | undefined;

  constructor(
    private readonly jobNumber: NumberColumn,
    /** Submit times as the file gives them; `submitAt` makes them relative to `earliest`. */
    private readonly submit: NumberColumn,
    private readonly earliest: number,
    private readonly processors: NumberColumn,
    private readonly runtime: NumberColumn,
    private readonly walltime: NumberColumn,
  ) {
    // Decision: a trace out of submit order is replayed in it, ties in file order, as its specs sorted stably were.
    let sorted = true;
    for (let i = 1; i < submit.length && sorted; i++) sorted = this.submitAt(i - 1) <= this.submitAt(i);
    this.order = sorted
      ? undefined
      : Uint32Array.from({ length: submit.length }, (_, i) => i).sort(
          (a, b) => this.submitAt(a) - this.submitAt(b) || a - b,
        );
  }

  get length(): number {
    return this.submit.length;
  }

  /** The file's `i`-th kept job's submit time, relative to the earliest. */
  private submitAt(i: number): number {
    return this.submit.at(i) - this.earliest;
  }

  submitTime(k: number): number {
    return this.submitAt(this.order ? this.order[k]! : k);
  }

  spec(k: number): JobSpec {
    return this.specAt(this.order ? this.order[k]! : k);
  }

  /** A fresh spec of the file's `i`-th kept job. */
  specAt(i: number): JobSpec {
    return {
      id: `swf-${this.jobNumber.at(i)}`,
      kind: 'rigid',
      components: [{ processors: this.processors.at(i), program: 'swf', args: [], inputFiles: [] }],
      placement: this.placement,
      submitTime: this.submitAt(i),
      walltime: this.walltime.at(i),
      app: { model: 'fixed', runtime: this.runtime.at(i) },
    };
  }

  /** Every job's spec, in the file's order. */
  specs(): JobSpec[] {
    return Array.from({ length: this.length }, (_, i) => this.specAt(i));
  }
}
