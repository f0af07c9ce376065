// What the CLI's commands write to the terminal: the program's name, streams, aligned columns and a progress bar
// (cli-progress, loaded only when a bar is shown, so that a run whose stderr is not a terminal never loads it).
import type cliProgress from 'cli-progress';

/** The command's name: it starts every message the CLI writes. */
export const PROGRAM = 'concertina';

/** Where the CLI writes; process.stdout and process.stderr unless a test passes its own. */
export interface CliStream {
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
  readonly isTTY?: boolean;
}

export interface CliIo {
  readonly stdout: CliStream;
  readonly stderr: CliStream;
}

/** Writes and waits until the text is handed over, so process.exit right after loses nothing. */
export function emit(stream: CliStream, text: string): Promise<void> {
  return new Promise((resolve) => {
    stream.write(text, () => resolve());
  });
}

/** Rows of cells as aligned columns: text columns to the left, numbers to the right. */
export function alignColumns(rows: ReadonlyArray<readonly string[]>, rightAligned: readonly number[] = []): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) =>
          rightAligned.includes(i) ? cell.padStart(widths[i]!) : i === row.length - 1 ? cell : cell.padEnd(widths[i]!),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A progress bar on the terminal behind `stream`; `note` is a free payload field. */
export async function progressBar(stream: CliStream, unit: string): Promise<cliProgress.SingleBar> {
  const { default: progress } = await import('cli-progress');
  return new progress.SingleBar(
    {
      stream: stream as unknown as NodeJS.WritableStream,
      format: `{bar} {percentage}% | {value}/{total} ${unit} | {note}`,
      hideCursor: true,
      clearOnComplete: true,
      barsize: 30,
    },
    progress.Presets.shades_classic,
  );
}
