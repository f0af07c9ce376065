// A real Grid Engine cell on loopback for the integration tests: its own SGE_ROOT in a temporary directory (only the
// packaged binaries are shared), qmaster and execd forced onto 127.0.0.1 by an LD_PRELOAD shim compiled from
// bind-loopback.c, one exec host with an `all.q` of N slots and a parallel environment `smp`, a one-second
// scheduler. Stopped by the PIDs it recorded. Learned from ../shared/notes/loopback-clusters (not used).
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  commandLine,
  descendants,
  environment,
  harnessDir,
  nonLoopbackListeners,
  freePorts,
  processesNamed,
  readPid,
  run,
  stopPids,
  waitFor,
} from './common.js';

export const SGE_PACKAGES = ['gridengine-master', 'gridengine-exec', 'gridengine-client', 'gcc', 'libc6-dev'] as const;

const SBIN = '/usr/lib/gridengine';

export interface SgeOptions {
  readonly slots?: number;
}

export interface SgeCell {
  readonly root: string;
  /** Environment that points Grid Engine's commands at this cell. */
  readonly env: Readonly<Record<string, string>>;
  readonly processors: number;
  daemonPids(): number[];
  stop(): Promise<void>;
}

export async function startSge(options: SgeOptions = {}): Promise<SgeCell> {
  const slots = options.slots ?? 16;
  const host = os.hostname();
  const address = (await run('getent', ['ahostsv4', host]).catch(() => '')).split(/\s+/)[0] ?? '';
  if (!address.startsWith('127.')) {
    throw new Error(
      `Grid Engine identifies hosts by name: ${host} must resolve to a loopback address (it resolves to "${address || 'nothing'}"); add "127.0.0.1 ${host}" to /etc/hosts`,
    );
  }
  const base = mkdtempSync(path.join(os.tmpdir(), 'cnc-sge-'));
  const sgeRoot = path.join(base, 'root');
  const cell = 'cnc';
  const common = path.join(sgeRoot, cell, 'common');
  const spool = path.join(base, 'spool');
  mkdirSync(common, { recursive: true });
  mkdirSync(path.join(spool, 'qmaster', 'job_scripts'), { recursive: true });
  mkdirSync(path.join(spool, 'execd'), { recursive: true });
  mkdirSync(path.join(base, 'spooldb'));
  mkdirSync(path.join(base, 'conf'));
  for (const dir of [
    base,
    sgeRoot,
    path.join(sgeRoot, cell),
    common,
    spool,
    path.join(spool, 'execd'),
    path.join(spool, 'qmaster'),
  ])
    chmodSync(dir, 0o755);
  for (const link of ['bin', 'lib', 'utilbin']) symlinkSync(`/var/lib/gridengine/${link}`, path.join(sgeRoot, link));
  symlinkSync('/usr/share/gridengine/util', path.join(sgeRoot, 'util'));

  const ports = await freePorts(2);
  const env = { SGE_ROOT: sgeRoot, SGE_CELL: cell, SGE_QMASTER_PORT: String(ports), SGE_EXECD_PORT: String(ports + 1) };
  const qmasterPidFile = path.join(spool, 'qmaster', 'qmaster.pid');
  const daemonPids = () =>
    [readPid(qmasterPidFile), ...execdPidFiles(spool).map(readPid)].filter(
      (p): p is number => p !== undefined && ours(p, sgeRoot),
    );
  const cellHandle: SgeCell = {
    root: base,
    env,
    processors: slots,
    daemonPids,
    stop: () => stopSge(base, spool, env, daemonPids),
  };

  try {
    const shim = await buildShim(base);
    writeFileSync(path.join(common, 'bootstrap'), bootstrap(base, spool));
    writeFileSync(path.join(common, 'act_qmaster'), `${host}\n`);
    writeFileSync(path.join(common, 'cluster_name'), `${cell}\n`);
    // A reverse lookup of 127.0.0.1 gives "localhost", not the host name: declare every loopback name one host.
    writeFileSync(
      path.join(common, 'host_aliases'),
      `${[host, ...loopbackNames().filter((n) => n !== host)].join(' ')}\n`,
    );
    writeFileSync(path.join(base, 'conf', 'global'), globalConfiguration(spool));

    await run(path.join(SBIN, 'spoolinit'), ['berkeleydb', 'libspoolb', path.join(base, 'spooldb'), 'init'], env);
    await run(path.join(SBIN, 'spooldefaults'), ['configuration', path.join(base, 'conf', 'global')], env);
    await run(path.join(SBIN, 'spooldefaults'), ['complexes', '/usr/share/gridengine/util/resources/centry'], env);
    await run(path.join(SBIN, 'spooldefaults'), ['usersets', '/usr/share/gridengine/util/resources/usersets'], env);
    await run(path.join(SBIN, 'spooldefaults'), ['managers', 'root'], env);

    await run(path.join(SBIN, 'sge_qmaster'), [], { ...env, LD_PRELOAD: shim });
    await waitFor('sge_qmaster to answer', async () => (await run('qconf', ['-sh'], env)).length > 0, 30_000);

    const conf = (name: string, text: string) => {
      const file = path.join(base, 'conf', name);
      writeFileSync(file, text);
      return file;
    };
    await run('qconf', ['-as', host], env);
    await run('qconf', ['-Msconf', conf('sched', schedulerConfiguration)], env);
    await run(
      'qconf',
      [
        '-Ae',
        conf(
          'exechost',
          `hostname ${host}\nload_scaling NONE\ncomplex_values NONE\nuser_lists NONE\nxuser_lists NONE\nprojects NONE\nxprojects NONE\nusage_scaling NONE\nreport_variables NONE\n`,
        ),
      ],
      env,
    );
    await run('qconf', ['-Ahgrp', conf('allhosts', `group_name @allhosts\nhostlist ${host}\n`)], env);
    await run('qconf', ['-Ap', conf('pe.smp', parallelEnvironment)], env);
    await run('qconf', ['-Aq', conf('all.q', queue(await run('qconf', ['-sq'], env), slots))], env);

    await run(path.join(SBIN, 'sge_execd'), [], { ...env, LD_PRELOAD: shim });
    await waitFor(
      'sge_execd to register',
      async () => {
        const lines = (await run('qstat', ['-f', '-q', 'all.q'], env))
          .split('\n')
          .filter((l) => l.startsWith('all.q@'));
        // The sixth column holds the queue instance's states; "u" (unknown) until the execd has reported.
        return lines.length > 0 && lines.every((l) => !(l.trim().split(/\s+/)[5] ?? '').includes('u'));
      },
      40_000,
    );
    const exposed = await nonLoopbackListeners(daemonPids());
    if (exposed.length) throw new Error(`a Grid Engine daemon listens beyond loopback: ${exposed.join('; ')}`);
    return cellHandle;
  } catch (error) {
    await cellHandle.stop();
    throw error;
  }
}

