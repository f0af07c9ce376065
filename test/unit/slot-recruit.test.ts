// Recruiting the processors a malleable job holds (KOALA V-A): the real slot stub (assets/apps/slot-stub.sh, run
// with /bin/sh) in a temporary job directory, driven by the Node SDK and by the shell helper. A recruited process
// gets its arguments intact and runs as the stub's child; its exit status is recorded; a cancel of the stub ends
// it; the worker pool follows grows and shrinks; a demo computes on the recruited slots with the results it has alone.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, shellQuote, type ConcertinaApp, type ConnectOptions } from '../../assets/sdk/concertina-app.mjs';
import { encodeLine, type ToAppBody } from '../../runners/protocol/messages.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STUB = path.join(repo, 'assets/apps/slot-stub.sh');
const SDK = path.join(repo, 'assets/sdk/concertina-app.mjs');
const SHELL_SDK = path.join(repo, 'assets/sdk/concertina-app.sh');
const FT = path.join(repo, 'assets/apps/ft-demo.mjs');
const NODE = process.execPath;

/** Arguments no shell may re-interpret: quotes, substitutions, separators, newlines, non-ASCII, empty. */
const TRICKY = [
  `it's "quoted"`,
  '$(touch pwned)',
  '`touch pwned`',
  'a; touch pwned',
  'line one\nline two\n',
  'ünïcödé ✓ 日本',
  '',
  "'",
  "''\\'",
  '--',
  '$HOME',
  '*',
];

let dir: string;
let app: ConcertinaApp | undefined;
let toAppSeq = 0;
const stubs: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'concertina-slots-'));
  mkdirSync(path.join(dir, 'slots'));
  writeFileSync(path.join(dir, 'to-app.jsonl'), '');
  toAppSeq = 0;
});
afterEach(async () => {
  app?.close();
  app = undefined;
  // Only the stubs this test started, by their own PIDs; their recruited children end with them.
  for (const stub of stubs.splice(0)) if (stub.exitCode === null && stub.signalCode === null) stub.kill('SIGTERM');
  await sleep(300);
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, find: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const giveUp = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > giveUp) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await sleep(20);
  }
}

function send(...bodies: ToAppBody[]): void {
  appendFileSync(path.join(dir, 'to-app.jsonl'), bodies.map((b) => `${encodeLine(++toAppSeq, b)}\n`).join(''));
}

