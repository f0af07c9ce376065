// The fpe experiment's verdicts and report: the paper's observations (section 5.2) checked against the measured
// tables, and report.md with both tables beside the paper's own figures.
import type { FpeVariantName } from '../../fpe/registry.js';
import type { FpeExperimentConfig, Stat, Table1Row, Table2Row } from './fpe.js';

type Triple = readonly [number, number, number];

/** Table 1 of the paper (min, avg, max): waste %, utilisation (relative), eff. util. %, makespan (relative), schedule time ms. ε written as 0.5. */
export const PAPER_TABLE1: Readonly<Record<FpeVariantName, readonly [Triple, Triple, Triple, Triple, Triple]>> = {
  rigid: [
    [43, 70, 116],
    [1, 1, 1],
    [30, 40, 51],
    [1, 1, 1],
    [4.64, 6.2, 9.41],
  ],
  noX: [
    [0, 0, 0],
    [0.46, 0.58, 0.69],
    [49, 61, 73],
    [0.49, 0.65, 0.82],
    [11.4, 24.7, 55.8],
  ],
  '2X': [
    [0, 2, 11],
    [0.47, 0.6, 0.71],
    [50, 63, 75],
    [0.48, 0.64, 0.82],
    [11.4, 24.4, 45.4],
  ],
  '2X+c': [
    [0, 0.5, 4],
    [0.46, 0.59, 0.7],
    [53, 63, 75],
    [0.48, 0.63, 0.82],
    [17.1, 36.7, 88.6],
  ],
  infX: [
    [0, 7, 22],
    [0.49, 0.63, 0.78],
    [52, 64, 73],
    [0.49, 0.63, 0.78],
    [11.4, 23.4, 49.2],
  ],
  'infX+c': [
    [0, 1, 11],
    [0.46, 0.59, 0.71],
    [55, 64, 74],
    [0.47, 0.62, 0.78],
    [17.6, 36, 124],
  ],
};

/** Table 2 of the paper: avg ACT (relative), avg AWT (relative), num. expanded %, app expansion %, per-app. waste %. */
export const PAPER_TABLE2: Readonly<Record<FpeVariantName, readonly [Triple, Triple, Triple, Triple, Triple]>> = {
  rigid: [
    [1, 1, 1],
    [1, 1, 1],
    [0, 0, 0],
    [0, 0, 0],
    [0, 67, 681],
  ],
  noX: [
    [0.42, 0.61, 0.84],
    [0.36, 0.55, 0.81],
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ],
  '2X': [
    [0.45, 0.61, 0.84],
    [0.36, 0.54, 0.8],
    [0, 22, 56],
    [0, 4, 76],
    [0, 2, 75],
  ],
  '2X+c': [
    [0.44, 0.6, 0.84],
    [0.37, 0.54, 0.81],
    [0, 7, 40],
    [0, 0.5, 60],
    [0, 0.5, 41],
  ],
  infX: [
    [0.43, 0.62, 0.81],
    [0.27, 0.53, 0.76],
    [0, 26, 62],
    [0, 19, 884],
    [0, 6, 360],
  ],
  'infX+c': [
    [0.44, 0.6, 0.81],
    [0.35, 0.53, 0.76],
    [0, 13, 47],
    [0, 5, 1354],
    [0, 1, 119],
  ],
};

export interface FpeObservation {
  readonly id: string;
  /** The claim, in the paper's terms, with the test applied to it. */
  readonly text: string;
  readonly holds: boolean;
  /** The measured numbers the verdict rests on, by name. */
  readonly figures: Readonly<Record<string, number>>;
  /** Those numbers in words, for the report. */
  readonly measured: string;
}

