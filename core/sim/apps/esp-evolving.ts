// The evolving job of the DBES paper's benchmark (section V-A; a synthetic application shaped like the Quadflow CFD
// solver): it runs on its size, asks the batch system for a few more processors once a share of its static run time
// has gone by, asks once more later if refused, and runs faster in proportion to its processors when granted. Unlike
// CooRMv2's evolving applications (apps/evolving.ts), its request is for processors it does not hold yet.
export interface EspEvolvingParameters {
  /** Seconds of the whole run on its initial size (Table I's static execution time). */
  readonly runtimeS: number;
  /** Processors each request asks for on top of its size (the paper's: 4). */
  readonly extra: number;
  /**
   * Fractions of `runtimeS` of elapsed time at which it asks, each only if every earlier request was refused (the
   * paper's: 16 %, then 25 %).
   */
  readonly askAt: readonly number[];
}

/** What the running application does to the world. */
export interface EspEvolvingHost {
  now(): number;
  at(t: number, action: () => void): void;
  /** Asks for a new total size (its size plus the extra processors). */
  request(processors: number): void;
  finished(): void;
}

// Decision: the request points are fractions of the static run time measured as wall time since the start (the
// paper's "after 16 % of its static runtime"); until a grant the job runs at its static speed, so that wall time and
// progress agree. After a grant the rest of the work runs at size'/size times the speed (the paper's linear
// reduction of the execution time). Table I's evolving times are this for a grant over the whole run on sizes taken
// from 128 cores (F: 0.0625·128 = 8, 1846·8/12 = 1231 s for its 1230; G: 16, 1334·16/20 = 1067; H: 1067 → 896 fits
// 21 cores, about 0.1582·128 = 20.2); on the 120 cores of this benchmark the sizes, so the times, differ a little.
export class EspEvolvingRun {
  private size = 0;
  private initial = 0;
  /** Share of the work done. */
  private done = 0;
  private since = 0;
  private version = 0;
  private start0 = 0;
  /** Index in askAt of the next request (askAt.length: no more). */
  private nextAsk = 0;
  private pending = false;
  private grantedAt: number | undefined;

  constructor(
    private readonly parameters: EspEvolvingParameters,
    private readonly host: EspEvolvingHost,
  ) {}

  get current(): number {
    return this.size;
  }

  /** When the request was granted (undefined while none was). */
  get granted(): number | undefined {
    return this.grantedAt;
  }

  /** Requests sent so far. */
  get requests(): number {
    return this.nextAsk;
  }

  start(size: number): void {
    this.size = size;
    this.initial = size;
    this.start0 = this.host.now();
    this.since = this.start0;
    this.plan();
    this.scheduleAsk();
  }

  /** Its allocation changed: a grant (more than it had) or the batch system's own resize. */
  resize(size: number): void {
    if (size === this.size) return;
    this.advance();
    if (size > this.size && this.pending) {
      this.pending = false;
      this.grantedAt = this.host.now();
      this.nextAsk = this.parameters.askAt.length;
    }
    this.size = size;
    this.plan();
  }

  /** The batch system refused its request: it goes on at its size and asks again at the next point, if any. */
  refused(): void {
    if (!this.pending) return;
    this.pending = false;
    this.scheduleAsk();
  }

  /** Work per second at the current size: 1 / runtimeS on its initial size, linear in its processors. */
  private get rate(): number {
    return this.size / this.initial / this.parameters.runtimeS;
  }

  private advance(): void {
    const now = this.host.now();
    this.done = Math.min(1, this.done + (now - this.since) * this.rate);
    this.since = now;
  }

  private plan(): void {
    const version = ++this.version;
    if (this.rate <= 0) return;
    const end = this.host.now() + (1 - this.done) / this.rate;
    this.host.at(end, () => {
      if (version !== this.version) return;
      this.version++;
      this.done = 1;
      this.host.finished();
    });
  }

  private scheduleAsk(): void {
    const { askAt, runtimeS, extra } = this.parameters;
    const index = this.nextAsk;
    if (index >= askAt.length || this.grantedAt !== undefined) return;
    const when = Math.max(this.host.now(), this.start0 + askAt[index]! * runtimeS);
    this.host.at(when, () => {
      if (this.done >= 1 || this.grantedAt !== undefined || this.nextAsk !== index || this.version < 0) return;
      this.advance();
      if (this.done >= 1) return;
      this.nextAsk = index + 1;
      this.pending = true;
      this.host.request(this.size + extra);
    });
  }
}
