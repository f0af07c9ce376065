// One run of an async task at a time: a call while it runs asks for one more run after it (calls made meanwhile
// share that one) and gets the promise of the run under way. The manager's status rounds and its cancels use it.

export interface SingleFlightOptions {
  /** When true, no further run starts (checked after each run). */
  readonly stopped?: () => boolean;
  /** Called once the runs have ended (success or failure), when nothing runs any more. */
  readonly settled?: () => void;
}

export class SingleFlight {
  private runs: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly options: SingleFlightOptions = {},
  ) {}

  /** The runs under way (undefined when none). */
  get current(): Promise<void> | undefined {
    return this.runs;
  }

  /** Runs the task now, or once more after the run under way; resolves when the runs end. */
  run(): Promise<void> {
    if (this.runs) {
      this.again = true;
      return this.runs;
    }
    this.runs = (async () => {
      try {
        do {
          this.again = false;
          await this.task();
        } while (this.again && !this.options.stopped?.());
      } finally {
        this.runs = undefined;
        this.options.settled?.();
      }
    })();
    return this.runs;
  }
}