/** Tolerances the paper leaves qualitative, stated so the verdicts can be read against them. */
export const FPE_THRESHOLDS = {
  /** The rigid baseline "reproduces" the paper's when its average effective utilisation is within this many points of 40 %. */
  baselinePoints: 2.5,
  /** "Small benefit" of 2X+c over noX: average completion time and makespan within this relative difference. */
  smallBenefit: 0.05,
  /** "Significant per-application waste": the worst application of 2X+c wastes at least this share of what it uses. */
  significantWastePercent: 10,
  /** "Reasonable scheduling time": every variant schedules a test in this many milliseconds on average. */
  reasonableMs: 100,
} as const;

const EVOLVING: readonly FpeVariantName[] = ['noX', '2X', '2X+c', 'infX', 'infX+c'];
const fmt = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

export function fpeObservations(t1: readonly Table1Row[], t2: readonly Table2Row[]): FpeObservation[] {
  const a = (v: FpeVariantName) => t1.find((r) => r.variant === v)!;
  const b = (v: FpeVariantName) => t2.find((r) => r.variant === v)!;
  const th = FPE_THRESHOLDS;
  const out: FpeObservation[] = [];
  const rigid = a('rigid');

  out.push({
    id: 'baseline',
    text: `The rigid baseline has the paper's effective utilisation, about 40 % on average (within ${th.baselinePoints} points)`,
    holds: Math.abs(rigid.effective_utilisation_percent.avg - 40) <= th.baselinePoints,
    figures: { rigid_effective_utilisation_avg: rigid.effective_utilisation_percent.avg },
    measured: `rigid: ${fmt(rigid.effective_utilisation_percent.avg, 1)} % (min ${fmt(rigid.effective_utilisation_percent.min, 1)}, max ${fmt(rigid.effective_utilisation_percent.max, 1)}); the paper: 40 (30, 51)`,
  });

  const better = EVOLVING.map((v) => ({
    v,
    eff: a(v).effective_utilisation_percent.avg,
    mk: a(v).makespan_relative.avg,
    waste: a(v).waste_percent.avg,
  }));
  out.push({
    id: 'rigid-outperformed',
    text: 'rigid is outperformed by every other variant: higher effective utilisation, shorter makespan and far less waste (averages)',
    holds: better.every(
      (x) => x.eff > rigid.effective_utilisation_percent.avg && x.mk < 1 && x.waste < rigid.waste_percent.avg / 2,
    ),
    figures: Object.fromEntries(
      better.flatMap((x) => [
        [`${x.v}_effective_utilisation_avg`, x.eff],
        [`${x.v}_makespan_relative_avg`, x.mk],
        [`${x.v}_waste_avg`, x.waste],
      ]),
    ),
    measured:
      `rigid: eff. util. ${fmt(rigid.effective_utilisation_percent.avg, 1)} %, waste ${fmt(rigid.waste_percent.avg, 1)} %; ` +
      better.map((x) => `${x.v}: ${fmt(x.eff, 1)} %, makespan ×${fmt(x.mk)}, waste ${fmt(x.waste, 1)} %`).join('; '),
  });

  out.push({
    id: 'utilisation-reduced',
    text: 'Every variant allocates less than rigid (relative utilisation below 1 on average and at worst)',
    holds: EVOLVING.every((v) => a(v).utilisation_relative.avg < 1 && a(v).utilisation_relative.max <= 1),
    figures: Object.fromEntries(
      EVOLVING.flatMap((v) => [
        [`${v}_avg`, a(v).utilisation_relative.avg],
        [`${v}_max`, a(v).utilisation_relative.max],
      ]),
    ),
    measured: EVOLVING.map(
      (v) => `${v}: ${fmt(a(v).utilisation_relative.avg)} (max ${fmt(a(v).utilisation_relative.max)})`,
    ).join('; '),
  });

  const msAvg = EVOLVING.map((v) => a(v).schedule_ms.avg);
  out.push({
    id: 'reasonable-time',
    text: `Scheduling takes a reasonable time: each variant schedules a test in under ${th.reasonableMs} ms on average`,
    holds: [rigid.schedule_ms.avg, ...msAvg].every((x) => x < th.reasonableMs),
    figures: Object.fromEntries(
      (['rigid', ...EVOLVING] as FpeVariantName[]).map((v) => [`${v}_ms_avg`, a(v).schedule_ms.avg]),
    ),
    measured: (['rigid', ...EVOLVING] as FpeVariantName[])
      .map((v) => `${v}: ${fmt(a(v).schedule_ms.avg, 3)} ms (max ${fmt(a(v).schedule_ms.max, 2)})`)
      .join('; '),
  });

  const spread = (xs: readonly number[]) => (Math.max(...xs) - Math.min(...xs)) / Math.max(...xs);
  const mkSpread = spread(EVOLVING.map((v) => a(v).makespan_relative.avg));
  const wasteSpread = spread(EVOLVING.map((v) => a(v).waste_percent.avg));
  out.push({
    id: 'makespan-differs-less',
    text: 'Makespan differs less between the variants than waste (relative spread of the averages)',
    holds: mkSpread < wasteSpread,
    figures: { makespan_spread: mkSpread, waste_spread: wasteSpread },
    measured: `makespan averages ${EVOLVING.map((v) => fmt(a(v).makespan_relative.avg)).join(', ')} (spread ${fmt(mkSpread * 100, 1)} %); waste averages ${EVOLVING.map((v) => fmt(a(v).waste_percent.avg, 2)).join(', ')} % (spread ${fmt(wasteSpread * 100, 1)} %)`,
  });

  const tradeoff =
    a('infX').makespan_relative.max <= a('noX').makespan_relative.max &&
    a('infX').waste_percent.max > a('noX').waste_percent.max;
  out.push({
    id: 'waste-makespan-tradeoff',
    text: 'There is a trade-off between waste and makespan at the extremes: infX has no longer a worst makespan than noX, and a worse waste',
    holds: tradeoff,
    figures: {
      noX_makespan_max: a('noX').makespan_relative.max,
      infX_makespan_max: a('infX').makespan_relative.max,
      noX_waste_max: a('noX').waste_percent.max,
      infX_waste_max: a('infX').waste_percent.max,
    },
    measured: `worst makespan noX ×${fmt(a('noX').makespan_relative.max)}, infX ×${fmt(a('infX').makespan_relative.max)}; worst waste noX ${fmt(a('noX').waste_percent.max, 1)} %, infX ${fmt(a('infX').waste_percent.max, 1)} %`,
  });

  out.push({
    id: 'user-always-better',
    text: "For users, every variant improves on rigid in every test: average completion time below rigid's (max relative ACT < 1) and less per-application waste on average",
    holds: EVOLVING.every(
      (v) => b(v).completion_relative.max < 1 && b(v).app_waste_percent.avg < b('rigid').app_waste_percent.avg,
    ),
    figures: Object.fromEntries(
      EVOLVING.flatMap((v) => [
        [`${v}_act_max`, b(v).completion_relative.max],
        [`${v}_app_waste_avg`, b(v).app_waste_percent.avg],
      ]),
    ),
    measured: `${EVOLVING.map((v) => `${v}: ACT ×${fmt(b(v).completion_relative.avg)} (max ×${fmt(b(v).completion_relative.max)}), per-app. waste ${fmt(b(v).app_waste_percent.avg, 1)} %`).join('; ')}; rigid per-app. waste ${fmt(b('rigid').app_waste_percent.avg, 1)} %`,
  });

  const awt = (v: FpeVariantName) => b(v).waiting_relative.avg;
  const act = (v: FpeVariantName) => b(v).completion_relative.avg;
  out.push({
    id: 'stretching-waits-less',
    text: "The variants that stretch most (infX, infX+c) reduce the average waiting time below noX's, but not necessarily the average completion time (at least one of them no better than noX on it)",
    holds:
      awt('infX') < awt('noX') &&
      awt('infX+c') < awt('noX') &&
      (act('infX') >= act('noX') || act('infX+c') >= act('noX')),
    figures: {
      noX_awt: awt('noX'),
      infX_awt: awt('infX'),
      infXc_awt: awt('infX+c'),
      noX_act: act('noX'),
      infX_act: act('infX'),
      infXc_act: act('infX+c'),
    },
    measured: `AWT noX ×${fmt(awt('noX'), 3)}, infX ×${fmt(awt('infX'), 3)}, infX+c ×${fmt(awt('infX+c'), 3)}; ACT noX ×${fmt(act('noX'), 3)}, infX ×${fmt(act('infX'), 3)}, infX+c ×${fmt(act('infX+c'), 3)}`,
  });

  const x = b('infX');
  out.push({
    id: 'few-expanded-a-lot',
    text: 'Waste is not equally split: with infX a minority of applications is expanded, a few of them a lot (the worst expansion over 10 times the average)',
    holds: x.expanded_percent.avg < 50 && x.expansion_percent.max > 10 * x.expansion_percent.avg,
    figures: {
      infX_expanded_avg: x.expanded_percent.avg,
      infX_expansion_avg: x.expansion_percent.avg,
      infX_expansion_max: x.expansion_percent.max,
    },
    measured: `infX: ${fmt(x.expanded_percent.avg, 1)} % of applications expanded on average; expansion ${fmt(x.expansion_percent.avg, 1)} % on average, ${fmt(x.expansion_percent.max, 0)} % at worst`,
  });

  out.push({
    id: 'infx-unbounded-waste',
    text: "infX and infX+c put no bound on an application's waste (worst over 100 %), which expand limit 2 does (at most 100 % of what it uses)",
    holds:
      b('infX').app_waste_percent.max > 100 &&
      b('2X').app_waste_percent.max <= 100 &&
      b('2X+c').app_waste_percent.max <= 100,
    figures: {
      infX_app_waste_max: b('infX').app_waste_percent.max,
      infXc_app_waste_max: b('infX+c').app_waste_percent.max,
      '2X_app_waste_max': b('2X').app_waste_percent.max,
      '2Xc_app_waste_max': b('2X+c').app_waste_percent.max,
    },
    measured: `worst per-app. waste: infX ${fmt(b('infX').app_waste_percent.max, 0)} %, infX+c ${fmt(b('infX+c').app_waste_percent.max, 0)} %, 2X ${fmt(b('2X').app_waste_percent.max, 0)} %, 2X+c ${fmt(b('2X+c').app_waste_percent.max, 0)} %`,
  });

  const rel = (p: number, q: number) => Math.abs(p - q) / q;
  const actGain = rel(act('2X+c'), act('noX'));
  const mkGain = rel(a('2X+c').makespan_relative.avg, a('noX').makespan_relative.avg);
  out.push({
    id: '2xc-small-benefit',
    text: `2X+c brings small benefits over noX (average completion time and makespan within ${th.smallBenefit * 100} %) at the cost of significant waste for some applications (worst at least ${th.significantWastePercent} %)`,
    holds:
      actGain <= th.smallBenefit &&
      mkGain <= th.smallBenefit &&
      b('2X+c').app_waste_percent.max >= th.significantWastePercent,
    figures: {
      act_difference: actGain,
      makespan_difference: mkGain,
      '2Xc_app_waste_max': b('2X+c').app_waste_percent.max,
    },
    measured: `ACT ×${fmt(act('2X+c'), 3)} vs ×${fmt(act('noX'), 3)} (${fmt(actGain * 100, 1)} %); makespan ×${fmt(a('2X+c').makespan_relative.avg, 3)} vs ×${fmt(a('noX').makespan_relative.avg, 3)} (${fmt(mkGain * 100, 1)} %); worst per-app. waste of 2X+c ${fmt(b('2X+c').app_waste_percent.max, 1)} %`,
  });

  out.push({
    id: 'compacting-reduces-waste',
    text: 'Compacting reduces waste: 2X+c wastes less than 2X and infX+c less than infX (averages), and expands fewer applications',
    holds:
      a('2X+c').waste_percent.avg < a('2X').waste_percent.avg &&
      a('infX+c').waste_percent.avg < a('infX').waste_percent.avg &&
      b('2X+c').expanded_percent.avg < b('2X').expanded_percent.avg &&
      b('infX+c').expanded_percent.avg < b('infX').expanded_percent.avg,
    figures: {
      '2X_waste': a('2X').waste_percent.avg,
      '2Xc_waste': a('2X+c').waste_percent.avg,
      infX_waste: a('infX').waste_percent.avg,
      infXc_waste: a('infX+c').waste_percent.avg,
    },
    measured: `waste 2X ${fmt(a('2X').waste_percent.avg)} % → 2X+c ${fmt(a('2X+c').waste_percent.avg)} %, infX ${fmt(a('infX').waste_percent.avg)} % → infX+c ${fmt(a('infX+c').waste_percent.avg)} %; expanded 2X ${fmt(b('2X').expanded_percent.avg, 1)} % → ${fmt(b('2X+c').expanded_percent.avg, 1)} %, infX ${fmt(b('infX').expanded_percent.avg, 1)} % → ${fmt(b('infX+c').expanded_percent.avg, 1)} %`,
  });

  out.push({
    id: 'compacting-costs-time',
    text: 'Compacting costs scheduling time: 2X+c and infX+c take longer than 2X and infX (averages)',
    holds:
      a('2X+c').schedule_ms.avg > a('2X').schedule_ms.avg && a('infX+c').schedule_ms.avg > a('infX').schedule_ms.avg,
    figures: {
      '2X_ms': a('2X').schedule_ms.avg,
      '2Xc_ms': a('2X+c').schedule_ms.avg,
      infX_ms: a('infX').schedule_ms.avg,
      infXc_ms: a('infX+c').schedule_ms.avg,
    },
    measured: `2X ${fmt(a('2X').schedule_ms.avg, 3)} ms, 2X+c ${fmt(a('2X+c').schedule_ms.avg, 3)} ms, infX ${fmt(a('infX').schedule_ms.avg, 3)} ms, infX+c ${fmt(a('infX+c').schedule_ms.avg, 3)} ms`,
  });

  out.push({
    id: 'nox-no-waste',
    text: 'noX never wastes (0 % waste in every test and for every application)',
    holds: a('noX').waste_percent.max === 0 && b('noX').app_waste_percent.max === 0,
    figures: { noX_waste_max: a('noX').waste_percent.max, noX_app_waste_max: b('noX').app_waste_percent.max },
    measured: `noX: worst test waste ${fmt(a('noX').waste_percent.max)} %, worst application ${fmt(b('noX').app_waste_percent.max)} %`,
  });
  return out;
}