/** Compiles the loopback bind shim from the project's own C file. */
async function buildShim(base: string): Promise<string> {
  const out = path.join(base, 'bind-loopback.so');
  await run('cc', ['-shared', '-fPIC', '-O2', '-o', out, path.join(harnessDir, 'bind-loopback.c'), '-ldl']);
  return out;
}

function loopbackNames(): string[] {
  const hosts = existsSync('/etc/hosts') ? readFileSync('/etc/hosts', 'utf8') : '';
  const names = new Set<string>();
  for (const line of hosts.split('\n')) {
    const [address, ...rest] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (address?.startsWith('127.')) rest.forEach((n) => names.add(n));
  }
  return [...names];
}

function execdPidFiles(spool: string): string[] {
  const dir = path.join(spool, 'execd');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((h) => path.join(dir, h, 'execd.pid'))
    .filter((f) => existsSync(f));
}

const bootstrap = (base: string, spool: string) => `# Version: 8.1.9
admin_user              root
default_domain          none
ignore_fqdn             true
spooling_method         berkeleydb
spooling_lib            libspoolb
spooling_params         ${base}/spooldb
binary_path             /usr/lib/gridengine
qmaster_spool_dir       ${spool}/qmaster
security_mode           none
listener_threads        2
worker_threads          2
scheduler_threads       1
`;

