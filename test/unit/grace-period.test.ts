// The grace period of mandatory shrinks is enforced whatever the application's files: one that never touches the
// protocol (no from-app.jsonl at all, or one that cannot be read) is reported as one that never answers, after a
// poll that reached the cluster; a poll that fails reports nothing (an unreachable cluster is no evidence).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RemoteApplications, type ProtocolViolation } from '../../runners/protocol/application-port.js';
import { AppChannel } from '../../runners/protocol/channel.js';
import type { CommandResult, CommandRunner, RunOptions } from '../../runners/shell/command-runner.js';
import { LocalRunner } from '../../runners/shell/local-runner.js';

const GRACE_MS = 1_000;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'concertina-grace-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The local shell, or no answer at all while `down`. */
class FlakyRunner implements CommandRunner {
  readonly target = 'flaky';
  down = false;
  constructor(private readonly inner: CommandRunner) {}
  run(script: string, options?: RunOptions): Promise<CommandResult> {
    return this.down ? Promise.reject(new Error('connection lost')) : this.inner.run(script, options);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('grace period of a mandatory shrink', () => {
  const local = new LocalRunner({ defaultTimeoutMs: 10_000 });
  afterAll(() => local.close());

  /** A job whose directory the batch manager made (it holds nothing the application wrote). */
  async function deafJob() {
    const jobDir = path.join(dir, 'job');
    mkdirSync(jobDir);
    const runner = new FlakyRunner(local);
    const violations: ProtocolViolation[] = [];
    const clock = { ms: 1_000_000 };
    const port = new RemoteApplications({
      deliver: () => undefined,
      onViolation: (v) => violations.push(v),
      graceMs: GRACE_MS,
      now: () => clock.ms,
      jobs: [['deaf', { channel: new AppChannel(runner), jobDir }]],
    });
    port.requestShrink(1, 'deaf', 2, true);
    // The request is written (to-app.jsonl) before the clock moves.
    await port.poll();
    return { runner, port, violations, clock };
  }

  it('reports an application that never created from-app.jsonl once the grace period is over', async () => {
    const { port, violations, clock } = await deafJob();
    expect(violations).toEqual([]);
    clock.ms += GRACE_MS - 1;
    await port.poll();
    expect(violations).toEqual([]);
    clock.ms += 1;
    await port.poll();
    expect(violations).toEqual([
      {
        jobId: 'deaf',
        offerId: 1,
        requested: 2,
        accepted: undefined,
        released: 0,
        reason: `job deaf did not answer mandatory shrink 1 (2 processors) within the grace period of ${GRACE_MS} ms`,
      },
    ]);
    // Reported once.
    await port.poll();
    expect(violations).toHaveLength(1);
  });

  it('reports it when its from-app.jsonl cannot be read', async () => {
    // A channel whose reads find the file unreadable (root reads any file here, so a mode cannot make one).
    const unreadable = {
      send: () => Promise.resolve(1),
      poll: (dirs: readonly string[]) =>
        Promise.resolve(
          new Map(dirs.map((d) => [d, { state: 'unreadable' as const, messages: [], errors: [], duplicates: 0 }])),
        ),
      forget: () => undefined,
    } as unknown as AppChannel;
    const violations: ProtocolViolation[] = [];
    const clock = { ms: 0 };
    const port = new RemoteApplications({
      deliver: () => undefined,
      onViolation: (v) => violations.push(v),
      graceMs: GRACE_MS,
      now: () => clock.ms,
      jobs: [['deaf', { channel: unreadable, jobDir: '/jobs/deaf' }]],
    });
    port.requestShrink(1, 'deaf', 2, true);
    clock.ms += GRACE_MS;
    await port.poll();
    expect(violations.map((v) => v.offerId)).toEqual([1]);
  });

  it('reports nothing while the cluster cannot be reached, and reports it at the first poll that reaches it', async () => {
    const { runner, port, violations, clock } = await deafJob();
    clock.ms += GRACE_MS * 10;
    runner.down = true;
    await port.poll();
    expect(violations).toEqual([]);
    runner.down = false;
    await port.poll();
    expect(violations.map((v) => v.offerId)).toEqual([1]);
  });
});