/** Starts the stub of member `member` as a batch system would (dash), and waits for its slot file. */
async function startStub(member: number): Promise<{ child: ChildProcess; exited: Promise<number | null> }> {
  const child = spawn('/bin/sh', [STUB, dir, `m${member}`], {
    env: { ...process.env, CONCERTINA_STUB_POLL_S: '0.2' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  stubs.push(child);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await waitFor(`slots/m${member}`, () => existsSync(path.join(dir, 'slots', `m${member}`)));
  return { child, exited };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie has ended: only its parent has not collected it yet.
  return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

async function start(options: ConnectOptions): Promise<ConcertinaApp> {
  app = await connect({ dir, pollMs: 60_000, min: 1, max: 8, ...options });
  return app;
}

/** A node program that writes its argv, pid and slot variables to `out`, then exits with `code` (or sleeps). */
function probe(out: string, then: string): string[] {
  // Written aside and renamed: a file read while it is being written would not parse.
  const file = JSON.stringify(out);
  return [
    NODE,
    '-e',
    `const fs = require('fs'); fs.writeFileSync(${file} + '.tmp', JSON.stringify({ argv: process.argv.slice(1), pid: process.pid, dir: process.env.CONCERTINA_JOB_DIR, slot: process.env.CONCERTINA_SLOT, extra: process.env.EXTRA })); fs.renameSync(${file} + '.tmp', ${file}); ${then}`,
  ];
}

describe('slot stub and Node SDK recruitment', () => {
  it("runs a recruited process as the stub's child with its arguments intact, records its exit status, and can be recruited again", async () => {
    const stub = await startStub(1);
    const a = await start({ size: 2 });
    expect(a.slots()).toEqual([{ slot: 'm1', host: expect.any(String), pid: stub.child.pid, member: 1 }]);
    const out = path.join(dir, 'probe.json');
    const first = a.recruit(a.slots()[0]!, [...probe(out, 'setTimeout(() => process.exit(7), 300)'), ...TRICKY], {
      env: { EXTRA: `x'$(y)\n` },
    });
    // One process per slot at a time.
    expect(() => a.recruit('m1', ['true'])).toThrow(/already runs/);
    const seen = await waitFor('the probe', () => existsSync(out) && JSON.parse(readFileSync(out, 'utf8')));
    expect(seen).toEqual({ argv: TRICKY, pid: expect.any(Number), dir, slot: 'm1', extra: `x'$(y)\n` });
    expect(parentOf(seen.pid)).toBe(stub.child.pid);
    expect(await first.exited).toBe(7);
    expect(existsSync(path.join(dir, 'pwned'))).toBe(false);
    // The stub holds its slot again, and the SDK consumed the status.
    expect(readdirSync(path.join(dir, 'slots'))).toEqual(['m1']);
    const again = a.recruit('m1', ['/bin/sh', '-c', 'exit 3']);
    expect(await again.exited).toBe(3);
    expect(stub.child.exitCode).toBe(null);
  });

  it('stops a recruited process through its stub, and a request withdrawn before the stub takes it never runs', async () => {
    await startStub(1);
    const a = await start({ size: 2 });
    const out = path.join(dir, 'probe.json');
    const running = a.recruit('m1', probe(out, 'setInterval(() => {}, 1000)'));
    const { pid } = await waitFor('the probe', () => existsSync(out) && JSON.parse(readFileSync(out, 'utf8')));
    expect(await running.stop()).toBe(128 + 15);
    expect(alive(pid)).toBe(false);
    // Withdrawn at once: the stub looks for requests every 0.2 s.
    const never = a.recruit('m1', ['/bin/sh', '-c', `: > ${shellQuote(path.join(dir, 'ran'))}`]);
    expect(await never.stop()).toBe(null);
    await sleep(500);
    expect(existsSync(path.join(dir, 'ran'))).toBe(false);
  });

  it("a cancel (SIGTERM to the stub) ends the recruited process too, and the slot's files go", async () => {
    const stub = await startStub(1);
    const a = await start({ size: 2 });
    const out = path.join(dir, 'probe.json');
    const recruited = a.recruit('m1', probe(out, 'setInterval(() => {}, 1000)'));
    const { pid } = await waitFor('the probe', () => existsSync(out) && JSON.parse(readFileSync(out, 'utf8')));
    expect(alive(pid)).toBe(true);
    stub.child.kill('SIGTERM');
    expect(await stub.exited).toBe(0);
    expect(alive(pid)).toBe(false);
    expect(readdirSync(path.join(dir, 'slots'))).toEqual([]);
    // Its stub is gone: nothing will ever report a status.
    expect(await recruited.exited).toBe(null);
  });

  it('slots(): the first size - 1 in member order, waiting for slot files that lag behind resources, never one given back', async () => {
    for (const m of [10, 2, 1]) await startStub(m);
    const a = await start({ size: 3, onShrink: (n) => n, slotWaitMs: 5_000 });
    expect(a.slots().map((s) => s.slot)).toEqual(['m1', 'm2']);
    // A grow of 2: m10 is there, the other stub comes a moment after `resources`; the grow waits for it.
    send({ type: 'offer', offerId: 1, processors: 2 });
    await a.sync();
    send({ type: 'resources', size: 5 });
    const late = sleep(400).then(() => startStub(11));
    await a.sync();
    await late;
    expect(a.slots().map((s) => s.slot)).toEqual(['m1', 'm2', 'm10', 'm11']);
    // A shrink of 2 gives back the last two: they are never used again, even while their files linger.
    send({ type: 'shrink', offerId: 2, processors: 2, mandatory: true });
    await a.sync();
    expect(a.slots().map((s) => s.slot)).toEqual(['m1', 'm2']);
    await startStub(12);
    send({ type: 'offer', offerId: 3, processors: 1 }, { type: 'resources', size: 4 });
    await a.sync();
    expect(a.slots().map((s) => s.slot)).toEqual(['m1', 'm2', 'm12']);
    expect(() => a.recruit('m11', ['true'])).toThrow(/given back/);
  }, 20_000);

  it('without stubs (slotWaitMs 0 outside Concertina) slots() is empty and nothing waits', async () => {
    const began = Date.now();
    const a = await start({ size: 4 });
    expect(a.slots()).toEqual([]);
    // Had it waited for slot files it would have taken the 15 s that a run under Concertina waits: anything
    // shorter, however loaded the machine, is no wait.
    expect(Date.now() - began).toBeLessThan(15_000);
  });
});

describe('worker pool over recruited slots', () => {
  /** A worker program: serves tasks { x } with { doubled, slot } from its slot. */
  function workerProgram(): string[] {
    const file = path.join(dir, 'worker.mjs');
    writeFileSync(
      file,
      `import { serveSlot } from ${JSON.stringify(pathToFileURL(SDK).href)};\nawait serveSlot((task) => { if (task.fail) throw new Error('asked to fail'); return { doubled: task.x * 2, slot: process.env.CONCERTINA_SLOT }; });\n`,
    );
    return [NODE, file];
  }

  it('recruits the held slots, computes there, and stops the worker of a slot given back before releasing it', async () => {
    const stubPids = new Map<string, number>();
    for (const m of [1, 2, 3]) stubPids.set(`m${m}`, (await startStub(m)).child.pid!);
    const atRelease: Array<{ size: number; workers: string[] }> = [];
    const a = await start({
      size: 3,
      onShrink: (n) => n,
      onResized: async (size) => {
        await pool.update();
        atRelease.push({ size, workers: pool.workers.map((w) => w.slot) });
      },
    });
    // Used by onResized, which only runs at a safe point, after this.
    const pool = a.workerPool({ argv: workerProgram() });
    await pool.update();
    expect(pool.workers.map((w) => w.slot)).toEqual(['m1', 'm2']);
    const answers = await Promise.all(
      pool.workers.map((w, i) => w.call<{ doubled: number; slot: string }>({ x: i + 20 })),
    );
    expect(answers).toEqual([
      { doubled: 40, slot: 'm1' },
      { doubled: 42, slot: 'm2' },
    ]);
    await expect(pool.workers[0]!.call({ fail: true })).rejects.toThrow(/failed task 2: Error: asked to fail/);
    // Each worker is its slot stub's child, on its slot's host.
    const workerOf = (slot: string) => JSON.parse(readFileSync(path.join(dir, 'work', slot, 'worker.json'), 'utf8'));
    for (const w of pool.workers) {
      expect(w.pid).toBe(workerOf(w.slot).pid);
      expect(parentOf(w.pid!)).toBe(stubPids.get(w.slot));
    }
    const m2 = workerOf('m2').pid;

    // A grow of 1: m3 recruited.
    send({ type: 'offer', offerId: 1, processors: 1 });
    await a.sync();
    send({ type: 'resources', size: 4 });
    await a.sync();
    expect(pool.workers.map((w) => w.slot)).toEqual(['m1', 'm2', 'm3']);
    expect(await pool.workers[2]!.call({ x: 1 })).toEqual({ doubled: 2, slot: 'm3' });
    const m3 = workerOf('m3').pid;

    // A shrink of 2: the workers on m3 and m2 have ended when `released` is written (the same safe point).
    send({ type: 'shrink', offerId: 2, processors: 2, mandatory: true });
    await a.sync();
    const lines = readFileSync(path.join(dir, 'from-app.jsonl'), 'utf8');
    expect(lines).toMatch(/"type":"released","processors":2,"offerId":2/);
    expect(atRelease.at(-1)).toEqual({ size: 2, workers: ['m1'] });
    expect([alive(m2), alive(m3)]).toEqual([false, false]);
    // Their stubs still hold the slots (the runner cancels them next), with no worker left.
    expect(existsSync(path.join(dir, 'slots', 'm2'))).toBe(true);
    expect(readdirSync(path.join(dir, 'slots')).sort()).toEqual(['m1', 'm1.running', 'm2', 'm3']);
    await pool.close();
    expect(readdirSync(path.join(dir, 'slots')).sort()).toEqual(['m1', 'm2', 'm3']);
  }, 30_000);
});

describe('shell helper recruitment (dash)', () => {
  it('concertina_slots lists in member order; concertina_recruit quotes every word; the status is recorded', async () => {
    for (const m of [10, 1, 2]) await startStub(m);
    const out = path.join(dir, 'argv.json');
    const script = [
      `. ${shellQuote(SHELL_SDK)}`,
      `CONCERTINA_JOB_DIR=${shellQuote(dir)}`,
      'echo "slots: $(concertina_slots 4 | tr "\\n" " ")"',
      'echo "two: $(concertina_slots 3 | tr "\\n" " ")"',
      `concertina_recruit m2 ${shellQuote(NODE)} -e ${shellQuote(`require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ argv: process.argv.slice(1), slot: process.env.CONCERTINA_SLOT })); process.exit(5)`)} "$@" || exit 9`,
      'until status=$(concertina_recruit_status m2); do sleep 0.1; done',
      'echo "status: $status"',
    ].join('\n');
    const result = spawnSync('/bin/sh', ['-c', script, 'sh', ...TRICKY], {
      encoding: 'utf8',
      timeout: 20_000,
      cwd: dir,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('slots: m1 m2 m10 \ntwo: m1 m2 \nstatus: 5\n');
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({ argv: TRICKY, slot: 'm2' });
    expect(existsSync(path.join(dir, 'pwned'))).toBe(false);
  });
});

describe('a demo application on recruited slots', () => {
  function runFt(
    size: number,
    env: Record<string, string>,
  ): { note: string; ledger: Array<{ unit: string; pid: number; tasks: number; items: number }> } {
    const result = spawnSync(NODE, [FT, '96', '8'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        ...process.env,
        CONCERTINA_JOB_DIR: dir,
        CONCERTINA_SIZE: String(size),
        CONCERTINA_MIN: '1',
        CONCERTINA_MAX: '8',
        ...env,
      },
    });
    expect(result.status, result.stderr).toBe(0);
    const lines = readFileSync(path.join(dir, 'from-app.jsonl'), 'utf8').trimEnd().split('\n');
    const done = JSON.parse(lines.at(-1)!);
    expect(done).toMatchObject({ type: 'done', ok: true });
    const ledger = JSON.parse(readFileSync(path.join(dir, 'work', 'ledger.json'), 'utf8'));
    rmSync(path.join(dir, 'from-app.jsonl'));
    return { note: done.note, ledger };
  }

  it('FT-like at size 4 computes on this process and the three slot processes, with the result it has alone', async () => {
    const alone = runFt(1, {});
    expect(alone.ledger).toEqual([
      { unit: 'm0', host: expect.any(String), pid: expect.any(Number), tasks: 24, items: 96 },
    ]);
    const stubPids = new Map<string, number>();
    for (const m of [1, 2, 3]) stubPids.set(`m${m}`, (await startStub(m)).child.pid!);
    // As run by Concertina's batch manager: it waits for slot files.
    const spread = runFt(4, { CONCERTINA_MEMBER: '0' });
    expect(spread.note).toBe(alone.note);
    expect(spread.ledger.map((e) => e.unit).sort()).toEqual(['m0', 'm1', 'm2', 'm3']);
    for (const entry of spread.ledger) {
      expect(entry).toMatchObject({ tasks: 6, items: 24 });
      if (entry.unit === 'm0') continue;
      // Each slot's share was computed by the process its stub ran (its worker.json, written by that process).
      expect(JSON.parse(readFileSync(path.join(dir, 'work', entry.unit, 'worker.json'), 'utf8'))).toMatchObject({
        slot: entry.unit,
        pid: entry.pid,
      });
    }
    // The workers have ended with the application, and the stubs hold their slots again.
    for (const entry of spread.ledger) if (entry.unit !== 'm0') expect(alive(entry.pid)).toBe(false);
    expect(readdirSync(path.join(dir, 'slots')).sort()).toEqual(['m1', 'm2', 'm3']);
  }, 60_000);
});
