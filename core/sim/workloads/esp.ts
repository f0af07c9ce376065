// The modified ESP benchmark of the DBES paper (section V-A, Table I) on one cluster of 15 nodes × 8 cores: the 230 jobs
// of the original ESP test (Wong, Oliker, Kramer, Kaltz and Bailey, "ESP: A System Utilization Benchmark", SC2000) in
// 14 types, each a fraction of the machine with a static run time, some types made malleable (LeanMD, apps/leanmd.ts)
// or evolving (apps/esp-evolving.ts), submitted as ESP submits them: a seeded order, an initial batch, the rest over
// time, and the two full-machine Z jobs.
import { gridSpecSchema, jobSpecSchema, type GridSpec, type JobSpec, type JobSpecInput } from '../../model/schemas.js';
import { Random } from '../../random.js';

export const ESP_TYPES = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'Z'] as const;
export type EspType = (typeof ESP_TYPES)[number];

export interface EspJobType {
  readonly type: EspType;
  /** Share of the machine it runs on. */
  readonly fraction: number;
  readonly count: number;
  /** Seconds on its size (rigid, or malleable at its minimum). */
  readonly staticS: number;
  /** LeanMD's box of cells when the type is malleable. */
  readonly cells: readonly [number, number, number];
  /** Table I's run time as an evolving job granted its request (F, G and H only). */
  readonly evolvingS?: number;
}

/** Table I of the DBES paper. */
export const ESP_TABLE: readonly EspJobType[] = [
  { type: 'A', fraction: 0.03125, count: 75, staticS: 267, cells: [6, 6, 6] },
  { type: 'B', fraction: 0.0625, count: 9, staticS: 322, cells: [8, 8, 8] },
  { type: 'C', fraction: 0.5, count: 3, staticS: 534, cells: [15, 15, 15] },
  { type: 'D', fraction: 0.25, count: 3, staticS: 616, cells: [10, 10, 10] },
  { type: 'E', fraction: 0.5, count: 3, staticS: 315, cells: [15, 15, 15] },
  { type: 'F', fraction: 0.0625, count: 9, staticS: 1846, cells: [8, 8, 8], evolvingS: 1230 },
  { type: 'G', fraction: 0.125, count: 6, staticS: 1334, cells: [9, 9, 9], evolvingS: 1067 },
  { type: 'H', fraction: 0.1582, count: 6, staticS: 1067, cells: [11, 11, 11], evolvingS: 896 },
  { type: 'I', fraction: 0.03125, count: 24, staticS: 1432, cells: [6, 6, 6] },
  { type: 'J', fraction: 0.0625, count: 24, staticS: 725, cells: [8, 8, 8] },
  { type: 'K', fraction: 0.0957, count: 15, staticS: 487, cells: [7, 7, 7] },
  { type: 'L', fraction: 0.125, count: 36, staticS: 366, cells: [8, 8, 8] },
  { type: 'M', fraction: 0.25, count: 15, staticS: 187, cells: [10, 10, 10] },
  { type: 'Z', fraction: 1, count: 2, staticS: 100, cells: [4, 4, 4] },
];

/** Section V-A: 15 nodes of 2 × 4-core Xeon X5570. */
export const ESP_NODES = 15;
export const ESP_CORES_PER_NODE = 8;
export const ESP_PROCESSORS = ESP_NODES * ESP_CORES_PER_NODE;
export const ESP_CLUSTER = 'esp';

// Decision: a job's size is its fraction of the 120 cores rounded to the nearest core (A and I 3.75 → 4, B F J
// 7.5 → 8, H 18.98 → 19, K 11.48 → 11), at least 1. The paper's machine fractions are of 128 (their Table I evolving
// times fit 128: see apps/esp-evolving.ts); the issue asks for fractions of this cluster.
export function espSize(fraction: number, processors = ESP_PROCESSORS): number {
  return Math.max(1, Math.min(processors, Math.round(fraction * processors)));
}

// Decision: a malleable job may grow to four times its ESP size (two doublings, where LeanMD's efficiency stays near
// 90 %, apps/leanmd.ts), never beyond the machine. The paper names no maximum ("its user-specified maximum").
export const ESP_MALLEABLE_GROWTH = 4;

export const ESP_MALLEABLE_PERCENTS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100] as const;
export type EspMalleablePercent = (typeof ESP_MALLEABLE_PERCENTS)[number];

