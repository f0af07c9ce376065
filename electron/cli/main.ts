// The `concertina` command line: `simulate` one run, or run a paper's experiment (`koala`, `coorm`, `fpe`, `interactive`). Any misuse (flag,
// value, file, input field) ends with one message on stderr and exit code 2; an internal error with its message and 1.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Command, CommanderError, Option } from 'commander';
import {
  APPROACHES,
  MAX_PROCESSORS,
  PLACEMENT_POLICIES,
  gridSpecSchema,
  type GridSpec,
  type JobSpec,
  type PlacementPolicyName,
} from '../../core/model/schemas.js';
import { parseWith, type FieldError } from '../../core/model/result.js';
import { malleabilityPolicies } from '../../core/malleability/registry.js';
import { GRID_PRESETS, das3Grid, gridPreset, singleCluster } from '../../core/sim/grids.js';
import type { ThresholdScope } from '../../core/scheduler/cluster-state.js';
import { QUEUE_POLICIES, type QueuePolicyName } from '../../core/queue/policy.js';
import { QUEUE_PRIORITIES, type QueuePriorityName } from '../../core/queue/priority.js';
import { BACKFILLING_POLICIES } from '../../core/queue/registry.js';
import { ACTIVITY_BUCKET_S, type RunSummary } from '../../core/sim/metrics.js';
import { simulate, type SimulationOutcome } from '../../core/sim/simulate.js';
import { DEFAULT_POLL_INTERVAL_S } from '../../core/sim/world.js';
import { parseGridJson, parseJobsJson } from '../../core/sim/workloads/json.js';
import { FPE_VARIANTS, type FpeVariantName } from '../../core/fpe/registry.js';
import { DEFAULT_FPE_VARIANT } from '../../core/scheduler/fpe-jobs.js';
import { WORKLOAD_PRESETS, workloadPreset } from '../../core/sim/workloads/koala.js';
import { parseSwfTrace, type SwfPartition, type SwfSkip } from '../../core/sim/workloads/swf.js';
import type { SwfJobs } from '../../core/sim/workloads/swf-jobs.js';
import { printable } from './printable.js';
import {
  ACTIVITY_CSV_HEADER,
  JOBS_CSV_HEADER,
  UTILIZATION_CSV_HEADER,
  UsageError,
  activityCsvRows,
  jobsCsvRows,
  prepareOutDir,
  systemReason,
  toJson,
  utilizationCsvRows,
  writeCsv,
  writeOutput,
} from './export.js';
import { MAX_SEED, choice, fraction, fractionUpToOne, seconds, thresholdScopeOption, wholeNumber } from './flags.js';
import { PROGRAM, alignColumns, emit, progressBar, type CliIo } from './terminal.js';

export { alignColumns, emit, progressBar, type CliIo, type CliStream } from './terminal.js';

type AddCommands = (program: Command, io: CliIo, done: (code: number) => void) => void;
/** Messages of skipped or refused inputs shown before "and N more". */
const SHOW_FIRST = 5;

// ---- values of flags -----------------------------------------------------------------------------------------

// ---- inputs --------------------------------------------------------------------------------------------------

async function readInput(flag: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new UsageError(`${flag} ${file}: cannot read the file (${systemReason(error)})`);
  }
}

/** Field errors of an input file as one message: the first on the main line, a few more below it. */
function inputErrors(source: string, errors: readonly FieldError[]): UsageError {
  // Errors with a text position already start with the file name.
  const line = (e: FieldError) =>
    printable(
      e.path.startsWith(source) ? `${e.path}: ${e.message}` : `${source}: ${e.path ? `${e.path}: ` : ''}${e.message}`,
    );
  const lines = [line(errors[0]!)];
  for (const e of errors.slice(1, SHOW_FIRST)) lines.push(`  also ${line(e)}`);
  if (errors.length > SHOW_FIRST) lines.push(`  and ${errors.length - SHOW_FIRST} more problems in ${source}`);
  return new UsageError(lines.join('\n'));
}

