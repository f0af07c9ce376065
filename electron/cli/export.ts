// Files the CLI writes: CSV and JSON writers, the output directory, and the tables of one simulation run
// (summary.json, jobs.csv, utilization.csv, activity.csv).
import { mkdir, open, stat, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { ActivityBucket, ClusterUsage, JobMetrics } from '../../core/sim/metrics.js';
import type { StepFunction } from '../../core/time/step-function.js';
import { csvField, csvLines, type CsvValue } from '../../core/model/csv.js';

export type { CsvValue };

/** A mistake of the user's (flag, file, input): reported as one message, exit code 2, never a stack trace. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function toCsv(header: readonly string[], rows: Iterable<readonly CsvValue[]>): string {
  return csvLines([header, ...rows]);
}

export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Creates `dir` (and parents) or says why it cannot be used. */
export async function prepareOutDir(dir: string): Promise<string> {
  const resolved = path.resolve(dir);
  try {
    await makeDirectories(resolved);
    if (!(await stat(resolved)).isDirectory()) throw new UsageError(`--out ${dir}: is not a directory`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--out ${dir}: cannot create the directory (${systemReason(error)})`);
  }
  return resolved;
}

// mkdir({ recursive: true }) spins forever in Node 20 where mkdir fails with ENOENT under an existing parent (/proc);
// climbing by hand tries each level once.
async function makeDirectories(dir: string): Promise<void> {
  try {
    await mkdir(dir);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EEXIST') return;
    const parent = path.dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw error;
    await makeDirectories(parent);
    try {
      await mkdir(dir);
    } catch (again) {
      if ((again as { code?: unknown }).code !== 'EEXIST') throw again;
    }
  }
}

/** Writes `text` to `dir/name`; returns the path written. */
export async function writeOutput(dir: string, name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  try {
    await writeFile(file, text);
  } catch (error) {
    throw new UsageError(`${file}: cannot write (${systemReason(error)})`);
  }
  return file;
}

/** Characters of CSV gathered before each write of writeCsv. */
const CSV_CHUNK_CHARS = 1 << 16;

/**
 * Writes a header and rows to `dir/name` as CSV (the text toCsv makes), a chunk at a time; returns the path written.
 * A long run's tables are never held whole, as rows or as text: built at the end of a run, on top of the heap the run
 * left, they took 45 MiB more at the peak of a NASA replay (issue 17).
 */
export async function writeCsv(
  dir: string,
  name: string,
  header: readonly string[],
  rows: Iterable<readonly CsvValue[]>,
): Promise<string> {
  const file = path.join(dir, name);
  const failed = (error: unknown) => new UsageError(`${file}: cannot write (${systemReason(error)})`);
  let handle: FileHandle;
  try {
    handle = await open(file, 'w');
  } catch (error) {
    throw failed(error);
  }
  const write = async (text: string) => {
    try {
      await handle.write(text);
    } catch (error) {
      throw failed(error);
    }
  };
  try {
    let chunk = `${header.map(csvField).join(',')}\n`;
    for (const row of rows) {
      chunk += `${row.map(csvField).join(',')}\n`;
      if (chunk.length < CSV_CHUNK_CHARS) continue;
      await write(chunk);
      chunk = '';
    }
    await write(chunk);
  } finally {
    await handle.close();
  }
  return file;
}

/** The reason of a failed file operation in a few words, for messages. */
export function systemReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'EEXIST':
      return 'exists and is not a directory';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EROFS':
      return 'read-only file system';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

// ---- one simulation run --------------------------------------------------------------------------------------

const JOB_COLUMNS = [
  'id',
  'name',
  'kind',
  'state',
  'reason',
  'cluster',
  'submit',
  'start',
  'end',
  'wait_s',
  'execution_s',
  'response_s',
  'avg_size',
  'max_size',
  'grows',
  'shrinks',
  'tries',
  'walltime_s',
  'backfilled',
] as const satisfies ReadonlyArray<keyof JobMetrics>;

/** jobs.csv: one row per ended job; times never reached (a job that never started) and a walltime not given are empty. */
export const JOBS_CSV_HEADER: readonly string[] = JOB_COLUMNS;

export function* jobsCsvRows(jobs: Iterable<JobMetrics>): Generator<CsvValue[]> {
  for (const j of jobs) yield JOB_COLUMNS.map((c) => j[c]);
}

export const ACTIVITY_CSV_HEADER: readonly string[] = ['t', 'grows', 'shrinks'];

export function* activityCsvRows(buckets: readonly ActivityBucket[]): Generator<CsvValue[]> {
  for (const b of buckets) yield [b.t, b.grows, b.shrinks];
}

/** Above this many rows utilization.csv switches from breakpoints to a fixed step (about 3-4 MB). */
export const UTILIZATION_MAX_ROWS = 100_000;
// Fixed steps are picked from these, so the times stay round.
const NICE_STEPS_S = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

function breakpointTimes(fns: readonly StepFunction[], from: number): number[] {
  const times = new Set<number>([from]);
  for (const f of fns) for (const t of f.times) if (t >= from) times.add(t);
  return [...times].sort((a, b) => a - b);
}

export const UTILIZATION_CSV_HEADER: readonly string[] = ['t', 'cluster', 'concertina', 'background', 'processors'];

/**
 * Processors in use over time, per cluster and for the whole grid (cluster `grid`): t, cluster, concertina,
 * background, processors. Rows sit at the usage's breakpoints from t = 0, where the values are exact; when that
 * would make more than UTILIZATION_MAX_ROWS rows, every row is instead the mean over a fixed step starting at t
 * (`stepS`). The rows are made as they are read.
 */
export function utilizationCsvRows(
  clusters: readonly ClusterUsage[],
  endTime: number,
): { rows: Iterable<CsvValue[]>; stepS: number | undefined } {
  const gridName = clusters.some((c) => c.name === 'grid') ? 'grid-total' : 'grid';
  const total = clusters.reduce((s, c) => s + c.processors, 0);
  const perCluster = clusters.map((c) => breakpointTimes([c.concertina, c.background], 0));
  const all = breakpointTimes(
    clusters.flatMap((c) => [c.concertina, c.background]),
    0,
  );
  const exactRows = perCluster.reduce((s, ts) => s + ts.length, 0) + all.length;
  const end = Math.max(endTime, all[all.length - 1] ?? 0);
  if (exactRows <= UTILIZATION_MAX_ROWS) {
    function* exact(): Generator<CsvValue[]> {
      for (const [i, c] of clusters.entries())
        for (const t of perCluster[i]!)
          yield [t, c.name, c.concertina.valueAt(t), c.background.valueAt(t), c.processors];
      for (const t of all) {
        let concertina = 0;
        let background = 0;
        for (const c of clusters) {
          concertina += c.concertina.valueAt(t);
          background += c.background.valueAt(t);
        }
        yield [t, gridName, concertina, background, total];
      }
    }
    return { rows: exact(), stepS: undefined };
  }
  const wanted = (end * (clusters.length + 1)) / UTILIZATION_MAX_ROWS;
  const step = NICE_STEPS_S.find((s) => s >= wanted) ?? Math.ceil(wanted / 86400) * 86400;
  /** Each cluster's mean usage over [t, t + step), or less at the end. */
  const means = (c: ClusterUsage, t: number) => {
    const to = Math.min(end, t + step);
    return [c.concertina.integral(t, to) / (to - t), c.background.integral(t, to) / (to - t)] as const;
  };
  function* sampled(): Generator<CsvValue[]> {
    // Clusters first, then the grid, as in the exact layout; the grid's means are the clusters' summed in their order.
    for (const c of clusters) {
      for (let t = 0; t < end; t += step) yield [t, c.name, ...means(c, t), c.processors];
    }
    for (let t = 0; t < end; t += step) {
      let concertina = 0;
      let background = 0;
      for (const c of clusters) {
        const [ci, bi] = means(c, t);
        concertina += ci;
        background += bi;
      }
      yield [t, gridName, concertina, background, total];
    }
  }
  return { rows: sampled(), stepS: step };
}
