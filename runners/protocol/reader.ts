// Incremental reader of one append-only JSON-lines file, by byte offset. Each read hands it the file's content from
// its offset to the end as it is now; it takes the complete lines, leaves an incomplete last line for the next
// read (the writer is still appending it), and skips lines whose seq it has already seen. Pure: no I/O.
import { lineError, type LineDecoder, type LineError } from './messages.js';

/** A complete line of the file, without its newline, and how many bytes it took in the file (newline included). */
export interface RawLine {
  readonly text: string;
  readonly bytes: number;
}

export interface ReadResult<M> {
  readonly messages: M[];
  readonly errors: LineError[];
  /** Lines skipped because their seq had been seen (re-read after a restart, or written twice). */
  readonly duplicates: number;
}

/** The complete lines of `chunk` (text read from a line boundary); the text after the last newline is left out. */
export function completeLines(chunk: string): RawLine[] {
  const pieces = chunk.split('\n');
  pieces.pop();
  return pieces.map((text) => ({ text, bytes: Buffer.byteLength(text, 'utf8') + 1 }));
}

export class JsonLinesReader<M extends { readonly seq: number }> {
  private offsetBytes = 0;
  private lineCount = 0;
  private last: number;

  /**
   * `lastSeq`: the highest seq already handled by an earlier reader of this file (kept across a restart); a new
   * reader always starts at byte 0, so that it knows every line's number.
   */
  constructor(
    readonly file: string,
    private readonly decode: LineDecoder<M>,
    lastSeq = 0,
  ) {
    this.last = lastSeq;
  }

  /** Byte offset of the first line not read yet. */
  get offset(): number {
    return this.offsetBytes;
  }

  /** The highest seq handed out (or given at construction). */
  get lastSeq(): number {
    return this.last;
  }

  /** Complete lines read so far. */
  get lines(): number {
    return this.lineCount;
  }

  /** Reads the file's content from `offset` (as text). */
  read(chunk: string): ReadResult<M> {
    return this.consume(completeLines(chunk));
  }

  /** Reads complete lines that start at `offset`, in file order. */
  consume(lines: readonly RawLine[]): ReadResult<M> {
    const messages: M[] = [];
    const errors: LineError[] = [];
    let duplicates = 0;
    for (const line of lines) {
      this.offsetBytes += line.bytes;
      this.lineCount++;
      // Decision: blank lines are ignored; a writer that found a partial last line (a crash mid-append) ends it with
      // a newline before appending, which may leave one.
      if (line.text.trim() === '') continue;
      const decoded = this.decode(line.text);
      if (!decoded.ok) {
        errors.push(lineError(this.file, this.lineCount, decoded.reason));
        continue;
      }
      // Decision: one writer per file numbers its lines 1, 2, 3..., so the highest seq seen is all the memory that
      // deduplication needs.
      if (decoded.message.seq <= this.last) {
        duplicates++;
        continue;
      }
      this.last = decoded.message.seq;
      messages.push(decoded.message);
    }
    return { messages, errors, duplicates };
  }

  /**
   * The file is shorter than the offset: it was replaced. Start over from byte 0 and forget the seqs seen, since
   * the new file's writer numbers from 1 again.
   */
  restart(): void {
    this.offsetBytes = 0;
    this.lineCount = 0;
    this.last = 0;
  }
}
