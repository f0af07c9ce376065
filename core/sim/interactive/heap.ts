// A binary min-heap ordered by a comparator (the EDF ready queues and the simulation's event list).
export class Heap<T> {
  private readonly items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.before(a[l]!, a[m]!)) m = l;
        if (r < a.length && this.before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }

  /** Removes every item `drop` names; returns how many went. */
  removeWhere(drop: (item: T) => boolean): number {
    const kept = this.items.filter((item) => !drop(item));
    const removed = this.items.length - kept.length;
    if (removed > 0) {
      this.items.length = 0;
      for (const item of kept) this.push(item);
    }
    return removed;
  }

  /** The items, in no particular order. */
  values(): readonly T[] {
    return this.items;
  }
}
