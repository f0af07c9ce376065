// The commands besides `simulate`: `experiment`, `serve` and `store check`. Loaded by main.ts only when the command line
// names one of them (or asks for help), each command's own module loaded only when it runs.
import { Command, Option } from 'commander';
import { DEFAULT_WARM_UP_S } from '../host/warm-up.js';
import { GROWTH_AT_POLL, type GrowthAtPoll } from '../../core/scheduler/scheduler.js';
import type { ThresholdScope } from '../../core/scheduler/cluster-state.js';
import { DEFAULT_POLL_INTERVAL_S } from '../../core/sim/world.js';
import { KOALA_DEFAULTS, KOALA_DEFAULT_SEEDS } from '../../core/sim/experiments/koala.js';
import { COORM_DEFAULT_CONFIG } from '../../core/sim/experiments/coorm.js';
import { FPE_DEFAULT_CONFIG, FPE_LIMITS } from '../../core/sim/experiments/fpe.js';
import { INTERACTIVE_DEFAULT_CONFIG, INTERACTIVE_LIMITS } from '../../core/sim/experiments/interactive.js';
import { DBES_DEFAULT_CONFIG } from '../../core/sim/experiments/dbes.js';
import { MAX_PROCESSORS } from '../../core/model/schemas.js';
import { UsageError } from './export.js';
import { MAX_SEED, choice, fraction, fractionUpToOne, seconds, thresholdScopeOption, wholeNumber } from './flags.js';
import type { CliIo } from './terminal.js';

const MAX_SEEDS = 1000;

interface ExperimentFlags {
  seeds: number;
  poll: number;
  backgroundLoad?: number;
  praBackground?: number;
  pwaBackground?: number;
  threshold: number;
  thresholdScope: ThresholdScope;
  adaptS: number;
  launchDelayS: number;
  growthAtPoll: GrowthAtPoll;
  steps?: number;
  factors?: string;
  intervals?: string;
  twoPsaIntervals?: string;
  tests?: number;
  seed?: number;
  nodes?: number;
  loads?: string;
  overrunShare?: string;
  minutes?: number;
  strategies?: string;
  json?: boolean;
  out?: string;
}

