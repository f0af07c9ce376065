// What the simulation experiments (KOALA, one simulation) share: CDF panels in the Lab's order, empirical CDF points,
// grow/shrink series.
import { KOALA_PANELS, cdf, type KoalaCdfPanel } from '../../../core/sim/experiments/koala.js';
import type { LabCdfPanelId, LabPanel, LabProgress, LabSeries } from '../schemas.js';

const CDF_Y = 'cumulative fraction of jobs';
const koalaPanel = (p: KoalaCdfPanel) => KOALA_PANELS.find((k) => k.panel === p)!;

/** The panels in the Lab's order: wait, execution and response times first, then the sizes (the paper's a, b). */
export const CDF_PANELS: ReadonlyArray<{ id: LabCdfPanelId; title: string; xName: string; koala?: KoalaCdfPanel }> = [
  { id: 'wait', title: 'Wait time', xName: 'wait time (s)' },
  { id: 'execution', title: koalaPanel('c').title, xName: koalaPanel('c').xName, koala: 'c' },
  { id: 'response', title: koalaPanel('d').title, xName: koalaPanel('d').xName, koala: 'd' },
  { id: 'avg_size', title: koalaPanel('a').title, xName: koalaPanel('a').xName, koala: 'a' },
  { id: 'max_size', title: koalaPanel('b').title, xName: koalaPanel('b').xName, koala: 'b' },
];

/** One CDF chart per panel, each with the series `seriesOf` gives it. */
export function cdfCharts(seriesOf: (panel: (typeof CDF_PANELS)[number]) => LabSeries[]): LabPanel[] {
  return CDF_PANELS.map((p) => ({
    id: p.id,
    title: p.title,
    xName: p.xName,
    yName: CDF_Y,
    step: true,
    series: seriesOf(p),
  }));
}

export const cdfPoints = (values: readonly number[]): Array<[number, number]> =>
  cdf(values).map((p) => [p.value, p.fraction]);

export const finiteOrNull = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** Grows, and shrinks only where there are any: under PRA nothing is shrunk, and flat zero lines crowd a chart. */
export function activitySeries(
  name: string,
  points: ReadonlyArray<{ t: number; grows: number; shrinks: number }>,
): LabSeries[] {
  const out: LabSeries[] = [{ name: `${name} grows`, points: points.map((p) => [p.t, p.grows]) }];
  if (points.some((p) => p.shrinks > 0))
    out.push({ name: `${name} shrinks`, points: points.map((p) => [p.t, p.shrinks]) });
  return out;
}

/** Runs each case of an experiment's matrix in order, telling the progress before the first and after each. */
export function runMatrix<Case, Run>(
  matrix: readonly Case[],
  runCase: (c: Case) => Run,
  describe: (c: Case) => string,
  onProgress: (p: LabProgress) => void,
): Run[] {
  const runs: Run[] = [];
  const note = (i: number) => (i < matrix.length ? describe(matrix[i]!) : 'analysing');
  onProgress({ fraction: 0, runsDone: 0, runsTotal: matrix.length, note: note(0) });
  for (const c of matrix) {
    runs.push(runCase(c));
    onProgress({
      fraction: runs.length / matrix.length,
      runsDone: runs.length,
      runsTotal: matrix.length,
      note: note(runs.length),
    });
  }
  return runs;
}
