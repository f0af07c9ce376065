// A live cluster's configuration and what testing its connection tells: zod schemas and types, free of Node. The
// batch options are each adapter's own schema (runners/managers/*.ts), composed here once.
import { z } from 'zod';
import { interactivePartitionSchema } from '../../core/model/schemas.js';
import { localOptionsSchema } from '../managers/local.js';
import { describeOptions, type OptionField } from '../managers/options.js';
import { pbsOptionsSchema } from '../managers/pbs.js';
import { sgeOptionsSchema } from '../managers/sge.js';
import { slurmOptionsSchema } from '../managers/slurm.js';

/**
 * Each batch system's options as a cluster's configuration gives them (`batch`): its adapter's schema, less what
 * the live world sets itself (a plain host's slots are the cluster's `slots`, its queue is kept under `workRoot`).
 */
export const BATCH_OPTIONS = {
  slurm: slurmOptionsSchema,
  sge: sgeOptionsSchema,
  pbs: pbsOptionsSchema,
  local: localOptionsSchema.omit({ slots: true, stateDir: true }),
} as const;
export type BatchSystemName = keyof typeof BATCH_OPTIONS;
export const BATCH_SYSTEMS = Object.keys(BATCH_OPTIONS) as [BatchSystemName, ...BatchSystemName[]];

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

/** Every system's options in one object; the cluster's schema refuses those of another system than its own. */
export const batchOptionsSchema = slurmOptionsSchema
  .extend(sgeOptionsSchema.shape)
  .extend(pbsOptionsSchema.shape)
  .extend(BATCH_OPTIONS.local.shape);
export type BatchOptions = z.infer<typeof batchOptionsSchema>;

/** Which batch systems each option applies to (from the adapters' schemas). */
const BATCH_OPTION_SYSTEMS: Readonly<Record<keyof BatchOptions, readonly BatchSystemName[]>> = (() => {
  const out: Partial<Record<keyof BatchOptions, readonly BatchSystemName[]>> = {};
  for (const option of Object.keys(batchOptionsSchema.shape) as (keyof BatchOptions)[])
    out[option] = BATCH_SYSTEMS.filter((system) => option in BATCH_OPTIONS[system].shape);
  return out as Record<keyof BatchOptions, readonly BatchSystemName[]>;
})();

const SYSTEM_NAMES: Readonly<Record<BatchSystemName, string>> = {
  slurm: 'Slurm',
  sge: 'Grid Engine',
  pbs: 'PBS',
  local: 'local',
};
/** What the console's form calls each system. */
const SYSTEM_TITLES: Readonly<Record<BatchSystemName, string>> = {
  slurm: 'Slurm',
  sge: 'Grid Engine',
  pbs: 'PBS / Torque',
  local: 'local (plain processes)',
};

/** A batch system as Settings → Clusters offers it: its name, what the form calls it, and its options' fields. */
export interface BatchSystemInfo {
  readonly name: BatchSystemName;
  readonly title: string;
  readonly options: OptionField[];
}

/** The batch systems and their options, as the API serves them to the console's form (clusters.list). */
export const BATCH_SYSTEM_INFOS: BatchSystemInfo[] = BATCH_SYSTEMS.map((name) => ({
  name,
  title: SYSTEM_TITLES[name],
  options: describeOptions(BATCH_OPTIONS[name]),
}));

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
        ctx.addIssue({
          code: 'custom',
          path: ['batch', key],
          message: `applies to ${systems.map((s) => SYSTEM_NAMES[s]).join(' and ')} only, not ${SYSTEM_NAMES[config.system]}`,
        });
      }
    }
  });
export type LiveClusterConfig = z.infer<typeof liveClusterSchema>;

/**
 * What "test connection" found, or why it failed; an unknown host key comes with what to show to accept it (host,
 * port, fingerprint, key type). The API serves it as it is.
 */
export const connectionTestSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    system: z.enum(BATCH_SYSTEMS),
    processors: z.number(),
    idle: z.number(),
    background: z.number(),
    fingerprint: z.string().optional(),
  }),
  z.object({
    ok: z.literal(false),
    kind: z.enum(['host-key-unknown', 'host-key-changed', 'auth-failed', 'connect-failed', 'no-batch-system', 'error']),
    message: z.string(),
    host: z.string().optional(),
    port: z.number().optional(),
    fingerprint: z.string().optional(),
    keyType: z.string().optional(),
  }),
]);
export type ConnectionTest = z.infer<typeof connectionTestSchema>;
