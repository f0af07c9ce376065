// A live cluster's configuration and what testing its connection tells: plain zod and types, free of Node, so
// the console's forms check with the very schema the host applies.
import { z } from 'zod';
import { interactivePartitionSchema } from '../../core/model/schemas.js';

export const BATCH_SYSTEMS = ['slurm', 'sge', 'pbs', 'local'] as const;

/** How to reach a cluster's login node: an SSH destination (an ~/.ssh/config alias works), or this machine. */
export const loginSchema = z.discriminatedUnion('via', [
  z.strictObject({
    via: z.literal('ssh'),
    host: z.string().min(1, 'is required'),
    port: z.number().int().min(1).max(65535).optional(),
    user: z.string().min(1).optional(),
    identityFile: z.string().min(1).optional(),
    proxyJump: z.string().min(1).optional(),
    keepaliveS: z.number().min(15).max(30).default(20),
  }),
  z.strictObject({ via: z.literal('local') }),
]);

const batchWord = z.string().min(1).max(200);

/**
 * Options of the cluster's batch system, each applying to some systems only: Slurm's partition and account, Grid
 * Engine's parallel environment (for jobs of more than one processor; default `smp`), a queue (Grid Engine, PBS),
 * the PBS flavour (`pbspro` asks for `select=N:ncpus=1`, `torque` for `procs=N`), and more submit options (each one
 * word, quoted).
 */
export const batchOptionsSchema = z.strictObject({
  partition: batchWord.optional(),
  account: batchWord.optional(),
  parallelEnvironment: batchWord.optional(),
  queue: batchWord.optional(),
  flavour: z.enum(['pbspro', 'torque']).optional(),
  extraArgs: z.array(batchWord).max(50).optional(),
});
export type BatchOptions = z.infer<typeof batchOptionsSchema>;

/** Which batch systems each option applies to. */
export const BATCH_OPTION_SYSTEMS: Readonly<Record<keyof BatchOptions, readonly (typeof BATCH_SYSTEMS)[number][]>> = {
  partition: ['slurm'],
  account: ['slurm'],
  parallelEnvironment: ['sge'],
  queue: ['sge', 'pbs'],
  flavour: ['pbs'],
  extraArgs: ['slurm', 'sge', 'pbs'],
};

const SYSTEM_NAMES: Readonly<Record<(typeof BATCH_SYSTEMS)[number], string>> = { slurm: 'Slurm', sge: 'Grid Engine', pbs: 'PBS', local: 'local' };

export const liveClusterSchema = z
  .strictObject({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, . _ - only (1–64)'),
  login: loginSchema,
  /** `slurm`, `sge`, `pbs`, or `local` (plain processes limited to `slots`); detected by "test connection". */
  system: z.enum(BATCH_SYSTEMS),
  /** For `local`: processors Concertina may use on that host. */
  slots: z.number().int().min(1).optional(),
  /** Where jobs' directories are made on the cluster (shared file system); relative to the login directory. */
  workRoot: z.string().min(1).default('.concertina'),
  /** Environment set for batch commands (e.g. SLURM_CONF, SGE_ROOT/SGE_CELL) — values are quoted. */
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).default({}),
  /** Fraction of the cluster Concertina may hold (0..1]. */
  threshold: z.number().gt(0).max(1).default(1),
  pollIntervalS: z.number().min(1).max(3600).default(10),
  batch: batchOptionsSchema.default({}),
  /** Worker nodes for interactive periodic jobs on this cluster, with RT-DLT's cost model (core/model interactivePartitionSchema). */
  interactive: interactivePartitionSchema.optional(),
})
  .superRefine((config, ctx) => {
    for (const [key, value] of Object.entries(config.batch)) {
      const systems = BATCH_OPTION_SYSTEMS[key as keyof BatchOptions];
      if (value !== undefined && !systems.includes(config.system)) {
        ctx.addIssue({ code: 'custom', path: ['batch', key], message: `applies to ${systems.map((s) => SYSTEM_NAMES[s]).join(' and ')} only, not ${SYSTEM_NAMES[config.system]}` });
      }
    }
  });
export type LiveClusterConfig = z.infer<typeof liveClusterSchema>;

/** What "test connection" found, or why it failed (host key unknown → `hostKey` carries what to show). */
export type ConnectionTest =
  | { ok: true; system: (typeof BATCH_SYSTEMS)[number]; processors: number; idle: number; background: number; fingerprint?: string }
  | { ok: false; kind: 'host-key-unknown'; host: string; port?: number; fingerprint: string; keyType: string; message: string }
  | { ok: false; kind: 'host-key-changed' | 'auth-failed' | 'connect-failed' | 'no-batch-system' | 'error'; message: string };