/** Adds the commands besides `simulate` to the program. */
export function addCommands(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('experiment')
    .description(
      "Run one of the papers' experiments: koala (KOALA section VII, Figures 7 and 8), coorm (CooRMv2 section 5, Figures 9-11), fpe (fully-predictably evolving applications, Tables 1 and 2), interactive (interactive periodic divisible jobs: interleaved against exclusive nodes) or dbes (DBES section V on the modified ESP benchmark, Figures 4-7 and Table II).",
    )
    .argument(
      '<name>',
      'experiment: koala, coorm, fpe, interactive or dbes',
      choice('experiment', ['koala', 'coorm', 'fpe', 'interactive', 'dbes']),
    )
    .addOption(
      new Option('--seeds <n>', 'seeds per combination (1..n)')
        .default(
          KOALA_DEFAULT_SEEDS,
          `koala ${KOALA_DEFAULT_SEEDS}, coorm ${COORM_DEFAULT_CONFIG.seeds}, interactive ${INTERACTIVE_DEFAULT_CONFIG.seeds}, dbes ${DBES_DEFAULT_CONFIG.seeds}`,
        )
        .argParser(wholeNumber('--seeds', 1, MAX_SEEDS)),
    )
    .addOption(
      new Option('--poll <seconds>', 'koala: information-service poll interval')
        .default(DEFAULT_POLL_INTERVAL_S)
        .argParser(seconds('--poll', 1)),
    )
    .addOption(
      new Option(
        '--background-load <fraction>',
        'koala: share of DAS-3 busy with local users bypassing the scheduler, both figures',
      ).argParser(fraction('--background-load')),
    )
    .addOption(
      new Option('--pra-background <fraction>', "koala: the same for Figure 7's runs (PRA)")
        .default(KOALA_DEFAULTS.praBackground)
        .argParser(fraction('--pra-background')),
    )
    .addOption(
      new Option('--pwa-background <fraction>', "koala: the same for Figure 8's runs (PWA)")
        .default(KOALA_DEFAULTS.pwaBackground)
        .argParser(fraction('--pwa-background')),
    )
    .addOption(
      new Option('--threshold <fraction>', "koala: each cluster's threshold as a fraction of its processors")
        .default(KOALA_DEFAULTS.threshold)
        .argParser(fractionUpToOne('--threshold')),
    )
    .addOption(thresholdScopeOption(KOALA_DEFAULTS.thresholdScope, 'koala: '))
    .addOption(
      new Option('--adapt-s <seconds>', 'koala: seconds an application takes to adapt to a new size')
        .default(KOALA_DEFAULTS.adaptS)
        .argParser(seconds('--adapt-s', 0)),
    )
    .addOption(
      new Option('--launch-delay-s <seconds>', 'koala: seconds a local job takes to launch')
        .default(KOALA_DEFAULTS.launchDelayS)
        .argParser(seconds('--launch-delay-s', 0)),
    )
    .addOption(
      new Option(
        '--growth-at-poll <trigger>',
        "koala: what makes growth due at a poll: freed (the paper's: processors local users gave back) or idle (any idle under the threshold)",
      )
        .default(KOALA_DEFAULTS.growthAtPoll)
        .argParser(choice('--growth-at-poll', GROWTH_AT_POLL)),
    )
    .addOption(
      new Option('--steps <n>', 'coorm: AMR steps per run (default 1000)').argParser(
        wholeNumber('--steps', 1, 100_000),
      ),
    )
    .option('--factors <list>', 'coorm: overcommit factors of Figure 9, comma-separated')
    .option('--intervals <list>', 'coorm: announce intervals of Figure 10 in seconds, comma-separated')
    .option('--two-psa-intervals <list>', 'coorm: announce intervals of Figure 11 in seconds, comma-separated')
    .addOption(
      new Option(
        '--tests <n>',
        `fpe: tests, each a queue of 15-20 evolving applications (default ${FPE_DEFAULT_CONFIG.tests})`,
      ).argParser(wholeNumber('--tests', 1, FPE_LIMITS.maxTests)),
    )
    .addOption(
      new Option('--seed <n>', `fpe: random seed of the tests (default ${FPE_DEFAULT_CONFIG.seed})`).argParser(
        wholeNumber('--seed', 0, MAX_SEED),
      ),
    )
    .addOption(
      new Option(
        '--nodes <n>',
        `fpe: nodes of the cluster, at least the largest step (default ${FPE_DEFAULT_CONFIG.nodes})`,
      ).argParser(wholeNumber('--nodes', FPE_LIMITS.minNodes, MAX_PROCESSORS)),
    )
    .option(
      '--loads <list>',
      `interactive: offered loads (multiples of the cluster's capacity), comma-separated (default ${INTERACTIVE_DEFAULT_CONFIG.loads.join(',')})`,
    )
    .addOption(
      new Option(
        '--minutes <n>',
        `interactive: simulated minutes per run (default ${INTERACTIVE_DEFAULT_CONFIG.horizonMs / 60_000})`,
      ).argParser(wholeNumber('--minutes', 1, INTERACTIVE_LIMITS.maxMinutes)),
    )
    .option(
      '--overrun-share <fraction>',
      `interactive: share of jobs whose data grows once in the runs with overruns (default ${INTERACTIVE_DEFAULT_CONFIG.overrunShare})`,
    )
    .option(
      '--strategies <list>',
      `dbes: strategies (malleability policies) to run, comma-separated (default ${DBES_DEFAULT_CONFIG.strategies.join(',')})`,
    )
    .option('--json', 'print the results as one JSON object')
    .option('--out <dir>', 'directory for the report, CSV files and SVG plots (default: ./<name>-experiment)')
    .action(async (name: string, options: ExperimentFlags, command: Command) => {
      const given = (flag: string) => command.getOptionValueSource(flag) === 'cli';
      const onlyFor = (flags: readonly string[], experiment: string) => {
        const wrong = flags.find(given);
        if (wrong)
          throw new UsageError(
            `--${wrong.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to experiment ${experiment} only`,
          );
      };
      const koalaFlags = [
        'poll',
        'backgroundLoad',
        'praBackground',
        'pwaBackground',
        'threshold',
        'thresholdScope',
        'adaptS',
        'launchDelayS',
        'growthAtPoll',
      ];
      const coormFlags = ['steps', 'factors', 'intervals', 'twoPsaIntervals'];
      const interactiveFlags = ['loads', 'overrunShare', 'minutes'];
      if (name === 'fpe') {
        onlyFor(koalaFlags, 'koala');
        onlyFor(coormFlags, 'coorm');
        onlyFor(interactiveFlags, 'interactive');
        onlyFor(['strategies'], 'dbes');
        if (given('seeds'))
          throw new UsageError(
            '--seeds applies to experiments koala, coorm, interactive and dbes only (fpe has --seed and --tests)',
          );
        const { fpeExperimentCommand } = await import('./experiment-fpe.js');
        const d = FPE_DEFAULT_CONFIG;
        const config = {
          tests: options.tests ?? d.tests,
          seed: options.seed ?? d.seed,
          nodes: options.nodes ?? d.nodes,
        };
        done(await fpeExperimentCommand({ config, json: options.json, out: options.out ?? './fpe-experiment' }, io));
        return;
      }
      onlyFor(['tests', 'seed', 'nodes'], 'fpe');
      if (name !== 'dbes') onlyFor(['strategies'], 'dbes');
      if (name === 'dbes') {
        onlyFor(koalaFlags, 'koala');
        onlyFor(coormFlags, 'coorm');
        onlyFor(interactiveFlags, 'interactive');
        const { dbesExperimentCommand, dbesConfigFromFlags } = await import('./experiment-dbes.js');
        const config = dbesConfigFromFlags({
          seeds: given('seeds') ? options.seeds : undefined,
          strategies: options.strategies,
        });
        done(await dbesExperimentCommand({ config, json: options.json, out: options.out ?? './dbes-experiment' }, io));
        return;
      }
      // Loaded only here: echarts takes most of a second to load.
      if (name === 'interactive') {
        onlyFor(koalaFlags, 'koala');
        onlyFor(coormFlags, 'coorm');
        const { interactiveExperimentCommand, interactiveConfigFromFlags } =
          await import('./experiment-interactive.js');
        const config = interactiveConfigFromFlags({
          seeds: given('seeds') ? options.seeds : undefined,
          loads: options.loads,
          overrunShare: options.overrunShare,
          minutes: options.minutes,
        });
        done(
          await interactiveExperimentCommand(
            { config, json: options.json, out: options.out ?? './interactive-experiment' },
            io,
          ),
        );
        return;
      }
      onlyFor(interactiveFlags, 'interactive');
      if (name === 'coorm') {
        onlyFor(koalaFlags, 'koala');
        const { coormExperimentCommand, coormConfigFromFlags } = await import('./experiment-coorm.js');
        const out = options.out ?? './coorm-experiment';
        done(
          await coormExperimentCommand(
            {
              config: coormConfigFromFlags({ ...options, seeds: given('seeds') ? options.seeds : undefined }),
              json: options.json,
              out,
            },
            io,
          ),
        );
        return;
      }
      onlyFor(coormFlags, 'coorm');
      if (options.backgroundLoad !== undefined && (given('praBackground') || given('pwaBackground'))) {
        throw new UsageError(
          '--background-load sets both figures: give it, or --pra-background and --pwa-background, not both',
        );
      }
      const { koalaExperimentCommand } = await import('./experiment.js');
      const both = options.backgroundLoad;
      done(
        await koalaExperimentCommand(
          {
            ...options,
            praBackground: both ?? options.praBackground ?? KOALA_DEFAULTS.praBackground,
            pwaBackground: both ?? options.pwaBackground ?? KOALA_DEFAULTS.pwaBackground,
            out: options.out ?? './koala-experiment',
          },
          io,
        ),
      );
    });
  program
    .command('serve')
    .description(
      'Start the headless web mode: the host and its API on http://127.0.0.1, behind a token printed in the URL.',
    )
    .addOption(
      new Option('--port <n>', 'port to listen on (0: any free port)')
        .default(0)
        .argParser(wholeNumber('--port', 0, 65535)),
    )
    .addOption(new Option('--host <address>', 'address to bind').default('127.0.0.1'))
    .option('--store <file>', 'SQLite file that keeps the run (an existing run is resumed)')
    .option('--read-only', 'with --store: show the stored run without changing the file (nothing is accepted)')
    .addOption(
      new Option(
        '--warm-up <minutes>',
        'virtual minutes a fresh run computes before its clock starts, so the console opens on a living grid (0: none)',
      )
        .default(DEFAULT_WARM_UP_S / 60)
        .argParser(wholeNumber('--warm-up', 0, 7 * 24 * 60)),
    )
    .action(async (options: { port: number; host: string; store?: string; readOnly?: boolean; warmUp: number }) => {
      if (options.readOnly && !options.store) throw new UsageError('--read-only needs --store');
      const { serveCommand } = await import('./serve.js');
      done(await serveCommand(options, io));
    });
  program
    .command('store')
    .description('Work on a store file (the SQLite file of `serve --store`).')
    .command('check')
    .description(
      'Verify a store without changing it: every accepted job has its submission event, no event is missing or stored twice, the clock is consistent. Exit 2 when anything is wrong.',
    )
    .argument('<file>', 'the store')
    .action(async (file: string) => {
      const { storeCheckCommand } = await import('./store-check.js');
      done(await storeCheckCommand(file, io));
    });
}
