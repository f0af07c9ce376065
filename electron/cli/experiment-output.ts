// How every `concertina experiment` ends: with --json its one object on stdout (where the files went on stderr),
// otherwise its text summary followed by where the report is.
import { printable } from './printable.js';
import { emit, type CliIo } from './terminal.js';

/** What the experiments' observations have in common (CooRMv2's also name their figure). */
interface Observation {
  readonly id: string;
  readonly figure?: string | number;
  readonly text: string;
  readonly holds: boolean | null;
  readonly figures: unknown;
  readonly measured: string;
}

/** An observation as the JSON outputs give it. */
export function observationJson(ob: Observation): Record<string, unknown> {
  return {
    id: ob.id,
    ...(ob.figure === undefined ? {} : { figure: ob.figure }),
    text: ob.text,
    holds: ob.holds,
    figures: ob.figures,
    measured: ob.measured,
  };
}

/** Prints an experiment's outcome: `json()` when asked for JSON, else `summary()`, then the files written to `outDir`. */
export async function printOutcome(
  io: CliIo,
  asJson: boolean | undefined,
  outDir: string,
  written: number,
  json: () => object,
  summary: () => string,
): Promise<void> {
  if (asJson) {
    await emit(io.stdout, `${JSON.stringify(json())}\n`);
    await emit(io.stderr, `Wrote ${written} files to ${printable(outDir)}\n`);
  } else {
    await emit(
      io.stdout,
      `${summary()}\nWrote ${written} files to ${printable(outDir)} (report: ${printable(outDir)}/report.md)\n`,
    );
  }
}