/**
 * The types made malleable at each percentage of the workload's jobs (by count). 40 % and 50 % are the paper's
 * (section V-B). Decision for the others: the set of types whose job count is closest to the percentage, keeping the
 * long-running F and I (which both of the paper's sets hold) once there is room for them. Shares of the 230 jobs: 10 %
 * I 10.4, 20 % I J 20.9, 30 % F I J K 31.3, 40 % 41.7, 50 % 47.0, 60 % F..M 58.7, 70 % A I J L 69.1, 80 % A F I J K L
 * 79.6, 90 % A F..M 91.3, 100 % A..M 99.1 (Z, the full machine, stays rigid: it can neither grow nor shrink).
 */
export const ESP_MALLEABLE_TYPES: Readonly<Record<EspMalleablePercent, readonly EspType[]>> = {
  10: ['I'],
  20: ['I', 'J'],
  30: ['F', 'I', 'J', 'K'],
  40: ['F', 'G', 'H', 'I', 'K', 'L'],
  50: ['F', 'I', 'J', 'K', 'L'],
  60: ['F', 'G', 'H', 'I', 'J', 'K', 'L', 'M'],
  70: ['A', 'I', 'J', 'L'],
  80: ['A', 'F', 'I', 'J', 'K', 'L'],
  90: ['A', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M'],
  100: ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M'],
};

/** Section V-C (Figure 7, Table II): 10 % evolving, 40 % malleable, 50 % rigid. */
export const ESP_MIXED = { evolving: ['F', 'G', 'H'], malleable: ['I', 'J', 'K', 'L'] } as const satisfies {
  evolving: readonly EspType[];
  malleable: readonly EspType[];
};

/** The paper's evolving request: 4 more cores at 16 % of the static run time, once more at 25 % if refused. */
export const ESP_EVOLVING_EXTRA = 4;
export const ESP_EVOLVING_ASK_AT = [0.16, 0.25] as const;

export interface EspComposition {
  readonly malleable: readonly EspType[];
  readonly evolving: readonly EspType[];
}

/** What ESP's submission rules are made of. */
export interface EspSubmission {
  /** Seconds from the first submission to the last regular one (after the initial batch, jobs arrive evenly). */
  readonly spreadS: number;
  /** When each Z job arrives, seconds from the start. */
  readonly zAtS: readonly number[];
}

/** Core-seconds of the whole workload over the machine: the time it would take with no idle core and no adaptation. */
export function espMinimumTime(processors = ESP_PROCESSORS): number {
  let work = 0;
  for (const t of ESP_TABLE) work += t.count * espSize(t.fraction, processors) * t.staticS;
  return work / processors;
}

// Decision (ESP's rules as remembered from the SC2000 paper; the search tool reached only its abstract): the jobs
// other than Z go in one seeded pseudo-random order; an initial batch of them, the first of that order until they ask
// for at least twice the machine, is submitted at once, the rest one after another at a constant interval over the
// first half of the theoretical minimum time (so the queue never runs dry early); the two Z jobs arrive at one third
// and two thirds of that time.
// Decision: ESP wants each Z job run ahead of every job waiting when it arrives, the machine drained for it (jobs
// already running are not preempted; backfilling that does not delay it goes on). A Z job carries priority
// ESP_Z_PRIORITY, which DBES and its baselines put ahead of the queue's order: it is the first reserved job, every
// shrink phase serves it first, and backfilling never delays it.
export function espSubmission(processors = ESP_PROCESSORS): EspSubmission {
  const t = espMinimumTime(processors);
  return { spreadS: Math.round(t / 2), zAtS: [Math.round(t / 3), Math.round((2 * t) / 3)] };
}

/** The priority of the Z jobs (every other job has 0). */
export const ESP_Z_PRIORITY = 1;

// Decision: an adaptive (malleable or evolving) job's walltime is its static run time plus 1 s. It never runs longer
// than that time (it starts at its ESP size and never goes below it), but its progress over resizes is summed in
// floating point, and a job resized back to its size could end a few ulps past a walltime of exactly that time and be
// killed at the instant it finishes.
export const ESP_ADAPTIVE_WALLTIME_MARGIN_S = 1;

/** Initial batch: the first jobs of the order until they ask for at least this many times the machine. */
export const ESP_INITIAL_BATCH_MACHINES = 2;

type EspJobInput = JobSpecInput & { readonly id: string; readonly submitTime: number };

/** The benchmark's machine: one cluster of 15 × 8 cores, no local users beside the scheduler. */
export function espGrid(processors = ESP_PROCESSORS): GridSpec {
  return gridSpecSchema.parse({ name: 'esp', clusters: [{ name: ESP_CLUSTER, processors }] });
}

/**
 * The workload's job specs for one seed: ids `<type>-<n>` (n from 1 within its type), in submission order.
 * Rigid jobs run a fixed time with that walltime; malleable ones start at their ESP size (min) and may grow to
 * ESP_MALLEABLE_GROWTH times it, running LeanMD; evolving ones start at their size, asking for 4 more.
 */
export function espWorkload(composition: EspComposition, seed: number, processors = ESP_PROCESSORS): JobSpec[] {
  const malleable = new Set(composition.malleable);
  const evolving = new Set(composition.evolving);
  const all: Array<{ id: string; type: EspJobType }> = [];
  for (const t of ESP_TABLE) {
    if (t.type === 'Z') continue;
    for (let n = 1; n <= t.count; n++) all.push({ id: `${t.type}-${n}`, type: t });
  }
  const random = new Random(seed).fork('esp-order');
  // Fisher–Yates with the seeded generator.
  for (let i = all.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  const { spreadS, zAtS } = espSubmission(processors);
  let asked = 0;
  let initial = 0;
  while (initial < all.length && asked < ESP_INITIAL_BATCH_MACHINES * processors) {
    asked += espSize(all[initial]!.type.fraction, processors);
    initial++;
  }
  const rest = all.length - initial;
  const interval = rest > 0 ? spreadS / rest : 0;
  const specs: EspJobInput[] = all.map((job, i) => {
    const submitTime = i < initial ? 0 : Math.round((i - initial + 1) * interval);
    return jobSpec(job.id, job.type, submitTime, malleable.has(job.type.type), evolving.has(job.type.type), processors);
  });
  const z = ESP_TABLE.find((t) => t.type === 'Z')!;
  zAtS.forEach((at, i) => specs.push(jobSpec(`Z-${i + 1}`, z, at, false, false, processors)));
  specs.sort((a, b) => a.submitTime - b.submitTime);
  return specs.map((spec) => jobSpecSchema.parse(spec));
}

function jobSpec(
  id: string,
  t: EspJobType,
  submitTime: number,
  malleable: boolean,
  evolving: boolean,
  processors: number,
): EspJobInput {
  const size = espSize(t.fraction, processors);
  const base = {
    id,
    name: `ESP ${t.type}`,
    submitTime,
    walltime: t.staticS,
    ...(t.type === 'Z' ? { priority: ESP_Z_PRIORITY } : {}),
  };
  const adaptive = { ...base, walltime: t.staticS + ESP_ADAPTIVE_WALLTIME_MARGIN_S };
  if (evolving && t.type !== 'Z') {
    const max = Math.min(processors, size + ESP_EVOLVING_EXTRA);
    return {
      ...adaptive,
      kind: 'evolving',
      components: [{ min: size, initial: size, max, program: 'esp-evolving', cluster: ESP_CLUSTER }],
      app: { model: 'esp-evolving', runtime: t.staticS, extra: ESP_EVOLVING_EXTRA, askAt: [...ESP_EVOLVING_ASK_AT] },
    };
  }
  if (malleable && t.type !== 'Z') {
    const max = Math.min(processors, size * ESP_MALLEABLE_GROWTH);
    return {
      ...adaptive,
      kind: 'malleable',
      components: [
        { min: size, initial: size, max, program: 'leanmd', args: t.cells.map(String), cluster: ESP_CLUSTER },
      ],
      app: { model: 'leanmd', cells: [...t.cells], runtime: t.staticS, size },
    };
  }
  return {
    ...base,
    kind: 'rigid',
    components: [{ processors: size, program: 'esp', cluster: ESP_CLUSTER }],
    app: { model: 'fixed', runtime: t.staticS },
  };
}

/** The type of an ESP job from its id (`F-3` → F). */
export function espTypeOf(jobId: string): EspType | undefined {
  const t = jobId.split('-')[0];
  return (ESP_TYPES as readonly string[]).includes(t ?? '') ? (t as EspType) : undefined;
}

/** Share of the workload's jobs whose type is in `types` (by count, Z included in the total). */
export function espShareOfJobs(types: readonly EspType[]): number {
  const total = ESP_TABLE.reduce((s, t) => s + t.count, 0);
  return ESP_TABLE.filter((t) => types.includes(t.type)).reduce((s, t) => s + t.count, 0) / total;
}