/** Each cluster's threshold set to `fraction` of its processors (at least 1), or the grid as it is. */
function withThreshold(grid: GridSpec, fraction: number | undefined): GridSpec {
  if (fraction === undefined) return grid;
  return {
    ...grid,
    clusters: grid.clusters.map((c) => ({ ...c, threshold: Math.max(1, Math.floor(fraction * c.processors)) })),
  };
}

/** `single:N`: one cluster of N processors, no threshold, no background load (the textbook setting of a trace replay). */
function singleClusterGrid(arg: string): GridSpec | undefined {
  const m = /^single:(.*)$/.exec(arg);
  if (!m) return undefined;
  const value = m[1]!;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_PROCESSORS) {
    throw new UsageError(
      `--grid single:N needs N a whole number of processors from 1 to ${MAX_PROCESSORS} (got "${arg}")`,
    );
  }
  // Decision: not parsed by gridSpecSchema: N is checked above by the schema's own rules for processors (a whole
  // number from 1 to MAX_PROCESSORS), and the rest of the grid is our own constant (grids.ts, held equal to its parse).
  return singleCluster(n);
}

async function loadGrid(arg: string): Promise<GridSpec> {
  const single = singleClusterGrid(arg);
  if (single) return single;
  const preset = gridPreset(arg);
  if (preset) {
    const parsed = parseWith(gridSpecSchema, preset);
    if (!parsed.ok) throw new Error(`grid preset ${arg} is invalid: ${parsed.errors[0]?.message}`);
    return parsed.value;
  }
  if (!/\.json$/i.test(arg)) {
    throw new UsageError(
      `--grid must be a preset (${Object.keys(GRID_PRESETS).join(', ')}), single:N, from-trace or a .json file (got "${arg}")`,
    );
  }
  const parsed = parseGridJson((await readInput('--grid', arg)).toString('utf8'), arg);
  if (!parsed.ok) throw inputErrors(arg, parsed.errors);
  return parsed.value;
}

interface Workload {
  /** An SWF trace's jobs stay columns, each spec built as the simulator submits it (issue 17). */
  jobs: JobSpec[] | SwfJobs;
  /** Jobs of an SWF trace without a requested time, whose run time is their walltime. */
  walltimeFromRunTime: number;
  /** Lines of an SWF file that gave no job, with why. */
  skipped: SwfSkip[];
  /** Records read to get the jobs (for an SWF trace: up to the `--max-jobs`-th job kept). */
  records: number;
  /** Whether the jobs come from an SWF trace. */
  trace?: boolean;
  /** An SWF trace's partitions and their peaks, when asked for (`--grid from-trace`). */
  partitions?: SwfPartition[];
}

export const FROM_TRACE = 'from-trace';

/** `--grid from-trace`: one cluster per partition of the trace (SWF field 16), sized by its peak (swf.ts). */
function gridFromTrace(workload: Workload, source: string): GridSpec {
  const partitions = workload.partitions;
  if (partitions === undefined)
    throw new UsageError(`--grid ${FROM_TRACE} needs an SWF trace as --workload (got "${source}")`);
  if (partitions.length === 0) throw new UsageError(`--grid ${FROM_TRACE}: ${source} has no usable job`);
  // Decision: jobs of an unknown partition (-1) make one cluster of their own, "unknown".
  const clusters = partitions.map((p) => ({
    name: p.partition < 0 ? 'unknown' : `p${p.partition}`,
    processors: Math.max(1, p.peak),
  }));
  return gridSpecSchema.parse({ name: FROM_TRACE, clusters });
}

