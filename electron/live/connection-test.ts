// "Test connection" for a live cluster: connects with strict host-key checking (an unknown key stops there and is
// reported with its fingerprint, a changed one is refused), finds which batch system the login node has, and reads
// its processor counts through that system's adapter — the same status commands the live runner polls with.
import type { BatchSystem } from '../../runners/managers/batch-system.js';
import { clusterStatus } from '../../runners/managers/batch-system.js';
import { batchSystemSettings } from '../../runners/live/batch-settings.js';
import { createBatchSystem } from '../../runners/managers/index.js';
import { framedScript, newNonce, splitSections } from '../../runners/managers/sections.js';
import type { CommandRunner } from '../../runners/shell/command-runner.js';
import { envPrefix } from '../../runners/live/env-runner.js';
import { HostKeyChangedError, HostKeyRevokedError, HostKeyUnknownError, SshError } from '../../runners/ssh/errors.js';
import type { KnownHosts } from '../../runners/ssh/known-hosts.js';
import type { SecretSource } from '../../runners/ssh/secrets.js';
import type { SshRunner } from '../../runners/ssh/ssh-runner.js';
import { openClusterRunner as openRunner } from '../../runners/live/cluster-runner.js';
import type { ConnectionTest, LiveClusterConfig } from '../../runners/live/types.js';

export interface ConnectionTestOptions {
  /** Concertina's known_hosts (its own file plus the user's, read only). */
  readonly knownHosts: KnownHosts;
  readonly secrets?: SecretSource;
  /** Default ~/.ssh/config. */
  readonly sshConfigFile?: string;
  /** Per command (default 20 s). */
  readonly timeoutMs?: number;
}

type SystemName = LiveClusterConfig['system'];
interface Detected {
  /** The batch systems the login node offers (a plain host is always there). */
  readonly found: ReadonlySet<SystemName>;
  /** The host's processors: a plain host's slots when none are configured. */
  readonly cores: number;
}

/**
 * Which batch systems the login node offers: Slurm (`sbatch`), Grid Engine (`qsub` and a `qstat` that answers
 * `-xml`: PBS's qstat does not), PBS (`pbsnodes`); and its processor count. A Grid Engine client whose qmaster
 * does not answer can wait a minute: that qstat is given 10 s, where coreutils' timeout exists.
 */
export const DETECT_SCRIPT = `cnc_bounded() { if command -v timeout >/dev/null 2>&1; then timeout 10 "$@"; else "$@"; fi; }
command -v sbatch >/dev/null 2>&1 && echo found=slurm
command -v qsub >/dev/null 2>&1 && command -v qstat >/dev/null 2>&1 && cnc_bounded qstat -xml >/dev/null 2>&1 && echo found=sge
command -v pbsnodes >/dev/null 2>&1 && echo found=pbs
echo cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null || echo 1)
`;

export function parseDetection(stdout: string): Detected | undefined {
  const cores = /^cores=(\d+)$/m.exec(stdout)?.[1];
  if (cores === undefined) return undefined;
  const found = new Set<SystemName>(['local']);
  for (const m of stdout.matchAll(/^found=(slurm|sge|pbs)$/gm)) found.add(m[1] as SystemName);
  return { found, cores: Math.max(1, Number(cores)) };
}

/** The runner of a cluster's login node: over SSH (strict host keys), or this machine. */
export function openClusterRunner(config: LiveClusterConfig, options: ConnectionTestOptions): Promise<CommandRunner> {
  return openRunner(config, { ...options, timeoutMs: options.timeoutMs ?? 20_000 });
}

/** The adapter for a detected system, with the cluster's options. */
export function systemFor(config: LiveClusterConfig, detected: Detected): BatchSystem {
  return createBatchSystem(batchSystemSettings(config, { cores: detected.cores, workRoot: config.workRoot }));
}