/** A measured min / avg / max, and the paper's, as the tables show them. */
export const cell = (s: Stat, digits: number) =>
  `${fmt(s.min, digits)} / ${fmt(s.avg, digits)} / ${fmt(s.max, digits)}`;
export const paperCell = (t: Triple) => t.map((x) => String(x)).join(' / ');

export function fpeReport(
  config: FpeExperimentConfig,
  tests: number,
  t1: readonly Table1Row[],
  t2: readonly Table2Row[],
  obs: readonly FpeObservation[],
  defaultNodes: number,
): string {
  const lines: string[] = [];
  lines.push('# Fully-predictably evolving applications (Klein & Pérez, Euro-Par 2011 workshops, section 5)', '');
  lines.push('## What was run', '');
  lines.push(
    `- ${tests} tests (seed ${config.seed}), each 15–20 applications of 1–10 steps, a step 500–3,600 s (whole seconds) on 1–75 nodes, all drawn uniformly; every application queued at time 0.`,
    `- One homogeneous cluster of ${config.nodes} nodes. Every variant schedules each test with Algorithm 1 in submission order: rigid (peak node count × whole duration, CBF-like), noX (base fit, expand limit 1), 2X and 2X+c (limit 2, without and with compacting), infX and infX+c (no limit).`,
    "- Waste is the node-seconds allocated but not computed with, as a percentage of those computed with (the paper's figures, up to 116 % per test and 681 % per application, cannot be shares of the allocation); per-application figures are over every application of every test, the others over tests.",
    '- Scheduling time: wall-clock time of Algorithm 1 over one test, in this process (the paper: Python on a 2.53 GHz Core 2 Duo).',
    '',
  );
  lines.push('## The cluster size', '');
  lines.push(
    "The paper does not give it. Its rigid baseline has an effective utilisation of 40 % on average (30–51), so the size was swept over the 1,000 tests of seed 1 and the one whose rigid average is closest to 40 % kept: 75 nodes (the largest step) 51.5 %, 90 nodes 43.8 %, 95 nodes 41.9 %, **100 nodes 40.4 %** (33–51), 105 nodes 39.2 %, 110 nodes 38.4 %, 120 nodes 38.2 %, 130 nodes 41.2 % (29–63), 140 nodes 48.3 %, 150 nodes 50.1 %. The curve is not monotonic: from about 140 nodes two 75-node peaks run side by side and rigid packs better. 100 nodes is the default (`--nodes` changes it); with it the other figures of both tables fall close to the paper's.",
    '',
    `This run: ${config.nodes} nodes${config.nodes === defaultNodes ? ' (the default)' : ''}.`,
    '',
  );
  lines.push(`## Table 1: system-centric metrics (min / avg / max; the paper's below each row)`, '');
  lines.push(
    '| variant | waste (%) | utilisation (relative) | eff. util. (%) | makespan (relative) | schedule time (ms) |',
    '|---|---:|---:|---:|---:|---:|',
  );
  for (const r of t1) {
    const p = PAPER_TABLE1[r.variant];
    lines.push(
      `| ${r.variant} | ${cell(r.waste_percent, 2)} | ${cell(r.utilisation_relative, 2)} | ${cell(r.effective_utilisation_percent, 1)} | ${cell(r.makespan_relative, 2)} | ${cell(r.schedule_ms, 3)} |`,
    );
    lines.push(
      `| *paper* | *${paperCell(p[0])}* | *${paperCell(p[1])}* | *${paperCell(p[2])}* | *${paperCell(p[3])}* | *${paperCell(p[4])}* |`,
    );
  }
  lines.push('', `## Table 2: user-centric metrics (min / avg / max; the paper's below each row, ε written 0.5)`, '');
  lines.push(
    '| variant | avg. ACT (relative) | avg. AWT (relative) | num. expanded (%) | app expansion (%) | per-app. waste (%) |',
    '|---|---:|---:|---:|---:|---:|',
  );
  for (const r of t2) {
    const p = PAPER_TABLE2[r.variant];
    lines.push(
      `| ${r.variant} | ${cell(r.completion_relative, 2)} | ${cell(r.waiting_relative, 2)} | ${cell(r.expanded_percent, 1)} | ${cell(r.expansion_percent, 1)} | ${cell(r.app_waste_percent, 1)} |`,
    );
    lines.push(
      `| *paper* | *${paperCell(p[0])}* | *${paperCell(p[1])}* | *${paperCell(p[2])}* | *${paperCell(p[3])}* | *${paperCell(p[4])}* |`,
    );
  }
  lines.push('', "## Against the paper's figures", '', ...comparison(t1, t2), '');
  const held = obs.filter((o) => o.holds).length;
  lines.push("## The paper's observations", '', `${held} of ${obs.length} hold here.`, '');
  for (const o of obs) lines.push(`- ${o.text}: **${o.holds ? 'holds' : 'does not hold'}** (${o.measured}).`);
  const failing = obs.filter((o) => !o.holds);
  if (failing.length > 0) {
    lines.push('', '### Why some do not hold', '');
    for (const o of failing)
      lines.push(
        `- ${o.id}: ${WHY[o.id] ?? 'the measured figures above fall outside the test stated with the claim.'}`,
      );
  }
  lines.push(
    '',
    '## Files',
    '',
    '- `table1.csv`, `table2.csv`: the tables (one row per variant and metric: min, avg, max).',
    '- `tests.csv`: every test and variant, the per-test figures.',
    '',
  );
  return lines.join('\n');
}

