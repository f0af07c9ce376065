// The first index with the largest value among n, kept as values change one at a time: a tournament tree, so a
// scheduler asks "which cluster has the most room" in O(1) and moves one cluster's figure in O(log n), instead of
// looking at every cluster for every job.

export class MostTree {
  readonly #size: number;
  readonly #values: Float64Array;
  /** Node k (1-based; leaves from #leaves): the index of the winner of its subtree, -1 for an empty leaf. */
  readonly #winner: Int32Array;
  readonly #leaves: number;

  constructor(size: number) {
    this.#size = size;
    let leaves = 1;
    while (leaves < size) leaves *= 2;
    this.#leaves = leaves;
    this.#values = new Float64Array(size).fill(Number.NEGATIVE_INFINITY);
    this.#winner = new Int32Array(2 * leaves).fill(-1);
    for (let i = 0; i < size; i++) this.#winner[leaves + i] = i;
    for (let k = leaves - 1; k >= 1; k--)
      this.#winner[k] = this.#better(this.#winner[2 * k]!, this.#winner[2 * k + 1]!);
  }

  get size(): number {
    return this.#size;
  }

  value(i: number): number {
    return this.#values[i]!;
  }

  /** The first index with the largest value (-Infinity for every index: 0), or -1 when empty. */
  get most(): number {
    return this.#winner[1]!;
  }

  set(i: number, value: number): void {
    if (this.#values[i] === value) return;
    this.#values[i] = value;
    const winner = this.#winner;
    for (let k = (this.#leaves + i) >> 1; k >= 1; k >>= 1) winner[k] = this.#better(winner[2 * k]!, winner[2 * k + 1]!);
  }

  /** The larger of two indices' values, the lower index at a tie (a is always left of b). */
  #better(a: number, b: number): number {
    if (b < 0) return a;
    if (a < 0) return b;
    return this.#values[b]! > this.#values[a]! ? b : a;
  }
}