async function loadWorkload(
  arg: string,
  seed: number,
  strict: boolean,
  maxJobs: number | undefined,
  partitions = false,
): Promise<Workload> {
  if (Object.hasOwn(WORKLOAD_PRESETS, arg)) {
    const jobs = workloadPreset(arg, seed)!;
    return {
      jobs: maxJobs === undefined ? jobs : jobs.slice(0, maxJobs),
      skipped: [],
      records: jobs.length,
      walltimeFromRunTime: 0,
    };
  }
  if (/\.json$/i.test(arg)) {
    const parsed = parseJobsJson((await readInput('--workload', arg)).toString('utf8'), arg);
    if (!parsed.ok) throw inputErrors(arg, parsed.errors);
    const jobs = maxJobs === undefined ? parsed.value : parsed.value.slice(0, maxJobs);
    return { jobs, skipped: [], records: parsed.value.length, walltimeFromRunTime: 0 };
  }
  if (/\.swf(\.gz)?$/i.test(arg)) {
    let data = await readInput('--workload', arg);
    if (/\.gz$/i.test(arg)) {
      try {
        // Loaded here, not with the module: a run of a plain .swf file is spared its start-up (issue 17).
        // Decision: decompressed synchronously. The callback form's stream lets go of its input and output only once
        // it closes, on a later turn of the event loop, which the replay (synchronous) never yields to: the trace, its
        // text and the stream stayed alive to the end of the run; and its stream machinery cost twice the CPU (batsim
        // 2.8 -> 1.2 ms, NASA 8 -> 4.3 ms) (issue 17).
        const { gunzipSync } = await import('node:zlib');
        data = gunzipSync(data);
      } catch (error) {
        throw new UsageError(
          `${arg}: is not valid gzip data (${error instanceof Error ? error.message : String(error)})`,
        );
      }
    }
    // The bytes, not a string of them: see swf.ts (issue 17).
    const parsed = parseSwfTrace(data, arg, {
      strict,
      partitions,
      ...(maxJobs === undefined ? {} : { maxJobs }),
    });
    if (!parsed.ok) throw inputErrors(arg, parsed.errors);
    const { jobs, skipped, records, walltimeFromRunTime } = parsed.value;
    return {
      jobs,
      skipped,
      records,
      walltimeFromRunTime,
      trace: true,
      ...(parsed.value.partitions ? { partitions: parsed.value.partitions } : {}),
    };
  }
  throw new UsageError(
    `--workload must be a preset (${Object.keys(WORKLOAD_PRESETS).join(', ')}) or a .json, .swf or .swf.gz file (got "${arg}")`,
  );
}

// ---- simulate ------------------------------------------------------------------------------------------------

interface SimulateOptions {
  grid: string;
  workload: string;
  approach: string;
  policy: string;
  placement?: PlacementPolicyName;
  queue: QueuePolicyName;
  reservationDepth?: number;
  priority: QueuePriorityName;
  fpeVariant: FpeVariantName;
  seed: number;
  poll: number;
  tries?: number;
  maxJobs?: number;
  strict?: boolean;
  background: boolean;
  threshold?: number;
  thresholdScope: ThresholdScope;
  adaptS: number;
  launchDelayS: number;
  praBackground?: number;
  pwaBackground?: number;
  json?: boolean;
  out?: string;
}

/** A setting that did not apply to the run (the malleability approach and policy, to a workload of rigid jobs only). */
export const NOT_APPLICABLE = 'not applicable';

/** For an SWF trace: the records read to get its jobs, and those skipped, grouped by why. */
export interface TraceReading {
  swf_records_read: number;
  swf_records_skipped: number;
  /** Most frequent first. */
  swf_skipped: Array<{ reason: string; records: number }>;
  /** `--max-jobs`: the jobs kept (the skipped records do not count), or null for the whole trace. */
  max_jobs: number | null;
}

/** What `simulate --json` prints and summary.json holds. */
export type SimulateReport = {
  grid: string;
  workload: string;
  /** The job-management approach and malleability policy, or "not applicable" when every job is rigid. */
  approach: string;
  policy: string;
  placement: string;
  queue: string;
  /** The FPE variant, when some job carries an evolution profile. */
  fpe_variant?: string;
  seed: number;
  poll_s: number;
  background: boolean;
  refused: number;
} & Partial<TraceReading> &
  RunSummary;