const T1_METRICS = [
  'waste_percent',
  'utilisation_relative',
  'effective_utilisation_percent',
  'makespan_relative',
] as const;
const T2_METRICS = [
  'completion_relative',
  'waiting_relative',
  'expanded_percent',
  'expansion_percent',
  'app_waste_percent',
] as const;

/** Where the measured tables stand against the paper's: averages, extremes, and the scheduling time. */
function comparison(t1: readonly Table1Row[], t2: readonly Table2Row[]): string[] {
  interface Gap {
    variant: FpeVariantName;
    metric: string;
    ours: number;
    paper: number;
  }
  const avgs: Gap[] = [];
  const maxes: Gap[] = [];
  const collect = (variant: FpeVariantName, metric: string, s: Stat, p: Triple) => {
    avgs.push({ variant, metric, ours: s.avg, paper: p[1] });
    maxes.push({ variant, metric, ours: s.max, paper: p[2] });
  };
  for (const r of t1) T1_METRICS.forEach((m, k) => collect(r.variant, m, r[m], PAPER_TABLE1[r.variant][k]!));
  for (const r of t2) T2_METRICS.forEach((m, k) => collect(r.variant, m, r[m], PAPER_TABLE2[r.variant][k]!));
  // Relative metrics (about 1) compare in hundredths, percentages in points.
  const gap = (g: Gap) => Math.abs(g.ours - g.paper) * (g.metric.endsWith('_relative') ? 100 : 1);
  const within = (list: Gap[], limit: number) => list.filter((g) => Number.isFinite(g.ours) && gap(g) <= limit).length;
  const worst = (list: Gap[], k: number) =>
    [...list]
      .filter((g) => Number.isFinite(g.ours))
      .sort((a, b) => gap(b) - gap(a))
      .slice(0, k)
      .map((g) => `${g.variant} ${g.metric} ${fmt(g.ours)} (paper ${g.paper})`)
      .join('; ');
  const ms = t1.find((r) => r.variant === '2X+c')!.schedule_ms.avg;
  return [
    `- Averages: ${within(avgs, 1.5)} of ${avgs.length} within 1.5 points (percentages) or 0.015 (relative figures) of the paper's (ε taken as 0.5); the largest gaps: ${worst(avgs, 3)}.`,
    `- Maxima: ${within(maxes, 5)} of ${maxes.length} within 5 points or 0.05; the largest gaps: ${worst(maxes, 4)}. The maxima of the per-application figures are each set by one application of all the tests, so they follow the draws more than the algorithms.`,
    `- Scheduling time: 2X+c takes ${fmt(ms, 3)} ms per test on average, against the paper's 36.7 ms (Python, 2.53 GHz Core 2 Duo).`,
  ];
}

/** Known reasons an observation may not hold here, written for the report. */
const WHY: Readonly<Record<string, string>> = {
  'compacting-costs-time':
    "each variant schedules a test in a fraction of a millisecond, so the difference the compacting pass makes (a second run of the base fit per application, on mirrored time) is of the order of the timer's resolution, the JIT's and the machine's load; the paper's Python spent tens of milliseconds, where it shows.",
  'stretching-waits-less':
    'with the tests drawn here the stretching variants do cut waiting times, and they also cut completion times a little: the paper says "not necessarily", which its own averages (.62 and .60 against .61) barely show either.',
  'reasonable-time':
    'the scheduling time depends on the machine; it was measured with the clock given to the experiment.',
  baseline: "the rigid baseline depends on the cluster size given with --nodes; 100 nodes reproduces the paper's.",
};
