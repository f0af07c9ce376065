// Free node IDs of one cluster: a binary min-heap, so allocation always hands out the lowest free IDs
// (deterministic) in O(log n) per ID.
export class NodePool {
  private readonly heap: number[] = [];

  constructor(nodes: number) {
    for (let id = 0; id < nodes; id++) this.heap.push(id); // sorted ascending is a valid heap
  }

  get size(): number {
    return this.heap.length;
  }

  /** Removes and returns the k lowest free IDs, ascending; the caller checks k <= size. */
  take(k: number): number[] {
    const out: number[] = [];
    for (let i = 0; i < k; i++) out.push(this.pop());
    return out;
  }

  give(id: number): void {
    const h = this.heap;
    let i = h.length;
    h.push(id);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]! <= id) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = id;
  }

  /** Free IDs, ascending. */
  list(): number[] {
    return [...this.heap].sort((a, b) => a - b);
  }

  private pop(): number {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    const n = h.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && h[r]! < h[l]! ? r : l;
        if (h[c]! >= last) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}
