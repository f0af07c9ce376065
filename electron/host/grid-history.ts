// The grid's utilization history for the console's charts, kept by the host so a console opened (or reloaded) late
// still sees the whole run. Bounded: when it holds twice its limit it keeps every other sample and samples half as
// often, so it always spans the whole run at an even spacing, in constant memory.

export interface HistorySample<C> {
  readonly time: number;
  readonly clusters: C[];
}

export interface GridHistoryState<C> {
  readonly stepS: number;
  readonly samples: readonly HistorySample<C>[];
}

export class GridHistory<C> {
  private samples: HistorySample<C>[] = [];
  private stepS: number;

  constructor(
    private readonly limit = 300,
    private readonly initialStepS = 10,
    state?: GridHistoryState<C>,
  ) {
    this.stepS = state?.stepS ?? initialStepS;
    if (state) this.samples = state.samples.slice();
  }

  /** Records the grid at `time` if a step has passed since the last sample; true when it did. */
  offer(time: number, clusters: () => C[]): boolean {
    const last = this.samples.at(-1);
    if (last && time < last.time + this.stepS) return false;
    this.samples.push({ time, clusters: clusters() });
    if (this.samples.length >= 2 * this.limit) {
      this.samples = this.samples.filter((_, i) => i % 2 === 1);
      this.stepS *= 2;
    }
    return true;
  }

  /** The samples, the newest last, at most `limit` of them (evenly thinned). */
  view(): HistorySample<C>[] {
    const n = this.samples.length;
    if (n <= this.limit) return this.samples.slice();
    const stride = n / this.limit;
    const picked: HistorySample<C>[] = [];
    for (let k = this.limit - 1; k >= 0; k--) picked.push(this.samples[n - 1 - Math.floor(k * stride)]!);
    return picked;
  }

  state(): GridHistoryState<C> {
    return { stepS: this.stepS, samples: this.samples.slice() };
  }

  clear(): void {
    this.samples = [];
    this.stepS = this.initialStepS;
  }
}
