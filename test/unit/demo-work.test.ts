// The demo applications' amount of work: the argument that sets it lengthens the run in proportion (counted in the
// tasks the processors computed, not in time), and the defaults are large enough for a job submitted from the
// console to live for minutes, long enough to be grown and shrunk (read from the first progress line, then stopped).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FT = path.join(repo, 'assets/apps/ft-demo.mjs');
const GADGET = path.join(repo, 'assets/apps/gadget-demo.mjs');
const root = mkdtempSync(path.join(os.tmpdir(), 'cnc-demo-work-'));
const children: ChildProcess[] = [];

afterEach(() => {
  // Only the processes this test started, by their own handles.
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let runs = 0;
/** Starts a demo at size 1 outside Concertina (no slots: its one processor is this process). */
function start(app: string, args: readonly string[]) {
  const jobDir = path.join(root, `job${++runs}`);
  mkdirSync(jobDir);
  const child = spawn(process.execPath, [app, ...args], {
    env: { ...process.env, CONCERTINA_JOB_DIR: jobDir, CONCERTINA_SIZE: '1', CONCERTINA_MIN: '1', CONCERTINA_MAX: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { jobDir, child, exited, stderr: () => stderr };
}

type Message = { type: string; fraction?: number; note?: string; ok?: boolean };
const messages = (jobDir: string): Message[] => {
  const file = path.join(jobDir, 'from-app.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.endsWith('}'))
    .map((l) => JSON.parse(l) as Message);
};

/** Runs a demo to its end; the tasks its processors computed (work/ledger.json) and its done note. */
async function runToEnd(app: string, args: readonly string[]) {
  const run = start(app, args);
  expect(await run.exited, run.stderr()).toBe(0);
  const ledger = JSON.parse(readFileSync(path.join(run.jobDir, 'work', 'ledger.json'), 'utf8')) as Array<{
    tasks: number;
  }>;
  return {
    tasks: ledger.reduce((sum, unit) => sum + unit.tasks, 0),
    done: messages(run.jobDir).find((m) => m.type === 'done')!,
  };
}

/** The first progress line of a demo started without arguments; the demo is stopped then. */
async function firstProgress(app: string): Promise<string> {
  const run = start(app, []);
  let progress: Message | undefined;
  await expect
    .poll(() => (progress = messages(run.jobDir).find((m) => m.type === 'progress')), { timeout: 60_000, interval: 50 })
    .toBeDefined();
  run.child.kill('SIGKILL');
  return progress!.note!;
}

describe('the demo applications’ amount of work', () => {
  it('FT: four times the blocks, four times the tasks', async () => {
    const small = await runToEnd(FT, ['16', '8']);
    const large = await runToEnd(FT, ['64', '8']);
    expect(small.done).toMatchObject({ ok: true, note: expect.stringMatching(/^16\/16 FFTs/) });
    expect(large.done).toMatchObject({ ok: true, note: expect.stringMatching(/^64\/64 FFTs/) });
    expect(large.tasks).toBe(4 * small.tasks);
  }, 120_000);

  it('GADGET: four times the steps, four times the tasks', async () => {
    const small = await runToEnd(GADGET, ['50', '5']);
    const large = await runToEnd(GADGET, ['50', '20']);
    expect(small.done).toMatchObject({ ok: true, note: expect.stringMatching(/^5\/5 steps of 50 bodies/) });
    expect(large.done).toMatchObject({ ok: true, note: expect.stringMatching(/^20\/20 steps of 50 bodies/) });
    // One task per step, and one more for the forces at the start.
    expect(large.tasks - 1).toBe(4 * (small.tasks - 1));
  }, 120_000);

  it('by default, FT transforms 400000 blocks and GADGET takes 30000 steps (minutes, not the seconds of 4096 and 200)', async () => {
    expect(await firstProgress(FT)).toMatch(/^size 1: \d+\/400000 blocks$/);
    expect(await firstProgress(GADGET)).toMatch(/^size 1: step \d+\/30000$/);
  }, 120_000);
});
