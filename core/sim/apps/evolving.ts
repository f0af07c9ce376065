// A non-predictably evolving application (CooRMv2, sections 1 and 4): its working set changes as it runs, and it
// asks for a new size (an `update`) whenever its next phase needs one, inside the pre-allocation it was submitted
// with. It runs at full speed only with the processors its phase needs, slower in proportion with fewer.
import type { Random } from '../../random.js';

export interface EvolvingParameters {
  /** Size each phase needs, within min..max. */
  readonly profile: readonly number[];
  /** Seconds of one phase at full speed. */
  readonly phaseS: number;
  /** 0: spontaneous updates at each phase's start; > 0: each update announced that long before its phase. */
  readonly announceS: number;
}

/** What the running application does to the world: ask for a size, set timers, say it is done. */
export interface EvolvingHost {
  now(): number;
  at(t: number, action: () => void): void;
  update(processors: number, announceS: number): void;
  finished(): void;
}

/**
 * A working-set profile of `phases` sizes within min..max: a seeded random walk from `initial`, with steps of about a
 * quarter of the range, so that the job both grows and shrinks inside its pre-allocation.
 */
export function workingSetProfile(random: Random, min: number, max: number, initial: number, phases: number): number[] {
  const profile: number[] = [];
  let size = Math.max(min, Math.min(max, initial));
  const sd = Math.max(1, (max - min) / 4);
  for (let i = 0; i < phases; i++) {
    if (i > 0) size = Math.max(min, Math.min(max, Math.round(size + random.normal(0, sd))));
    profile.push(size);
  }
  return profile;
}

export class EvolvingRun {
  private size = 0;
  private phase = 0;
  /** Full-speed seconds of the current phase done so far. */
  private work = 0;
  private since = 0;
  private version = 0;
  /** The size last asked for (the first phase's is what it starts with). */
  private asked: number;
  /** Phases whose update was already announced. */
  private announced = -1;

  constructor(
    private readonly parameters: EvolvingParameters,
    private readonly host: EvolvingHost,
  ) {
    this.asked = parameters.profile[0]!;
  }

  /** Processors the application uses now. */
  get current(): number {
    return this.size;
  }

  /** Starts with `size` processors (its initial size). */
  start(size: number): void {
    this.size = size;
    this.since = this.host.now();
    this.asked = size;
    this.enterPhase(0);
  }

  /** Its allocation changed (an update served, or a shrink it asked for done). */
  resize(size: number): void {
    this.advance();
    this.size = size;
    this.plan();
  }

  private get need(): number {
    return this.parameters.profile[this.phase]!;
  }

  private get rate(): number {
    return this.size >= this.need ? 1 : this.size / this.need;
  }

  private advance(): void {
    const now = this.host.now();
    this.work += (now - this.since) * this.rate;
    this.since = now;
  }

  private enterPhase(phase: number): void {
    this.phase = phase;
    this.work = 0;
    // Not announced ahead (spontaneous, or the phase came sooner than foreseen): asked for as the phase starts.
    if (this.need !== this.asked && this.announced !== phase) this.ask(this.need, 0);
    this.plan();
  }

  private ask(processors: number, announceS: number): void {
    this.asked = processors;
    this.host.update(processors, announceS);
  }

  /** Sets the timers for the phase's end and, for announced updates, the next phase's announcement. */
  private plan(): void {
    const version = ++this.version;
    const now = this.host.now();
    const rate = this.rate;
    if (rate <= 0) return;
    const end = now + (this.parameters.phaseS - this.work) / rate;
    this.host.at(end, () => {
      if (version !== this.version) return;
      this.advance();
      if (this.phase + 1 >= this.parameters.profile.length) {
        this.version++;
        this.host.finished();
        return;
      }
      this.enterPhase(this.phase + 1);
    });
    const next = this.phase + 1;
    const { announceS } = this.parameters;
    if (announceS > 0 && next < this.parameters.profile.length && this.announced < next) {
      // Decision: the announcement is timed from the phase's end as foreseen now (at the current speed).
      const when = Math.max(now, end - announceS);
      this.host.at(when, () => {
        if (version !== this.version || this.announced >= next) return;
        this.announced = next;
        const need = this.parameters.profile[next]!;
        if (need !== this.asked) this.ask(need, Math.max(0, end - this.host.now()));
      });
    }
  }
}