function globalConfiguration(spool: string): string {
  const replace: Record<string, string> = {
    execd_spool_dir: `${spool}/execd`,
    // Tests run as root; Grid Engine refuses uid 0 by default.
    min_uid: '0',
    min_gid: '0',
    mailer: '/bin/true',
    load_report_time: '00:00:10',
  };
  return readFileSync('/usr/share/gridengine/default-configuration', 'utf8')
    .split('\n')
    .map((line) => {
      const key = line.split(/\s+/)[0] ?? '';
      return key in replace ? `${key.padEnd(22)} ${replace[key]}` : line;
    })
    .join('\n');
}

// One-second scheduling and flushes, the fastest Grid Engine allows (flush_submit_sec 0 turns the flush off; the
// interval has a one-second unit): a job runs about 1.2 s after its qsub here (measured with qsub and qstat alone).
const schedulerConfiguration = `algorithm                         default
schedule_interval                 0:0:1
maxujobs                          0
queue_sort_method                 seqno
job_load_adjustments              NONE
load_adjustment_decay_time        0:0:0
load_formula                      slots
schedd_job_info                   true
flush_submit_sec                  1
flush_finish_sec                  1
params                            none
reprioritize_interval             0:0:0
halftime                          168
usage_weight_list                 cpu=1.000000,mem=0.000000,io=0.000000
compensation_factor               5.000000
weight_user                       0.250000
weight_project                    0.250000
weight_department                 0.250000
weight_job                        0.250000
weight_tickets_functional         0
weight_tickets_share              0
share_override_tickets            TRUE
share_functional_shares           TRUE
max_functional_jobs_to_schedule   200
report_pjob_tickets               TRUE
max_pending_tasks_per_job         50
halflife_decay_list               none
policy_hierarchy                  OFS
weight_ticket                     0.010000
weight_waiting_time               0.000000
weight_deadline                   3600000.000000
weight_urgency                    0.100000
weight_priority                   1.000000
max_reservation                   0
default_duration                  INFINITY
`;

const parallelEnvironment = `pe_name            smp
slots              9999
user_lists         NONE
xuser_lists        NONE
start_proc_args    NONE
stop_proc_args     NONE
allocation_rule    $pe_slots
control_slaves     FALSE
job_is_first_task  TRUE
urgency_slots      min
accounting_summary FALSE
qsort_args         NONE
`;

/** The queue template printed by `qconf -sq`, turned into all.q with `slots` slots on @allhosts. */
function queue(template: string, slots: number): string {
  const set: Record<string, string> = {
    qname: 'all.q',
    hostlist: '@allhosts',
    slots: String(slots),
    pe_list: 'smp',
    shell: '/bin/sh',
    shell_start_mode: 'unix_behavior',
    load_thresholds: 'NONE',
  };
  return template
    .split('\n')
    .map((line) => {
      const key = line.split(/\s+/)[0] ?? '';
      return key in set ? `${key.padEnd(21)} ${set[key]}` : line;
    })
    .join('\n');
}

/** A daemon of this cell: a Grid Engine binary started with this cell's SGE_ROOT. */
function ours(pid: number, sgeRoot: string): boolean {
  return /sge_(qmaster|execd)/.test(commandLine(pid) ?? '') && environment(pid).includes(`SGE_ROOT=${sgeRoot}`);
}

async function stopSge(
  base: string,
  spool: string,
  env: Record<string, string>,
  daemonPids: () => number[],
): Promise<void> {
  const daemons = daemonPids();
  const qmaster = daemons.filter((p) => commandLine(p)?.includes('sge_qmaster'));
  const execds = daemons.filter((p) => commandLine(p)?.includes('sge_execd'));
  if (qmaster.length) await run('qdel', ['-f', '-u', '*'], env, 10_000).catch(() => '');
  await stopPids(execds);
  // The qmaster's orderly shutdown takes about 9 s; the cell is deleted right after, so one second is enough.
  await stopPids(qmaster, 1_000);
  // Shepherds left behind by this cell work in its execd spool directory.
  const shepherds = processesNamed('sge_shepherd').filter((p) => {
    try {
      return readlinkSync(`/proc/${p}/cwd`).startsWith(path.join(spool, 'execd'));
    } catch {
      return false;
    }
  });
  const leftovers = shepherds.flatMap((p) => [...descendants(p), p]);
  if (leftovers.length) await stopPids(leftovers, 3_000);
  rmSync(base, { recursive: true, force: true });
}
