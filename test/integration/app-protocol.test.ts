// The application control protocol end to end with real processes on this machine: the demo applications (FT-like,
// GADGET-like) and a shell application on the shell helper, driven through the AppChannel over the local
// CommandRunner and the core's ApplicationPort (RemoteApplications), as the malleable runner drives them on a
// cluster. Also the grace-period rule: an application that ignores a mandatory shrink is reported.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationMessage } from '../../core/ports.js';
import {
  RemoteApplications,
  type AppEvent,
  type ProtocolProblem,
  type ProtocolViolation,
} from '../../runners/protocol/application-port.js';
import { AppChannel } from '../../runners/protocol/channel.js';
import { LocalRunner } from '../../runners/shell/local-runner.js';
import { sh } from '../../runners/shell/quote.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FT = path.join(repo, 'assets/apps/ft-demo.mjs');
const GADGET = path.join(repo, 'assets/apps/gadget-demo.mjs');
const SHELL_APP = path.join(repo, 'test/integration/fixtures/shell-app.sh');
const SHELL_SDK = path.join(repo, 'assets/sdk/concertina-app.sh');
const SLOT_STUB = path.join(repo, 'assets/apps/slot-stub.sh');
const GRACE_MS = 1_000;

let root: string;
const runner = new LocalRunner({ defaultTimeoutMs: 20_000 });
const channel = new AppChannel(runner);

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'concertina-apps-'));
});
afterAll(async () => {
  await runner.close();
  rmSync(root, { recursive: true, force: true });
});

interface Running {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  output: string;
}
const started: Running[] = [];

afterEach(() => {
  // Only the processes this test started, by their own PIDs.
  for (const app of started.splice(0))
    if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill('SIGKILL');
});

