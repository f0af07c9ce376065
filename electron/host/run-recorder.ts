// Keeps a hosted run's event stream with its store. Every event is numbered by its place in the run (0, 1, 2, ...);
// a flush writes the events not yet stored together with whatever else changed, in one transaction, so a crash
// leaves either all of it or none. A resumed run's replay emits the stored events again: they are compared with
// the stored ones by number and content, never written twice, and the first difference stops the resume.
import type { SchedulerEvent } from '../../core/events.js';
import type { Commit, Store, StoredEvent } from '../store/store.js';

/** Stored events read at a time while a replay is compared with them. */
const PAGE = 10_000;

export class RunRecorder {
  /** The number the next event of the run gets. */
  private next = 0;
  /** Events numbered below this are stored already: replayed, they are compared, not written. */
  private storedBelow = 0;
  private unsaved: SchedulerEvent[] = [];
  private unsavedFirst = 0;
  private page: readonly StoredEvent[] = [];
  private pageFirst = 0;
  /** Where a replay first differed from the stored run, if it did. */
  divergence: string | undefined;

  constructor(private readonly store: Store) {}

  /**
   * Starts numbering a run's events. `replaying`: the store holds `stored` events of this very run, which its
   * replay is about to emit again. Otherwise the run's events are appended after the `stored` ones (a resumed live
   * run, whose earlier sessions' events stay), or it is a new run (`stored` 0).
   */
  begin(stored: number, replaying: boolean): void {
    this.next = replaying ? 0 : stored;
    this.storedBelow = replaying ? stored : 0;
    this.unsaved = [];
    this.page = [];
    this.divergence = undefined;
  }

  /** Events of the run that are stored already or waiting to be (a replay's progress). */
  get recorded(): number {
    return this.next;
  }

  record(event: SchedulerEvent): void {
    const n = this.next++;
    if (n < this.storedBelow) return this.compare(n, event);
    if (!this.unsaved.length) this.unsavedFirst = n;
    this.unsaved.push(event);
  }

  get pending(): number {
    return this.unsaved.length;
  }

  /** Writes the events not yet stored with `also` (a command, the clock, the live state, the grid history). */
  commit(also: Omit<Commit, 'events' | 'firstEvent'> = {}): void {
    this.store.commit({ ...also, events: this.unsaved, firstEvent: this.unsavedFirst });
    this.unsaved = [];
  }

  private compare(n: number, event: SchedulerEvent): void {
    if (this.divergence) return;
    if (n < this.pageFirst || n >= this.pageFirst + this.page.length) {
      this.page = this.store.eventsFrom(n, PAGE);
      this.pageFirst = this.page[0]?.n ?? n;
    }
    const stored = this.page[n - this.pageFirst];
    const replayed = JSON.stringify(event);
    if (stored?.n !== n) this.divergence = `event ${n} is missing from the store (replayed ${replayed})`;
    else if (JSON.stringify(stored.event) !== replayed)
      this.divergence = `event ${n} differs: stored ${JSON.stringify(stored.event)}, replayed ${replayed}`;
  }
}