/** The skipped records grouped by cause, most frequent first (then in the order causes are listed). */
function skippedByCause(skipped: readonly SwfSkip[]): Array<{ reason: string; records: number }> {
  const counts = new Map<string, number>();
  for (const s of skipped) counts.set(s.cause, (counts.get(s.cause) ?? 0) + 1);
  return [...counts].map(([reason, records]) => ({ reason, records })).sort((a, b) => b.records - a.records);
}

async function simulateCommand(o: SimulateOptions, io: CliIo): Promise<number> {
  if (o.reservationDepth !== undefined && !BACKFILLING_POLICIES.includes(o.queue)) {
    throw new UsageError(
      `--reservation-depth applies to --queue ${BACKFILLING_POLICIES.join(' or ')} only (got --queue ${o.queue})`,
    );
  }
  if (o.priority !== 'submit' && o.queue === 'koala')
    throw new UsageError('--priority applies to --queue fcfs, easy or cbf only (koala tries every job head to tail)');
  const outDir = o.out === undefined ? undefined : await prepareOutDir(o.out);
  const background = o.approach === 'pwa' ? o.pwaBackground : o.praBackground;
  if ((o.praBackground !== undefined || o.pwaBackground !== undefined) && o.grid !== 'das3') {
    throw new UsageError('--pra-background and --pwa-background apply to the das3 grid only');
  }
  const fromTrace = o.grid === FROM_TRACE;
  const workload = await loadWorkload(o.workload, o.seed, o.strict === true, o.maxJobs, fromTrace);
  const base = fromTrace
    ? gridFromTrace(workload, o.workload)
    : background === undefined
      ? await loadGrid(o.grid)
      : gridSpecSchema.parse(das3Grid(background));
  const grid = withThreshold(base, o.threshold);
  if (workload.skipped.length > 0) {
    const lines = [
      `${PROGRAM}: warning: ${printable(o.workload)}: skipped ${workload.skipped.length} of ${workload.records} records:`,
    ];
    for (const s of workload.skipped.slice(0, SHOW_FIRST)) lines.push(`  line ${s.line}: ${printable(s.reason)}`);
    if (workload.skipped.length > SHOW_FIRST) lines.push(`  and ${workload.skipped.length - SHOW_FIRST} more`);
    await emit(io.stderr, `${lines.join('\n')}\n`);
  }
  if (workload.walltimeFromRunTime > 0) {
    const n = workload.walltimeFromRunTime;
    const which = n === workload.jobs.length ? 'no job gives a' : `${n} of ${workload.jobs.length} jobs give no`;
    await emit(
      io.stderr,
      `${PROGRAM}: note: ${printable(o.workload)}: ${which} requested time (SWF field 9): their run time is used as their walltime\n`,
    );
  }
  const placement = o.placement;
  // In place: the specs are this run's own, freshly read or generated; a trace's are built as its jobs arrive, under
  // the placement set on its columns.
  const jobs = workload.jobs;
  if (placement !== undefined) {
    if (Array.isArray(jobs)) for (const job of jobs) job.placement = placement;
    else jobs.placement = placement;
  }
  // A trace's jobs are all rigid, with no evolution profile.
  const specs = Array.isArray(jobs) ? jobs : [];

  // Decision: a trace's jobs wait rather than fail: the batch system that ran the trace kept each one queued until it
  // started, so an SWF replay has no placement-tries limit unless --tries sets one (presets and JSON jobs keep the
  // scheduler's, the KOALA paper's experiment among them).
  const tries = o.tries ?? (workload.trace ? Number.POSITIVE_INFINITY : undefined);
  const bar = io.stderr.isTTY && !o.json ? await progressBar(io.stderr, 'jobs') : undefined;
  let outcome: SimulationOutcome;
  try {
    bar?.start(jobs.length, 0, { note: '' });
    outcome = simulate(
      {
        grid,
        jobs,
        seed: o.seed,
        pollIntervalS: o.poll,
        background: o.background,
        adaptS: o.adaptS,
        launchDelayS: o.launchDelayS,
        scheduler: {
          approach: o.approach,
          policy: o.policy,
          queue: o.queue,
          reservationDepth: o.reservationDepth,
          priority: o.priority,
          fpeVariant: o.fpeVariant,
          thresholdScope: o.thresholdScope,
          ...(tries === undefined ? {} : { triesThreshold: tries }),
        },
      },
      // Without a bar nobody reads the progress: no listener of every job's end.
      bar ? { onProgress: (ended, _total, t) => bar.update(ended, { note: `t = ${formatDuration(t)}` }) } : {},
    );
  } finally {
    bar?.stop();
  }

  if (outcome.refused.length > 0) {
    const lines = [
      `${PROGRAM}: warning: ${outcome.refused.length} of ${jobs.length} jobs refused by the scheduler (counted, not run):`,
    ];
    for (const r of outcome.refused.slice(0, SHOW_FIRST)) {
      const why = r.errors.map((e) => `${e.path ? `${e.path}: ` : ''}${e.message}`).join('; ');
      lines.push(`  ${printable(`${r.jobId}: ${why}`)}`);
    }
    if (outcome.refused.length > SHOW_FIRST) lines.push(`  and ${outcome.refused.length - SHOW_FIRST} more`);
    await emit(io.stderr, `${lines.join('\n')}\n`);
  }

  // Decision: the approach (PRA/PWA) and the malleability policy act on malleable and evolving jobs only; with none in
  // the workload they change nothing, and the summary says so rather than name a setting that did not apply.
  const malleability = specs.some((j) => j.kind !== 'rigid');
  const reading: Partial<TraceReading> = workload.trace
    ? {
        swf_records_read: workload.records,
        swf_records_skipped: workload.skipped.length,
        swf_skipped: skippedByCause(workload.skipped),
        max_jobs: o.maxJobs ?? null,
      }
    : {};
  const report: SimulateReport = {
    grid: o.grid,
    workload: o.workload,
    approach: malleability ? o.approach : NOT_APPLICABLE,
    policy: malleability ? o.policy : NOT_APPLICABLE,
    placement: placement ?? 'per job',
    queue: o.queue,
    ...(specs.some((j) => j.profile !== undefined) ? { fpe_variant: o.fpeVariant } : {}),
    seed: o.seed,
    poll_s: o.poll,
    background: o.background,
    refused: outcome.refused.length,
    ...reading,
    ...outcome.summary,
  };
  // Notes go to stderr under --json, so that stdout stays one JSON object.
  const notes = o.json ? io.stderr : io.stdout;
  if (o.json) await emit(io.stdout, `${JSON.stringify(report)}\n`);
  else await emit(io.stdout, summaryTable(report, grid));

  if (outDir !== undefined) {
    const utilization = utilizationCsvRows(outcome.clusters, outcome.endTime);
    const stepS = utilization.stepS;
    const written = [
      await writeOutput(outDir, 'summary.json', toJson(report)),
      await writeCsv(outDir, 'jobs.csv', JOBS_CSV_HEADER, jobsCsvRows(outcome.jobRows())),
      await writeCsv(outDir, 'utilization.csv', UTILIZATION_CSV_HEADER, utilization.rows),
      await writeCsv(outDir, 'activity.csv', ACTIVITY_CSV_HEADER, activityCsvRows(outcome.activity(ACTIVITY_BUCKET_S))),
    ];
    const sampling = stepS === undefined ? '' : ` (utilization as means over ${stepS} s steps, the run being long)`;
    await emit(
      notes,
      `Wrote ${written.length} files to ${printable(outDir)}${sampling}: ${written.map((f) => f.slice(outDir.length + 1)).join(', ')}\n`,
    );
  }
  return 0;
}

