// A simulated fully-predictably evolving application (Klein & Pérez): it runs its profile's steps in turn, each for
// its duration, and starts a step only when the scheduler tells it the step's processors are there (`resized`, once
// per step); a step scheduled longer than it computes leaves it idle until then (an expanded step). As the CooRMv2
// NEXT chain, it announces each next step as it starts the one before (`update`, the step's duration ahead).
export interface FpeStep {
  readonly duration_s: number;
  readonly processors: number;
}

/** What the running application does to the world: timers, its announcements, its end. */
export interface FpeAppHost {
  now(): number;
  at(t: number, action: () => void): void;
  update(processors: number, announceS: number): void;
  finished(): void;
}

export class FpeRun {
  private step = -1;
  private computing = false;
  /** Step starts told while it was still computing the step before: each begins when that one is done. */
  private told = 0;
  private size = 0;
  private over = false;

  constructor(
    private readonly steps: readonly FpeStep[],
    private readonly host: FpeAppHost,
  ) {}

  /** Processors it holds now. */
  get current(): number {
    return this.size;
  }

  /** The step it runs (0-based). */
  get currentStep(): number {
    return this.step;
  }

  /** Its first step's processors are there: it starts. */
  start(size: number): void {
    this.size = size;
    this.begin(0);
  }

  /** The scheduler began its next step (its size may be unchanged). */
  resize(size: number): void {
    this.size = size;
    if (this.over) return;
    if (this.computing) this.told++;
    else this.begin(this.step + 1);
  }

  private begin(i: number): void {
    if (i >= this.steps.length) return;
    this.step = i;
    this.computing = true;
    const step = this.steps[i]!;
    const next = this.steps[i + 1];
    if (next) this.host.update(next.processors, step.duration_s);
    this.host.at(this.host.now() + step.duration_s, () => {
      this.computing = false;
      if (i + 1 >= this.steps.length) {
        this.over = true;
        this.host.finished();
        return;
      }
      if (this.told > 0) {
        this.told--;
        this.begin(i + 1);
      }
    });
  }
}
