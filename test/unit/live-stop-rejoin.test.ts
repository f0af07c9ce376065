// A cluster's try to join that is still under way when the live world stops: the connection it opens afterwards is
// closed too (stop closes the ones it sees; a late one would stay open, and its commands would go on running).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLiveWorld } from '../../runners/live/live-world.js';
import type { LiveWorld } from '../../runners/live/types.js';
import type { CommandRunner } from '../../runners/shell/command-runner.js';
import { LocalRunner } from '../../runners/shell/local-runner.js';
import { KnownHosts } from '../../runners/ssh/known-hosts.js';

let world: LiveWorld | undefined;
let dir: string | undefined;

afterEach(async () => {
  await world?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  world = dir = undefined;
});

/** A runner that counts its closing. */
class TrackedRunner extends LocalRunner {
  closedByWorld = false;
  override async close(): Promise<void> {
    this.closedByWorld = true;
    await super.close();
  }
}

describe('a live world stopped while a cluster tries to join', () => {
  it('closes the connection that try opens after the stop', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cnc-stop-rejoin-'));
    const knownHostsFile = path.join(dir, 'known_hosts');
    writeFileSync(knownHostsFile, '');
    let farOpens = 0;
    let release: ((runner: CommandRunner) => void) | undefined;
    const late = new TrackedRunner();
    world = createLiveWorld({
      clusters: [
        { name: 'here', login: { via: 'local' }, system: 'local', slots: 1, workRoot: path.join(dir, 'here') },
        { name: 'far', login: { via: 'local' }, system: 'local', slots: 1, workRoot: path.join(dir, 'far') },
      ],
      knownHosts: new KnownHosts(knownHostsFile, []),
      rejoin: { initialDelayMs: 20, maxDelayMs: 20 },
      runnerFor: (config) => {
        if (config.name !== 'far') return new LocalRunner();
        farOpens++;
        // The first try fails as an unreachable host would; the second hangs until the test lets it go on.
        if (farOpens === 1) throw new Error('far: connection refused');
        return new Promise<CommandRunner>((resolve) => (release = resolve));
      },
      log: () => {},
    });
    await world.start();
    await expect.poll(() => release !== undefined, { timeout: 30_000, interval: 10 }).toBe(true);
    await world.stop();
    release!(late);
    await expect.poll(() => late.closedByWorld, { timeout: 30_000, interval: 10 }).toBe(true);
    expect(farOpens).toBe(2);
  });
});