function formatDuration(s: number): string {
  if (!Number.isFinite(s)) return '-';
  if (s < 120) return `${s.toFixed(0)} s`;
  if (s < 7200) return `${(s / 60).toFixed(1)} min`;
  if (s < 172800) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

/** The summary's row for an SWF trace: the records read to keep its jobs, and why the others were skipped. */
function traceRow(r: SimulateReport): string[] {
  const skipped = r.swf_skipped!.map((s) => `${s.records} ${s.reason}`).join(', ');
  const kept = `read to keep ${r.swf_records_read! - r.swf_records_skipped!} jobs${r.max_jobs === null ? '' : ` (--max-jobs ${r.max_jobs})`}`;
  return [
    'SWF records',
    String(r.swf_records_read),
    '',
    `${kept}; ${r.swf_records_skipped} skipped${skipped ? `: ${skipped}` : ''}`,
  ];
}

function summaryTable(r: SimulateReport, grid: GridSpec): string {
  const processors = grid.clusters.reduce((s, c) => s + c.processors, 0);
  const n = (x: number, digits: number) => (Number.isFinite(x) ? x.toFixed(digits) : '-');
  const pct = (x: number) => n(x * 100, 1);
  const rows: string[][] = [
    ...(r.swf_records_read === undefined ? [] : [traceRow(r)]),
    [
      'jobs',
      String(r.jobs),
      '',
      `${r.completed} completed, ${r.failed} failed, ${r.cancelled} cancelled; ${r.refused} refused`,
    ],
    ['makespan', n(r.makespan_s, 0), 's', formatDuration(r.makespan_s)],
    [
      'utilization',
      pct(r.utilization),
      '%',
      `Concertina ${pct(r.concertina_utilization)} %, background ${pct(r.background_utilization)} %`,
    ],
    ['mean wait', n(r.mean_wait_s, 1), 's', 'completed jobs'],
    ['mean execution', n(r.mean_execution_s, 1), 's', 'completed jobs'],
    ['mean response', n(r.mean_response_s, 1), 's', 'completed jobs'],
    [
      'mean bounded slowdown',
      n(r.mean_bounded_slowdown, 2),
      '',
      'completed jobs; max(1, response / max(execution, 10 s))',
    ],
    ['max wait', n(r.max_wait_s, 1), 's', 'completed jobs'],
    [
      'mean wait, all jobs',
      n(r.mean_wait_all_s, 1),
      's',
      'every ended job; one that never started waited until it ended',
    ],
    [
      'mean bounded slowdown, all jobs',
      n(r.mean_bounded_slowdown_all, 2),
      '',
      'every ended job; what it ran as its execution',
    ],
    ...r.failure_reasons.slice(0, 3).map((f, i) => [i === 0 ? 'failed' : '', String(f.jobs), 'jobs', f.reason]),
    ...(r.failure_reasons.length > 3
      ? [['', '', '', `and ${r.failure_reasons.length - 3} more reasons (summary.json has them all)`]]
      : []),
    ['backfilled', String(r.backfilled), '', 'jobs started while a job submitted before them waited'],
    ['mean average size', n(r.mean_avg_size, 2), 'processors', 'time-weighted over each job'],
    ['mean maximum size', n(r.mean_max_size, 2), 'processors', ''],
    ['grow operations', String(r.grow_ops), '', ''],
    ['shrink operations', String(r.shrink_ops), '', `mandatory; ${r.voluntary_releases} voluntary releases besides`],
    ...(r.interactive_deadline_misses === undefined
      ? []
      : [
          [
            'interactive deadline misses',
            String(r.interactive_deadline_misses),
            '',
            'tasks that ended past a deadline',
          ],
          [
            'interactive re-placements',
            String(r.interactive_replacements ?? 0),
            '',
            "a job's tasks placed again after an overrun",
          ],
        ]),
    ['scheduler events', String(r.events), '', ''],
  ];
  const malleability =
    r.approach === NOT_APPLICABLE
      ? `approach and policy ${NOT_APPLICABLE} (rigid jobs only)`
      : `approach ${r.approach}, policy ${r.policy}`;
  const head =
    `Simulation: grid ${r.grid} (${grid.clusters.length} clusters, ${processors} processors${r.background && grid.clusters.some((c) => c.background) ? ', background load' : ''}), ` +
    `workload ${r.workload}, ${malleability}, placement ${r.placement}, queue ${r.queue}, seed ${r.seed}, poll ${r.poll_s} s`;
  return `${printable(head)}\n\n${alignColumns(rows, [1])}\n`;
}

// ---- the program ---------------------------------------------------------------------------------------------

function packageVersion(): string {
  // dist/electron/cli/ when built, electron/cli/ when a test loads the source.
  for (const up of ['../../../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === PROGRAM && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return 'unknown';
}

function buildProgram(io: CliIo, done: (code: number) => void, others?: AddCommands): Command {
  const program = new Command(PROGRAM);
  program
    .description('Multicluster scheduler for malleable HPC jobs (KOALA-style), with a discrete-event simulator.')
    .version(packageVersion(), '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      // Errors are formatted and written once, by main.
      writeErr: () => undefined,
      outputError: () => undefined,
    })
    .showSuggestionAfterError(true)
    .addHelpText(
      'after',
      '\nExit codes: 0 done, 1 internal error, 2 misuse (flag, value, file or input field; one message on stderr).',
    );

  const policies = Object.keys(malleabilityPolicies);
  program
    .command('simulate')
    .description('Simulate one run of a workload on a grid, in virtual time.')
    .addOption(
      new Option(
        '--grid <name|single:N|from-trace|file.json>',
        `grid preset (${Object.keys(GRID_PRESETS).join(', ')}), one cluster of N processors (single:N), one cluster per partition of an SWF trace sized by the most it ran at once (${FROM_TRACE}), or grid JSON file`,
      ).default('das3'),
    )
    .addOption(
      new Option(
        '--workload <name|file>',
        `workload preset (${Object.keys(WORKLOAD_PRESETS).join(', ')}), jobs JSON file, or .swf / .swf.gz trace`,
      ).default('wm'),
    )
    .addOption(
      new Option('--approach <name>', `job management: ${APPROACHES.join(', ')}`)
        .default('pra')
        .argParser(choice('--approach', APPROACHES)),
    )
    .addOption(
      new Option('--policy <name>', `malleability policy: ${policies.join(', ')}`)
        .default('fpsma')
        .argParser(choice('--policy', policies)),
    )
    .addOption(
      new Option(
        '--placement <name>',
        `placement policy for every job: ${PLACEMENT_POLICIES.join(', ')} (default: each job's own)`,
      ).argParser(choice('--placement', PLACEMENT_POLICIES)),
    )
    .addOption(
      new Option(
        '--queue <name>',
        `queue policy: ${QUEUE_POLICIES.join(', ')} (koala: every job tried head to tail; fcfs: strict order; easy: EASY backfilling; cbf: conservative backfilling)`,
      )
        .default('koala')
        .argParser(choice('--queue', QUEUE_POLICIES)),
    )
    .addOption(
      new Option(
        '--reservation-depth <n>',
        'easy, cbf: how many waiting jobs hold reservations at once (default: easy 1, cbf all)',
      ).argParser(wholeNumber('--reservation-depth', 0, Number.MAX_SAFE_INTEGER)),
    )
    .addOption(
      new Option(
        '--priority <name>',
        `fcfs, easy, cbf: order of the waiting jobs: ${QUEUE_PRIORITIES.join(', ')} (submit order; wait: expansion factor; size: largest first)`,
      )
        .default('submit')
        .argParser(choice('--priority', QUEUE_PRIORITIES)),
    )
    .addOption(
      new Option(
        '--fpe-variant <name>',
        `how jobs submitted with an evolution profile are fitted on the plan: ${FPE_VARIANTS.join(', ')}`,
      )
        .default(DEFAULT_FPE_VARIANT)
        .argParser(choice('--fpe-variant', FPE_VARIANTS)),
    )
    .addOption(
      new Option('--seed <n>', 'random seed (workload presets and background load)')
        .default(1)
        .argParser(wholeNumber('--seed', 0, MAX_SEED)),
    )
    .addOption(
      new Option('--poll <seconds>', 'information-service poll interval')
        .default(DEFAULT_POLL_INTERVAL_S)
        .argParser(seconds('--poll', 1)),
    )
    .addOption(
      new Option(
        '--tries <n>',
        'failed placement tries before a job fails (default: 1000, none for an SWF trace: its jobs wait)',
      ).argParser(wholeNumber('--tries', 1, Number.MAX_SAFE_INTEGER)),
    )
    .addOption(
      new Option('--max-jobs <n>', 'use only the first n jobs of the workload').argParser(
        wholeNumber('--max-jobs', 1, Number.MAX_SAFE_INTEGER),
      ),
    )
    .option('--strict', 'refuse an SWF trace with malformed lines instead of skipping them')
    .option('--no-background', 'no background load from local users')
    .addOption(
      new Option(
        '--threshold <fraction>',
        "each cluster's threshold as a fraction of its processors (default: the grid's own)",
      ).argParser(fractionUpToOne('--threshold')),
    )
    .addOption(thresholdScopeOption('all'))
    .addOption(
      new Option('--adapt-s <seconds>', 'seconds a malleable application takes to adapt to a new size')
        .default(0)
        .argParser(seconds('--adapt-s', 0)),
    )
    .addOption(
      new Option('--launch-delay-s <seconds>', 'seconds a local job takes to launch once it has its processors')
        .default(0)
        .argParser(seconds('--launch-delay-s', 0)),
    )
    .addOption(
      new Option('--pra-background <fraction>', 'das3: share busy with local users when the approach is pra').argParser(
        fraction('--pra-background'),
      ),
    )
    .addOption(
      new Option('--pwa-background <fraction>', 'das3: share busy with local users when the approach is pwa').argParser(
        fraction('--pwa-background'),
      ),
    )
    .option('--json', 'print the summary as one JSON object')
    .option('--out <dir>', 'write summary.json, jobs.csv, utilization.csv and activity.csv to this directory')
    .action(async (options: SimulateOptions) => done(await simulateCommand(options, io)));

  // Decision: the other commands are defined (and their modules loaded) only when the command line is not a simulate
  // run, so that `simulate` loads nothing of the experiments, the host, the store, the plots or SSH (issue 17).
  if (others) others(program, io, done);
  return program;
}

// commander says "error: ...", sometimes with a suggestion on a second line; one line without the prefix reads better.
function commanderMessage(message: string): string {
  return message
    .replace(/^error:\s*/i, '')
    .replace(/\n\(Did you mean (.*)\?\)/, ' (did you mean $1?)')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** Runs the CLI on `argv` (as process.argv: node, script, arguments...) and returns the exit code. */
export async function main(
  argv: readonly string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  let code = 0;
  const others = argv[2] === 'simulate' ? undefined : (await import('./commands.js')).addCommands;
  const program = buildProgram(io, (c) => (code = c), others);
  try {
    if (argv.length <= 2)
      throw new UsageError(`missing command: simulate, experiment, serve or store (see ${PROGRAM} --help)`);
    await program.parseAsync([...argv]);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // `help` and `help <command>` end as "commander.help" too, but with exit code 0.
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        (error.code === 'commander.help' && error.exitCode === 0)
      )
        return 0;
      const message =
        error.code === 'commander.help'
          ? `expected a command: simulate, experiment, serve or store (see ${PROGRAM} --help)`
          : commanderMessage(error.message);
      await emit(io.stderr, `${PROGRAM}: ${printable(message)}\n`);
      return 2;
    }
    if (error instanceof UsageError) {
      await emit(io.stderr, `${PROGRAM}: ${printable(error.message)}\n`);
      return 2;
    }
    const message = printable(error instanceof Error ? error.message : String(error));
    const debug = process.env.CONCERTINA_DEBUG
      ? `\n${error instanceof Error ? error.stack : ''}`
      : ` (set CONCERTINA_DEBUG=1 for details)`;
    await emit(io.stderr, `${PROGRAM}: internal error: ${message}${debug}\n`);
    return 1;
  }
}