/** The SSH failure as a ConnectionTest; anything else as `error`. */
export function failureOf(error: unknown): ConnectionTest {
  if (error instanceof HostKeyUnknownError) {
    // The host whose key is unknown: the cluster's, or a jump host's on the way. Named as its route names it, not by
    // its known_hosts name: that may be a HostKeyAlias, which is no host to fetch the key from.
    const p = error.presented;
    const { host, port } = p.host !== undefined ? { host: p.host, port: p.port ?? 22 } : hostOf(p.lookupName);
    return {
      ok: false,
      kind: 'host-key-unknown',
      host,
      port,
      fingerprint: p.fingerprint,
      keyType: p.keyType,
      message: error.message,
    };
  }
  if (error instanceof HostKeyChangedError || error instanceof HostKeyRevokedError)
    return { ok: false, kind: 'host-key-changed', message: error.message };
  if (error instanceof SshError) {
    if (error.kind === 'auth-failed') return { ok: false, kind: 'auth-failed', message: error.message };
    if (error.kind === 'connect-failed' || error.kind === 'connection-lost' || error.kind === 'channel-failed')
      return { ok: false, kind: 'connect-failed', message: error.message };
  }
  return { ok: false, kind: 'error', message: error instanceof Error ? error.message : String(error) };
}

/** `[host]:port` or `host` (port 22), as known_hosts names it, back to host and port. */
function hostOf(lookupName: string): { host: string; port: number } {
  const bracketed = /^\[(.*)\]:(\d+)$/.exec(lookupName);
  return bracketed ? { host: bracketed[1]!, port: Number(bracketed[2]) } : { host: lookupName, port: 22 };
}

export async function testConnection(
  config: LiveClusterConfig,
  options: ConnectionTestOptions,
): Promise<ConnectionTest> {
  let runner: CommandRunner | undefined;
  try {
    runner = await openClusterRunner(config, options);
    // Connect first on its own: an unknown host key ends the test here, before any credential is sent.
    let fingerprint: string | undefined;
    if (config.login.via === 'ssh') {
      const { hostKeys } = await (runner as SshRunner).connection.connect();
      fingerprint = hostKeys.at(-1)?.fingerprint;
    }
    // The cluster's environment (SLURM_CONF, SGE_ROOT...) as the live runner sets it: names checked, values quoted.
    const env = envPrefix(config.env);
    const detection = await runner.run(env + DETECT_SCRIPT);
    const detected = parseDetection(detection.stdout);
    if (!detected)
      return {
        ok: false,
        kind: 'error',
        message: `${runner.target}: the detection script printed nothing usable (exit status ${detection.code})`,
      };
    // Decision: the configured system is tested (a plain host is always available, even beside a batch system);
    // detection tells whether it is there, and what is there instead.
    if (!detected.found.has(config.system)) {
      const others = [...detected.found].filter((s) => s !== 'local');
      return {
        ok: false,
        kind: 'no-batch-system',
        message: `${config.system} not found on ${runner.target} (${missingCommand(config.system)}); found: ${others.length ? others.join(', ') : 'no batch system (use local)'}`,
      };
    }
    const system = systemFor(config, detected);
    const nonce = newNonce();
    const result = await runner.run(env + framedScript(nonce, system.statusCommands(nonce)).text);
    const report = system.parseStatus(splitSections(result.stdout, nonce), nonce);
    // Decision: in a test nothing is Concertina's yet, so every running job counts as background load.
    const status = clusterStatus(report, () => false);
    return {
      ok: true,
      system: config.system,
      processors: report.nodes.total,
      idle: report.nodes.idle,
      background: status.background,
      ...(fingerprint !== undefined ? { fingerprint } : {}),
    };
  } catch (error) {
    return failureOf(error);
  } finally {
    await runner?.close().catch(() => undefined);
  }
}

function missingCommand(system: string): string {
  return system === 'slurm' ? 'no sbatch' : system === 'sge' ? 'no qsub, or qstat does not answer -xml' : 'no pbsnodes';
}
