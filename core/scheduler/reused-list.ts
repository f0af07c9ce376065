// A list emptied without letting its storage go: `array.length = 0` lets it go, and the next push allocates it again.
// The scheduler empties a few watch lists at every pass and key, and there is a pass per event (issue 17).

export class ReusedList<T> {
  /** The items are the first `count`; the slots past it are free. */
  readonly items: Array<T | undefined> = [];
  count = 0;

  push(item: T): void {
    this.items[this.count++] = item;
  }

  /** Empties it; the items it held are let go. */
  clear(): void {
    const items = this.items;
    for (let k = 0; k < this.count; k++) items[k] = undefined;
    this.count = 0;
  }
}