let jobs = 0;
async function startApp(command: string, args: readonly string[], sizes: { size: number; min: number; max: number }) {
  const jobDir = path.join(root, `job${++jobs}`);
  await channel.create(jobDir);
  const child = spawn(command, args, {
    env: {
      ...process.env,
      CONCERTINA_JOB_DIR: jobDir,
      CONCERTINA_SIZE: String(sizes.size),
      CONCERTINA_MIN: String(sizes.min),
      CONCERTINA_MAX: String(sizes.max),
      CONCERTINA_SDK_SH: SHELL_SDK,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const running: Running = {
    child,
    output: '',
    exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
  };
  child.stdout!.on('data', (chunk: Buffer) => (running.output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (running.output += chunk.toString()));
  started.push(running);
  return { jobDir, running };
}

/** A RemoteApplications with everything it reports recorded, on a clock the test moves. */
function driver() {
  const messages: ApplicationMessage[] = [];
  const events: AppEvent[] = [];
  const violations: ProtocolViolation[] = [];
  const problems: ProtocolProblem[] = [];
  const clock = { now: 0 };
  const port = new RemoteApplications({
    deliver: (m) => messages.push(m),
    onEvent: (e) => events.push(e),
    onViolation: (v) => violations.push(v),
    onProblem: (p) => problems.push(p),
    graceMs: GRACE_MS,
    now: () => clock.now,
  });
  /** Polls until `find` returns something; the timeout only guards against a hang (nothing asserts durations). */
  async function until<T>(what: string, find: () => T | undefined | false, app?: Running): Promise<T> {
    const give_up = Date.now() + 45_000;
    for (;;) {
      await port.poll();
      const found = find();
      if (found !== undefined && found !== false) return found;
      if (Date.now() > give_up) {
        throw new Error(
          `no ${what}; messages ${JSON.stringify(messages)}, events ${JSON.stringify(events.slice(-5))}, problems ${JSON.stringify(problems)}, output ${app?.output ?? ''}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const answer = <T extends ApplicationMessage['type']>(type: T, offerId: number) =>
    messages.find(
      (m): m is Extract<ApplicationMessage, { type: T }> => m.type === type && 'offerId' in m && m.offerId === offerId,
    );
  const progress = (jobId: string) =>
    events.filter((e): e is Extract<AppEvent, { type: 'progress' }> => e.type === 'progress' && e.jobId === jobId);
  const event = <T extends AppEvent['type']>(type: T, jobId: string) =>
    events.find((e): e is Extract<AppEvent, { type: T }> => e.type === type && e.jobId === jobId);
  return { port, messages, events, violations, problems, clock, until, answer, progress, event };
}

/** Waits for progress reported at `size` whose fraction then rises (the application computes at its new size). */
async function progressRisesAt(d: ReturnType<typeof driver>, jobId: string, size: number, app: Running) {
  const from = d.progress(jobId).length;
  const at = () =>
    d
      .progress(jobId)
      .slice(from)
      .filter((p) => p.note?.startsWith(`size ${size}:`));
  await d.until(`progress at size ${size}`, () => at().length >= 2 && at(), app);
  const [first, second] = at();
  expect(second!.fraction).toBeGreaterThan(first!.fraction);
}

const isPowerOfTwo = (n: number) => n >= 1 && (n & (n - 1)) === 0;

describe('demo applications over the protocol', () => {
  it('FT-like: takes the power of two it can reach, shrinks to a power of two, releases, stops', async () => {
    const { jobDir, running } = await startApp(process.execPath, [FT, '100000000', '12'], { size: 2, min: 1, max: 8 });
    const d = driver();
    d.port.attach('ft', { channel, jobDir });
    const hello = await d.until('hello', () => d.event('hello', 'ft'), running);
    expect(hello).toMatchObject({ size: 2, sdk: 'concertina-node/1', pid: running.child.pid });

    d.port.offerGrow(1, 'ft', 3);
    expect(await d.until('answer to offer 1', () => d.answer('growAnswer', 1), running)).toEqual({
      type: 'growAnswer',
      offerId: 1,
      jobId: 'ft',
      accepted: 2,
    });
    // The grown local jobs are active: the runner hands the new set of resources to the application.
    d.port.resized('ft', 4);
    await progressRisesAt(d, 'ft', 4, running);

    d.clock.now = 100;
    d.port.requestShrink(2, 'ft', 3, true);
    const shrunk = await d.until('answer to shrink 2', () => d.answer('shrinkAnswer', 2), running);
    expect(shrunk.accepted).toBeGreaterThanOrEqual(3);
    expect(isPowerOfTwo(4 - shrunk.accepted)).toBe(true);
    const released = await d.until('release of shrink 2', () => d.answer('released', 2), running);
    expect(released).toEqual({ type: 'released', jobId: 'ft', processors: shrunk.accepted, offerId: 2 });
    // Released ones cancelled: the runner tells the application what it holds now.
    d.port.resized('ft', 4 - shrunk.accepted);
    await progressRisesAt(d, 'ft', 4 - shrunk.accepted, running);

    await d.port.stop('ft', 'test over');
    const done = await d.until('done', () => d.event('done', 'ft'), running);
    expect(done).toMatchObject({
      ok: false,
      note: expect.stringMatching(/^stopped \(test over\) after \d+\/100000000 FFTs of 2\^12 points verified/),
    });
    expect(await running.exited).toBe(0);
    // Long past the grace period: the shrink was honoured, so nothing is reported.
    d.clock.now = 100 + 10 * GRACE_MS;
    await d.port.poll();
    expect(d.violations).toEqual([]);
    expect(d.problems).toEqual([]);
  });

  it('GADGET-like: takes any size offered up to its maximum, shrinks as asked, stops', async () => {
    const { jobDir, running } = await startApp(process.execPath, [GADGET, '800', '100000000'], {
      size: 2,
      min: 1,
      max: 8,
    });
    const d = driver();
    d.port.attach('gadget', { channel, jobDir });
    await d.until('hello', () => d.event('hello', 'gadget'), running);

    d.port.offerGrow(1, 'gadget', 3);
    expect(await d.until('answer to offer 1', () => d.answer('growAnswer', 1), running)).toMatchObject({ accepted: 3 });
    d.port.resized('gadget', 5);
    await progressRisesAt(d, 'gadget', 5, running);

    d.port.requestShrink(2, 'gadget', 2, true);
    expect(await d.until('answer to shrink 2', () => d.answer('shrinkAnswer', 2), running)).toMatchObject({
      accepted: 2,
    });
    expect(await d.until('release of shrink 2', () => d.answer('released', 2), running)).toMatchObject({
      processors: 2,
    });
    d.port.resized('gadget', 3);
    await progressRisesAt(d, 'gadget', 3, running);

    await d.port.stop('gadget', 'test over');
    expect(await d.until('done', () => d.event('done', 'gadget'), running)).toMatchObject({
      ok: false,
      note: expect.stringMatching(/^stopped \(test over\) after \d+\/100000000 steps of 800 bodies/),
    });
    expect(await running.exited).toBe(0);
    d.clock.now = 10 * GRACE_MS;
    await d.port.poll();
    expect(d.violations).toEqual([]);
    expect(d.problems).toEqual([]);
  });

  it('both demos run a small problem to the end and check their own result', async () => {
    const ft = await startApp(process.execPath, [FT, '64', '10'], { size: 2, min: 1, max: 2 });
    const gadget = await startApp(process.execPath, [GADGET, '200', '20'], { size: 1, min: 1, max: 1 });
    const d = driver();
    d.port.attach('ft', { channel, jobDir: ft.jobDir });
    d.port.attach('gadget', { channel, jobDir: gadget.jobDir });
    expect(await d.until('ft done', () => d.event('done', 'ft'), ft.running)).toMatchObject({
      ok: true,
      note: expect.stringMatching(/^64\/64 FFTs of 2\^10 points verified/),
    });
    expect(await d.until('gadget done', () => d.event('done', 'gadget'), gadget.running)).toMatchObject({
      ok: true,
      note: expect.stringMatching(/^20\/20 steps of 200 bodies, relative energy drift/),
    });
    expect(d.progress('ft').at(-1)?.fraction).toBe(1);
    expect(await ft.running.exited).toBe(0);
    expect(await gadget.running.exited).toBe(0);
  });
});

describe('shell helper', () => {
  it('a shell application answers offers and shrinks, releases, reports progress and ends when stopped', async () => {
    const { jobDir, running } = await startApp('/bin/sh', [SHELL_APP, 'good'], { size: 2, min: 1, max: 4 });
    const d = driver();
    d.port.attach('sh', { channel, jobDir });
    expect(await d.until('hello', () => d.event('hello', 'sh'), running)).toMatchObject({
      size: 2,
      sdk: 'concertina-sh/1',
    });
    d.port.offerGrow(1, 'sh', 3);
    expect(await d.until('answer to offer 1', () => d.answer('growAnswer', 1), running)).toMatchObject({ accepted: 2 });
    d.port.resized('sh', 4);
    await progressRisesAt(d, 'sh', 4, running);
    d.port.requestShrink(2, 'sh', 2, true);
    expect(await d.until('answer to shrink 2', () => d.answer('shrinkAnswer', 2), running)).toMatchObject({
      accepted: 2,
    });
    expect(await d.until('release of shrink 2', () => d.answer('released', 2), running)).toMatchObject({
      processors: 2,
    });
    await d.port.stop('sh', 'test over');
    expect(await d.until('done', () => d.event('done', 'sh'), running)).toMatchObject({
      ok: false,
      note: expect.stringMatching(/^stopped at step \d+$/),
    });
    expect(await running.exited).toBe(0);
    expect(d.problems).toEqual([]);
  });
});

describe('grace period of mandatory shrinks', () => {
  it('reports an application that accepts a mandatory shrink but never releases, once the grace period is over', async () => {
    const { jobDir, running } = await startApp('/bin/sh', [SHELL_APP, 'never-release'], { size: 3, min: 1, max: 3 });
    const d = driver();
    d.port.attach('stubborn', { channel, jobDir });
    await d.until('hello', () => d.event('hello', 'stubborn'), running);
    d.clock.now = 5_000;
    d.port.requestShrink(7, 'stubborn', 2, true);
    expect(await d.until('answer to shrink 7', () => d.answer('shrinkAnswer', 7), running)).toMatchObject({
      accepted: 2,
    });
    d.clock.now = 5_000 + GRACE_MS - 1;
    await d.port.poll();
    expect(d.violations).toEqual([]);
    d.clock.now = 5_000 + GRACE_MS;
    await d.port.poll();
    expect(d.violations).toEqual([
      {
        jobId: 'stubborn',
        offerId: 7,
        requested: 2,
        accepted: 2,
        released: 0,
        reason: expect.stringMatching(/^job stubborn released 0 of the 2 processors it accepted/),
      },
    ]);
    // Reported once.
    d.clock.now += GRACE_MS;
    await d.port.poll();
    expect(d.violations).toHaveLength(1);
  });

  it('reports an application that never answers a mandatory shrink; a voluntary one is not held to it', async () => {
    const { jobDir, running } = await startApp('/bin/sh', [SHELL_APP, 'deaf'], { size: 3, min: 1, max: 3 });
    const d = driver();
    d.port.attach('deaf', { channel, jobDir });
    await d.until('hello', () => d.event('hello', 'deaf'), running);
    d.port.requestShrink(1, 'deaf', 1, false);
    d.port.requestShrink(2, 'deaf', 1, true);
    // Both requests are in its to-app.jsonl, and its progress shows it went on past them.
    await d.until(
      'both requests written',
      () => (readFileSync(path.join(jobDir, 'to-app.jsonl'), 'utf8').match(/"type":"shrink"/g) ?? []).length === 2,
    );
    const seen = d.progress('deaf').length;
    await d.until('progress after the requests', () => d.progress('deaf').length >= seen + 3, running);
    d.clock.now = GRACE_MS;
    await d.port.poll();
    expect(d.violations).toEqual([
      {
        jobId: 'deaf',
        offerId: 2,
        requested: 1,
        accepted: undefined,
        released: 0,
        reason: expect.stringMatching(/^job deaf did not answer mandatory shrink 2/),
      },
    ]);
  });

  it('a refused send answers for the application, so the operation goes on', async () => {
    const d = driver();
    d.port.attach('gone', { channel, jobDir: path.join(root, 'never-created') });
    d.port.offerGrow(3, 'gone', 2);
    d.port.requestShrink(4, 'gone', 1, true);
    await d.until("answers on the application's behalf", () => d.messages.length >= 2);
    expect(d.messages).toEqual(
      expect.arrayContaining([
        { type: 'growAnswer', offerId: 3, jobId: 'gone', accepted: 0 },
        { type: 'shrinkAnswer', offerId: 4, jobId: 'gone', accepted: 0 },
      ]),
    );
    d.clock.now = 10 * GRACE_MS;
    await d.port.poll();
    expect(d.violations).toEqual([]);
    expect(d.problems.map((p) => p.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/offer not sent: .*does not exist/)]),
    );
  });
});

describe('slot stub', () => {
  /** Starts the stub of one size-1 local job, as the batch system would. */
  async function startStub(slot: string) {
    const jobDir = path.join(root, `job${++jobs}`);
    await channel.create(jobDir);
    const child = spawn('/bin/sh', [SLOT_STUB, jobDir, slot], {
      env: { ...process.env, CONCERTINA_STUB_POLL_S: '0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const running: Running = {
      child,
      output: '',
      exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
    };
    child.stderr!.on('data', (chunk: Buffer) => (running.output += chunk.toString()));
    started.push(running);
    const slotFile = path.join(jobDir, 'slots', slot);
    await waitFor(`slots/${slot}`, () => existsSync(slotFile), running);
    return { jobDir, running, slotFile };
  }

  async function waitFor(what: string, check: () => boolean, app: Running): Promise<void> {
    const give_up = Date.now() + 20_000;
    while (!check()) {
      if (Date.now() > give_up) throw new Error(`no ${what}; output ${app.output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('announces its slot (host, pid) and gives it up when the batch system cancels it', async () => {
    const { running, slotFile } = await startStub('17');
    expect(JSON.parse(readFileSync(slotFile, 'utf8'))).toEqual({
      slot: '17',
      host: expect.stringMatching(/^[A-Za-z0-9._-]+$/),
      pid: running.child.pid,
    });
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(existsSync(slotFile)).toBe(false);
  });

  it('ends when the job is stopped', async () => {
    const { jobDir, running, slotFile } = await startStub('a-1');
    await channel.send(jobDir, { type: 'stop', reason: 'job cancelled' });
    expect(await running.exited).toBe(0);
    expect(existsSync(slotFile)).toBe(false);
  });

  it('refuses a slot id that is not a plain name', async () => {
    const jobDir = path.join(root, `job${++jobs}`);
    await channel.create(jobDir);
    const result = await runner.run(sh`/bin/sh ${SLOT_STUB} ${jobDir} ../escape; echo "exit $?"`.text);
    expect(result.stdout.trim()).toBe('exit 2');
    expect(result.stderr).toMatch(/slot id/);
  });
});
