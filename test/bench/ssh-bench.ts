// The SSH round trip against the test harness's sshd on 127.0.0.1: a new connection and one command (host-key check,
// key authentication, a framed `/bin/sh -s` script), and one command on an open connection. Median of N samples.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SshConnection } from '../../runners/ssh/connection.js';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';
import type { ResolvedHost } from '../../runners/ssh/ssh-config.js';
import { SshRunner } from '../../runners/ssh/ssh-runner.js';
import { sshdMissing, startSshd } from '../integration/harness/sshd.js';

export type SshRoundTrip =
  { connect_exec_median_ms: number; exec_median_ms: number; samples: number } | { skipped_reason: string };

export async function sshRoundTrip(samples = 20): Promise<SshRoundTrip> {
  const missing = sshdMissing();
  if (missing) return { skipped_reason: missing };
  const sshd = await startSshd();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'concertina-ssh-bench-'));
  try {
    const file = path.join(dir, 'known_hosts');
    writeFileSync(file, `${sshd.knownHostsLines().join('\n')}\n`);
    const knownHosts = new KnownHosts(file, []);
    const host: ResolvedHost = {
      alias: 'bench',
      hostName: '127.0.0.1',
      port: sshd.port,
      user: sshd.user,
      identityFiles: [sshd.clientKey],
      identityFilesExplicit: true,
      identitiesOnly: true,
      proxyJump: [],
    };
    const runner = () => new SshRunner(new SshConnection({ host, knownHosts }));
    const timed = async (fn: () => Promise<unknown>) => {
      const t0 = performance.now();
      await fn();
      return performance.now() - t0;
    };
    const fresh: number[] = [];
    for (let i = 0; i < samples + 2; i++) {
      const r = runner();
      fresh.push(await timed(() => r.run('true')));
      await r.close();
    }
    const open = runner();
    const reused: number[] = [];
    for (let i = 0; i < samples + 2; i++) reused.push(await timed(() => open.run('true')));
    await open.close();
    // The first two samples of each warm the JIT and the server up.
    return { connect_exec_median_ms: median(fresh.slice(2)), exec_median_ms: median(reused.slice(2)), samples };
  } finally {
    await sshd.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Number(sorted[Math.floor(sorted.length / 2)]!.toFixed(1));
}
