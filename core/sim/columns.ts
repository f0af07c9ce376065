// Growable columns of a table (a run's finished jobs), a few bytes a row where an object per row took
// several times that. They grow a chunk at a time and never copy what they hold. Grown by doubling, each one left its
// old copies behind, and once past 128 KB they sit in V8's large-object space, or are typed arrays whose wrappers
// outlived the young generation: garbage that only a full collection frees, which a replay of a few seconds may never
// run (issue 17; finished jobs' columns in chunks, with the trace decompressed synchronously, electron/cli/main.ts:
// the NASA replay's peak RSS went 99 -> 85 MiB).
/** Rows per chunk: 32 KB of numbers, well under the 128 KB past which V8 puts an object in its large-object space. */
export const CHUNK_ROWS = 4096;

/** A column of numbers, in chunks of CHUNK_ROWS. */
export class NumberColumn {
  private readonly chunks: Float64Array[] = [];
  length = 0;

  push(value: number): void {
    const row = this.length % CHUNK_ROWS;
    if (row === 0) this.chunks.push(new Float64Array(CHUNK_ROWS));
    this.chunks[this.chunks.length - 1]![row] = value;
    this.length++;
  }

  at(i: number): number {
    return this.chunks[Math.floor(i / CHUNK_ROWS)]![i % CHUNK_ROWS]!;
  }
}

/** A column of any other values (texts, flags), in chunks of CHUNK_ROWS. */
export class ValueColumn<T> {
  private readonly chunks: T[][] = [];
  length = 0;

  push(value: T): void {
    const row = this.length % CHUNK_ROWS;
    // Made whole at once, as the numbers' are: pushed into, an array grows (and copies) a dozen times to that size.
    if (row === 0) this.chunks.push(new Array<T>(CHUNK_ROWS));
    this.chunks[this.chunks.length - 1]![row] = value;
    this.length++;
  }

  at(i: number): T {
    return this.chunks[Math.floor(i / CHUNK_ROWS)]![i % CHUNK_ROWS]!;
  }
}
