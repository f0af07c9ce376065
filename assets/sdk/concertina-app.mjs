// Concertina's SDK for malleable and evolving applications, for Node 18 or later, with no dependencies: it runs on
// cluster nodes.
// It speaks the application control protocol through two JSON-lines files in the job's directory on the shared
// file system: it reads Concertina's messages from to-app.jsonl and appends its own to from-app.jsonl. The
// application calls `await app.sync()` at its safe points (between iterations); offers and shrink requests are
// answered there, through its callbacks, and processors given back are released at that same safe point (or, for a
// shrink with a deadline and the option releaseBeforeDeadlineMs, at the first safe point that close to it). An
// evolving application asks for a new size itself with `await app.update(n, { announceS })`.
// The application itself is one processor (member 0); the others are size-1 local jobs running the slot stub
// (assets/apps/slot-stub.sh). `app.slots()` lists those it holds, `app.recruit(slot, argv)` starts a process on one
// through its stub, and `app.workerPool({ argv })` keeps one worker process on each held slot, fed with tasks as JSON
// files; the worker side is `serveSlot(handler)`.
//
//   import { connect } from './concertina-app.mjs';
//   const app = await connect({ onResized: (size) => pool.resize(size) });
//   while (!finished && !app.stopRequested) { step(app.size); await app.sync(); app.progress(done / total); }
//   app.done(finished);
import {
  appendFileSync,
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  opendirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';

export const SDK_NAME = 'concertina-node/1';
const PROTOCOL_VERSION = 1;
const TO_APP_FILE = 'to-app.jsonl';
const FROM_APP_FILE = 'from-app.jsonl';
const NEWLINE = 0x0a;
const SLOTS_DIR = 'slots';
const WORK_DIR = 'work';
/** Slot ids: what the runner names them (m1, m2, ...) and the stub accepts; no dot, so <id>.run is never a slot. */
const SLOT_ID = /^[A-Za-z0-9_-]+$/;

/**
 * Connects to the job's directory and says hello. Options (each defaults to its environment variable):
 * dir (CONCERTINA_JOB_DIR), size (CONCERTINA_SIZE), min (CONCERTINA_MIN, else 1), max (CONCERTINA_MAX, else size);
 * callbacks onTasks(tasks, app) (an interactive job's tasks, at start and after a re-placement), onOffer(processors, app) -> accepted, onShrink(processors, mandatory, app, { deadline }) -> accepted,
 * onResized(size, app) (may return a promise), onRefused(reason, app) (an update refused); releaseBeforeDeadlineMs
 * (a shrink with a deadline is released at the first safe point this close to it; default: at once); pollMs
 * (background read of to-app.jsonl, default 500); progressIntervalMs (progress lines at most this often, default 1000);
 * slotWaitMs (how long to wait for the slot files of processors Concertina says it holds; default 15000 when run by
 * Concertina's batch manager, CONCERTINA_MEMBER set, else 0: without stubs, slots() is simply shorter).
 */
export async function connect(options = {}) {
  const env = process.env;
  const dir = options.dir ?? env.CONCERTINA_JOB_DIR;
  if (!dir) throw new Error('concertina-app: no job directory (set CONCERTINA_JOB_DIR or pass dir)');
  const size = whole(options.size ?? env.CONCERTINA_SIZE, 'CONCERTINA_SIZE', 1);
  const min = whole(options.min ?? env.CONCERTINA_MIN ?? 1, 'CONCERTINA_MIN', 1);
  const max = whole(options.max ?? env.CONCERTINA_MAX ?? size, 'CONCERTINA_MAX', 1);
  if (min > max) throw new Error(`concertina-app: CONCERTINA_MIN (${min}) must not exceed CONCERTINA_MAX (${max})`);
  if (size < min || size > max)
    throw new Error(`concertina-app: CONCERTINA_SIZE (${size}) must lie within ${min}..${max}`);
  const app = new ConcertinaApp(dir, size, min, max, options);
  app.start();
  await app.claimSlots();
  return app;
}

function whole(value, name, least) {
  const n = typeof value === 'number' ? value : Number(value);
  if (value === undefined || value === '' || !Number.isInteger(n) || n < least) {
    throw new Error(`concertina-app: ${name} must be an integer >= ${least} (got ${JSON.stringify(value)})`);
  }
  return n;
}

export class ConcertinaApp {
  /** Processors the application uses now. */
  size;
  /** What it has agreed to: its size plus accepted grows not yet active. */
  target;
  min;
  max;
  /** Concertina asked it to finish (the job is being cancelled); finish at the next safe point. */
  stopRequested = false;
  stopReason = undefined;
  /** Why the last update was refused (undefined: none was). */
  refusal = undefined;
  /** An interactive job's tasks as Concertina last placed them (undefined: none yet, or not interactive). */
  tasks = undefined;
  /** The job's directory. */
  dir;

  #toApp;
  #fromApp;
  #options;
  #offset = 0;
  #line = 0;
  #lastSeq = 0;
  #nextSeq = 1;
  #queue = [];
  #timer = undefined;
  #ended = false;
  #lastProgressAt = -Infinity;
  /** The size of the last update sent (-1 after a refusal; undefined: none was sent, a malleable application). */
  #askedFor = undefined;
  /** Shrinks answered but released later, near their deadline: { offerId, processors, at } in answer order. */
  #deferred = [];
  /** The slots in use, in member order: the first size - 1 not given back. */
  #held = [];
  /** Slots given back: never used again, even while their stub's file lingers until the cancel reaches it. */
  #released = new Set();
  /** Slots with a recruited process not yet seen to end. */
  #busy = new Set();
  #runs = 0;

  constructor(dir, size, min, max, options) {
    this.dir = dir;
    this.#toApp = join(dir, TO_APP_FILE);
    this.#fromApp = join(dir, FROM_APP_FILE);
    this.size = size;
    this.target = size;
    this.min = min;
    this.max = max;
    this.#options = options;
  }

  start() {
    this.#nextSeq = this.#continueNumbering();
    this.#write({ type: 'hello', pid: process.pid, size: this.size, sdk: SDK_NAME });
    this.#read();
    const timer = setInterval(() => this.#read(), this.#options.pollMs ?? 500);
    // The background read must not keep a finished application alive.
    timer.unref();
    this.#timer = timer;
  }

  /**
   * A safe point: handles what Concertina sent since the last one, in order. New processors are taken into use
   * (onResized), offers and shrink requests answered through the callbacks; processors given back are let go
   * (onResized with the smaller size) and released before this returns.
   */
  async sync() {
    this.#read();
    while (this.#queue.length > 0) {
      const message = this.#queue.shift();
      if (this.#ended) return;
      switch (message.type) {
        case 'resources':
          await this.#onResources(message.size);
          break;
        case 'offer':
          await this.#onOffer(message);
          break;
        case 'granted':
          this.#onGranted(message);
          break;
        case 'shrink':
          await this.#onShrink(message);
          break;
        case 'stop':
          this.stopRequested = true;
          this.stopReason = message.reason;
          break;
        case 'refused':
          await this.#onRefused(message.reason);
          break;
        case 'tasks': {
          const { v: _v, seq: _seq, type: _type, ...tasks } = message;
          this.tasks = tasks;
          await this.#options.onTasks?.(tasks, this);
          break;
        }
      }
    }
    await this.#releaseDue(this.stopRequested);
  }

  /** Processors agreed to be given back (shrinks answered) but still in use until their deadline. */
  get releasing() {
    let n = 0;
    for (const d of this.#deferred) n += d.processors;
    return n;
  }

  /**
   * An evolving application asks for a new total size within min..max. Growing: sent now (announceS > 0: wanted
   * that many seconds from now), and the processors are taken into use (onResized) once Concertina holds them.
   * Shrinking: its last processors are let go first (onResized), then the update is sent. Resolves with whether an
   * update was sent (false: nothing to change). A refusal comes later, at a safe point (onRefused, app.refusal).
   */
  async update(processors, { announceS = 0 } = {}) {
    const n = Number(processors);
    if (!Number.isInteger(n) || n < this.min || n > this.max) {
      throw new RangeError(
        `concertina-app: update: processors must be an integer within ${this.min}..${this.max} (got ${JSON.stringify(processors)})`,
      );
    }
    const announce = Number(announceS);
    if (!Number.isFinite(announce) || announce < 0)
      throw new RangeError(
        `concertina-app: update: announceS must be a number >= 0 (got ${JSON.stringify(announceS)})`,
      );
    // Decision: only growth is announced; a smaller size is let go at once, so announcing it would only delay others.
    if (announce > 0 && n < this.size)
      throw new RangeError(
        `concertina-app: update: only a grow can be announced (size ${this.size}, asked ${n}); shrink at the time instead`,
      );
    if (this.#ended || n === this.target) return false;
    if (n < this.size) {
      await this.#resize(n);
      // The update below says how many are left; no `released` is sent for them.
    }
    this.target = n;
    this.#ask(n, announce);
    return true;
  }

  #ask(processors, announceS) {
    this.#askedFor = processors;
    this.#write({ type: 'update', processors, ...(announceS > 0 && { announceS }) });
  }

  /** Reports how far the run is (0..1). Lines are written at most once per progressIntervalMs, except the first and 1. */
  progress(fraction, note) {
    if (this.#ended) return;
    const value = Math.min(1, Math.max(0, Number(fraction) || 0));
    const now = Date.now();
    if (value < 1 && now - this.#lastProgressAt < (this.#options.progressIntervalMs ?? 1000)) return;
    this.#lastProgressAt = now;
    this.#write({ type: 'progress', fraction: value, ...(note !== undefined && { note: String(note) }) });
  }

  /**
   * Gives back `processors` on the application's own initiative (never below min): the last ones are let go
   * (onResized), then released. Resolves with how many were released.
   */
  async release(processors) {
    const n = Math.min(Math.max(0, Math.floor(processors)), this.size - this.releasing - this.min);
    if (n <= 0 || this.#ended) return 0;
    await this.#letGo(n);
    this.#write({ type: 'released', processors: n });
    return n;
  }

  /**
   * The slots the application holds now besides itself: `{ slot, host, pid, member }` (pid: the stub's), in member
   * order, at most size - 1. The last ones are the most recently granted, and the first given back on a shrink.
   * Shorter while slot files lag behind (it looks again at each call until it has them all).
   */
  slots() {
    this.#topUp();
    return this.#held.map((s) => ({ ...s }));
  }

  /**
   * Starts `argv` (program and arguments) on a held slot, as the child of its stub; env: more variables for it (the
   * stub also exports CONCERTINA_JOB_DIR and CONCERTINA_SLOT); cwd: where it runs (default: the job directory). One
   * process per slot at a time. Returns { slot, run, exited: Promise<status|null>, stop() } (see the .d.mts).
   */
  recruit(slot, argv, { env = {}, cwd } = {}) {
    const id = typeof slot === 'string' ? slot : slot?.slot;
    if (typeof id !== 'string' || !SLOT_ID.test(id))
      throw new TypeError(`concertina-app: recruit: not a slot id: ${JSON.stringify(id)}`);
    if (this.#released.has(id)) throw new Error(`concertina-app: recruit: slot ${id} was given back`);
    if (this.#busy.has(id)) throw new Error(`concertina-app: recruit: slot ${id} already runs a recruited process`);
    const run = `r${process.pid}-${++this.#runs}-${Date.now().toString(36)}`;
    const script = runScript(run, argv, env, cwd);
    const base = join(this.dir, SLOTS_DIR, id);
    rmSync(`${base}.exit`, { force: true });
    // Written aside and renamed: the stub never reads half a request.
    writeFileSync(`${base}.run.tmp-${run}`, script);
    renameSync(`${base}.run.tmp-${run}`, `${base}.run`);
    this.#busy.add(id);
    return new Recruited(base, id, run, () => this.#busy.delete(id));
  }

  /**
   * A pool of worker processes, one per held slot, each started with `argv` (which must call serveSlot) and fed
   * tasks as JSON files. Call `await pool.update()` from onResized (and at will: slots that came late are recruited
   * then): it recruits the new slots and stops the workers of slots given back, before the SDK releases them.
   */
  workerPool(options) {
    return new WorkerPool(this, options);
  }

  /** Waits (up to slotWaitMs) until the slot files of the processors in use are there. */
  async claimSlots() {
    const env = process.env;
    const waitMs = this.#options.slotWaitMs ?? (env.CONCERTINA_MEMBER !== undefined ? 15_000 : 0);
    const until = Date.now() + waitMs;
    while (!this.#topUp() && Date.now() < until) await sleep(100);
  }

  /** Takes slots up to size - 1 from the slot files, in member order; true when it has them all. */
  #topUp() {
    const want = Math.max(0, this.size - 1);
    if (this.#held.length > want) {
      for (const s of this.#held.splice(want)) this.#released.add(s.slot);
    }
    if (this.#held.length === want) return true;
    // Decision: the held ones are always the first size - 1 in member order, so a slot file that lagged behind a
    // later one's takes its place (both sides then agree that the last ones go first on a shrink).
    const known = new Map(this.#held.map((s) => [s.slot, s]));
    for (const s of readSlots(join(this.dir, SLOTS_DIR)))
      if (!this.#released.has(s.slot) && !known.has(s.slot)) known.set(s.slot, s);
    this.#held = [...known.values()].sort(byMember).slice(0, want);
    return this.#held.length === want;
  }

  /**
   * An interactive job's task `task` ran an instance: `executedMs` of its own processing (compared with C),
   * `responseMs` from its release to its end (optional); `missed` when it ended past its deadline; `generation`:
   * the placement (tasks message) it ran under.
   */
  iteration(task, executedMs, missed, generation, responseMs) {
    if (this.#ended) return;
    const ms = Math.max(0, Number(executedMs) || 0);
    this.#write({
      type: 'iteration',
      task: Math.max(0, Math.trunc(Number(task) || 0)),
      executedMs: ms,
      missed: Boolean(missed),
      ...(generation !== undefined && { generation }),
      ...(responseMs !== undefined && { responseMs: Math.max(0, Number(responseMs) || 0) }),
    });
  }

  /** The run is over (ok: it completed); nothing is written after this. */
  done(ok, note) {
    if (this.#ended) return;
    this.#write({ type: 'done', ok: Boolean(ok), ...(note !== undefined && { note: String(note) }) });
    this.close();
  }

  /** Stops the background read (done() does it). */
  close() {
    this.#ended = true;
    clearInterval(this.#timer);
  }

  async #onResources(reported) {
    // Decision: Concertina reporting fewer than the application's minimum is its error (it never shrinks a job below
    // it): the application keeps its minimum, says so, and never asks for an update below it.
    const held = Math.max(reported, this.min);
    if (reported < this.min)
      warn(
        `resources: Concertina holds ${reported} processors, below this application's min ${this.min}; using ${held}`,
      );
    // Concertina holds fewer than in use: processors were lost (a local job died, or were reclaimed). Decision:
    // the application uses what Concertina holds, up to what it has agreed to (a grow it has since given back
    // part of may still be reported whole for a moment).
    if (held < this.size) this.target = Math.max(this.min, this.target - (this.size - held));
    // Processors of a shrink released later (near its deadline) are still in use until then.
    await this.#resize(Math.min(held, this.target + this.releasing));
    // An evolving application holds more than it asked for (a grow that came after it asked for less, which was
    // refused while the grow was under way): it asks again for what it uses, once per refusal.
    if (this.#askedFor !== undefined && held > this.target + this.releasing && this.#askedFor !== this.target)
      this.#ask(this.target, 0);
  }

  async #onOffer({ offerId, processors }) {
    const room = Math.min(processors, this.max - this.target);
    let accepted = 0;
    if (!this.stopRequested && room > 0) {
      const wanted = this.#options.onOffer ? await this.#options.onOffer(processors, this) : room;
      accepted = clampCount(wanted, room);
    }
    this.target += accepted;
    this.#write({ type: 'offerAnswer', offerId, accepted });
  }

  /**
   * An accepted grow was cut before it was granted (the cluster lost processors meanwhile): the application counts
   * only on what comes, so that its target is what it will hold and it can take later offers again.
   */
  #onGranted({ processors, accepted }) {
    this.target -= Math.max(0, accepted - processors);
  }

  async #onShrink({ offerId, processors, mandatory, deadline }) {
    const room = this.size - this.releasing - this.min;
    const wanted = this.#options.onShrink
      ? await this.#options.onShrink(processors, mandatory, this, { deadline })
      : processors;
    const accepted = clampCount(wanted, room);
    this.#write({ type: 'shrinkAnswer', offerId, accepted });
    if (accepted === 0) return;
    const lead = this.#options.releaseBeforeDeadlineMs;
    // Released at this same safe point (the application stops using its last processors, then says so), or kept in
    // use until the deadline comes near.
    this.target -= accepted;
    if (deadline !== undefined && lead !== undefined) {
      this.#deferred.push({ offerId, processors: accepted, at: deadline - lead });
      return;
    }
    await this.#resize(this.size - accepted);
    this.#write({ type: 'released', processors: accepted, offerId });
  }

  /**
   * Releases the shrinks that are due (all of them when `all`), in the order they were answered. Decision: released
   * processors are counted, not named (the last ones go), so a due shrink need not wait for an earlier one's deadline.
   */
  async #releaseDue(all) {
    const now = Date.now();
    for (const due of this.#deferred.filter((d) => all || d.at <= now)) {
      if (this.#ended) return;
      this.#deferred.splice(this.#deferred.indexOf(due), 1);
      await this.#resize(this.size - due.processors);
      this.#write({ type: 'released', processors: due.processors, offerId: due.offerId });
    }
  }

  async #onRefused(reason) {
    this.refusal = reason;
    this.#askedFor = -1;
    // A grow that will not come: the application goes on at the size Concertina holds.
    if (this.target > this.size) this.target = this.size;
    await this.#options.onRefused?.(reason, this);
  }

  async #letGo(n) {
    this.target -= n;
    await this.#resize(this.size - n);
  }

  async #resize(size) {
    if (size === this.size) return;
    const grown = size > this.size;
    this.size = size;
    // The last slots are given back; new ones are waited for (their files may lag behind `resources`).
    if (grown) await this.claimSlots();
    else this.#topUp();
    await this.#options.onResized?.(size, this);
  }

  /** Appends the complete lines of to-app.jsonl written since the last read to the queue. */
  #read() {
    let fd;
    try {
      fd = openSync(this.#toApp, 'r');
    } catch (error) {
      if (error.code === 'ENOENT') return;
      throw error;
    }
    try {
      const length = fstatSync(fd).size;
      if (length < this.#offset) {
        warn(`${this.#toApp} became shorter: it was replaced; reading it again from the top`);
        this.#offset = 0;
        this.#line = 0;
        this.#lastSeq = 0;
      }
      if (length === this.#offset) return;
      const bytes = Buffer.alloc(length - this.#offset);
      let got = 0;
      while (got < bytes.length) {
        const n = readSync(fd, bytes, got, bytes.length - got, this.#offset + got);
        if (n === 0) break;
        got += n;
      }
      // Only complete lines: the last one may still be being written.
      const end = bytes.subarray(0, got).lastIndexOf(NEWLINE);
      if (end < 0) return;
      this.#offset += end + 1;
      for (const text of bytes.subarray(0, end).toString('utf8').split('\n')) this.#accept(text);
    } finally {
      closeSync(fd);
    }
  }

  #accept(text) {
    this.#line++;
    if (text.trim() === '') return;
    const message = decode(text);
    if (typeof message === 'string') {
      warn(`${this.#toApp}:${this.#line}: ${message}`);
      return;
    }
    // Already handled (a rewritten line, or a reader that started over).
    if (message.seq <= this.#lastSeq) return;
    this.#lastSeq = message.seq;
    if (message.type === 'stop') {
      // Seen at once, so that a long step can check it before the next safe point.
      this.stopRequested = true;
      this.stopReason = message.reason;
    }
    this.#queue.push(message);
  }

  /** The seq after the lines already in from-app.jsonl (an application restarted in the same directory). */
  #continueNumbering() {
    let bytes;
    try {
      bytes = readFileSync(this.#fromApp);
    } catch (error) {
      if (error.code === 'ENOENT') return 1;
      throw error;
    }
    let lines = 0;
    for (const byte of bytes) if (byte === NEWLINE) lines++;
    // A partial last line (a writer killed mid-append) is ended first, so that the next line stays whole.
    if (bytes.length > 0 && bytes[bytes.length - 1] !== NEWLINE) {
      appendFileSync(this.#fromApp, '\n');
      lines++;
    }
    return lines + 1;
  }

  #write(body) {
    // One write of one whole line with O_APPEND; Concertina reads only complete lines.
    appendFileSync(this.#fromApp, `{"v":${PROTOCOL_VERSION},"seq":${this.#nextSeq},${JSON.stringify(body).slice(1)}\n`);
    this.#nextSeq++;
  }
}

// ---- slots and recruitment ---------------------------------------------------------------------------------------

/** The slot files in `dir` that are whole and name themselves (a stub's temporary file is neither), in member order. */
function readSlots(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
  const slots = [];
  for (const name of names) {
    if (!SLOT_ID.test(name)) continue;
    let record;
    try {
      record = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    } catch {
      // Gone since the listing (a stub let it go), or not a slot file.
      continue;
    }
    if (record?.slot !== name || typeof record.host !== 'string' || !Number.isInteger(record.pid)) continue;
    const member = /^m(\d+)$/.exec(name);
    slots.push({ slot: name, host: record.host, pid: record.pid, member: member ? Number(member[1]) : Infinity });
  }
  return slots.sort(byMember);
}

function byMember(a, b) {
  return a.member - b.member || (a.slot < b.slot ? -1 : a.slot > b.slot ? 1 : 0);
}

/** `text` as one sh word: single-quoted, each ' written as '\'' (nothing inside is ever expanded). */
export function shellQuote(text) {
  return `'${String(text).replaceAll("'", "'\\''")}'`;
}

/** The request the stub runs: a sh script whose words are all quoted here (by shellQuote, nothing else). */
// Decision: a script of single-quoted words, not argv in a file: sh runs it as is (the stub parses nothing), and exec keeps the program the stub's child.
function runScript(run, argv, env, cwd) {
  if (!Array.isArray(argv) || argv.length === 0)
    throw new TypeError('concertina-app: recruit: argv must be a non-empty array (the program, then its arguments)');
  const words = argv.map((word) => checkedWord(word, 'argv'));
  const lines = [`# concertina-run ${run}`];
  for (const [name, value] of Object.entries(env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new TypeError(
        `concertina-app: recruit: environment variable name ${JSON.stringify(name)} is not a shell identifier`,
      );
    lines.push(`${name}=${shellQuote(checkedWord(value, name))}; export ${name}`);
  }
  if (cwd !== undefined) lines.push(`cd ${shellQuote(checkedWord(cwd, 'cwd'))} || exit 127`);
  lines.push(`exec ${words.map(shellQuote).join(' ')}`);
  return `${lines.join('\n')}\n`;
}

function checkedWord(value, what) {
  if (typeof value !== 'string')
    throw new TypeError(`concertina-app: recruit: ${what} must be strings (got ${JSON.stringify(value)})`);
  // No process can receive a NUL byte in an argument or a variable.
  if (value.includes('\0')) throw new TypeError(`concertina-app: recruit: ${what} must not contain a NUL character`);
  return value;
}

/** A process recruited on a slot (see recruit). */
class Recruited {
  slot;
  run;
  #base;
  #settle;
  #exited;
  #withdrawn = false;
  #kept = false;
  #timer = undefined;

  constructor(base, slot, run, settle) {
    this.#base = base;
    this.slot = slot;
    this.run = run;
    this.#settle = settle;
  }

  /**
   * Its exit status once the stub has recorded it (over 128: killed by signal status - 128), or null when it never
   * ran or its stub is gone (the slot was cancelled). Looked for every 200 ms from the first time it is asked for.
   */
  get exited() {
    // Someone waits for it: the looks keep the process alive.
    this.#kept = true;
    this.#timer?.ref();
    return this.watch();
  }

  /** As exited, but the looks alone do not keep the process alive (a pool watching its workers). */
  watch() {
    this.#exited ??= (async () => {
      for (;;) {
        const status = this.#status();
        if (status !== undefined) {
          this.#settle();
          return status;
        }
        await new Promise((resolve) => {
          this.#timer = setTimeout(resolve, 200);
          if (!this.#kept) this.#timer.unref();
        });
      }
    })();
    return this.#exited;
  }

  /** Asks the stub to end it (SIGTERM, then SIGKILL after graceMs); resolves with its exit status (as exited). */
  async stop({ graceMs = 5_000 } = {}) {
    try {
      // Not taken by the stub yet: withdrawn, and it never runs (the stub takes it by a rename, so only one of the
      // two can succeed).
      unlinkSync(`${this.#base}.run`);
      this.#withdrawn = true;
    } catch {
      // Taken (or gone with its stub).
    }
    let ended = false;
    const exited = this.exited.then((status) => {
      ended = true;
      return status;
    });
    for (let ask = 0; ask < 2 && !ended; ask++) {
      refresh(dirname(this.#base));
      if (existsSync(`${this.#base}.running`)) writeAtomic(`${this.#base}.stop`, `${this.run}\n`);
      await Promise.race([exited, sleep(graceMs, { unref: true })]);
    }
    return exited;
  }

  #status() {
    refresh(dirname(this.#base));
    let text;
    try {
      text = readFileSync(`${this.#base}.exit`, 'utf8');
    } catch {
      text = undefined;
    }
    if (text !== undefined) {
      let record;
      try {
        record = JSON.parse(text);
      } catch {
        record = undefined;
      }
      if (record?.run === this.run && Number.isInteger(record.status)) {
        rmSync(`${this.#base}.exit`, { force: true });
        return record.status;
      }
    }
    // Withdrawn before the stub took it, or the stub let its slot go: nothing runs (or will run) there.
    if (this.#withdrawn || !existsSync(this.#base)) return null;
    return undefined;
  }
}

/**
 * Worker processes on the held slots, fed with tasks through files in the job directory (on the shared file
 * system): work/<slot>/task-<n>.json -> result-<n>.json, each written aside and renamed.
 */
class WorkerPool {
  /** One per held slot, in member order: { slot, host, call(task), tasks, pid (once known) }. */
  workers = [];
  #app;
  #argv;
  #env;
  #stopGraceMs;
  /** Slots whose worker ended on its own: not recruited again by this pool (no restart loop). */
  #failed = new Set();

  constructor(app, { argv, env = {}, stopGraceMs = 5_000 } = {}) {
    if (!Array.isArray(argv) || argv.length === 0)
      throw new TypeError('concertina-app: workerPool: argv (the worker program and its arguments) is required');
    this.#app = app;
    this.#argv = argv;
    this.#env = env;
    this.#stopGraceMs = stopGraceMs;
  }

  /** Makes the workers match the held slots: stops those on slots given back, recruits the new ones. */
  async update() {
    const held = this.#app.slots();
    const ids = new Set(held.map((s) => s.slot));
    for (const w of this.workers) if (w.ended) this.#failed.add(w.slot);
    const leaving = this.workers.filter((w) => !ids.has(w.slot) || w.ended);
    this.workers = this.workers.filter((w) => !leaving.includes(w));
    await Promise.all(leaving.map((w) => w.stop(this.#stopGraceMs)));
    for (const slot of held) {
      if (this.#failed.has(slot.slot) || this.workers.some((w) => w.slot === slot.slot)) continue;
      const dir = join(this.#app.dir, WORK_DIR, slot.slot);
      // A fresh directory: the worker numbers its tasks from 1.
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const recruited = this.#app.recruit(slot, this.#argv, { env: this.#env });
      this.workers.push(new SlotWorker(slot, dir, recruited));
    }
    const order = held.map((s) => s.slot);
    this.workers.sort((a, b) => order.indexOf(a.slot) - order.indexOf(b.slot));
  }

  /** Stops every worker. */
  async close() {
    const leaving = this.workers.splice(0);
    await Promise.all(leaving.map((w) => w.stop(this.#stopGraceMs)));
  }
}

class SlotWorker {
  slot;
  host;
  /** The worker's pid, from its first result. */
  pid = undefined;
  /** Tasks it has answered. */
  tasks = 0;
  /** Its process has ended (it cannot answer any more). */
  ended = false;
  status = undefined;
  #dir;
  #recruited;
  #next = 0;

  constructor(slot, dir, recruited) {
    this.slot = slot.slot;
    this.host = slot.host;
    this.#dir = dir;
    this.#recruited = recruited;
    void recruited.watch().then((status) => {
      this.ended = true;
      this.status = status;
    });
  }

  /** Hands `task` (JSON-serialisable) to the worker; resolves with its handler's value, rejects with its error. */
  async call(task) {
    if (this.ended)
      throw new Error(`concertina-app: the worker on slot ${this.slot} has ended (status ${this.status})`);
    const n = ++this.#next;
    writeAtomic(join(this.#dir, `task-${n}.json`), JSON.stringify({ n, task }));
    const file = join(this.#dir, `result-${n}.json`);
    const result = await pollFile(file, () => this.ended);
    if (result === undefined)
      throw new Error(
        `concertina-app: the worker on slot ${this.slot} ended (status ${this.status}) before answering task ${n}`,
      );
    rmSync(file, { force: true });
    this.tasks++;
    this.pid = result.pid;
    if (!result.ok)
      throw new Error(`concertina-app: the worker on slot ${this.slot} failed task ${n}: ${result.error}`);
    return result.value;
  }

  /** Asks the worker to finish (a stop task after the others), then its stub to end it; resolves once it has ended. */
  async stop(graceMs) {
    if (!this.ended) {
      writeAtomic(join(this.#dir, `task-${++this.#next}.json`), JSON.stringify({ n: this.#next, stop: true }));
      await Promise.race([this.#recruited.exited, sleep(graceMs, { unref: true })]);
    }
    if (!this.ended) await this.#recruited.stop({ graceMs });
    this.ended = true;
  }
}

/**
 * The worker side of a WorkerPool, in the process a stub runs: answers the tasks of work/<slot>/ in order with
 * `await handler(task)` until asked to stop, or until its slot is let go. dir and slot default to
 * CONCERTINA_JOB_DIR and CONCERTINA_SLOT (exported by the stub).
 */
export async function serveSlot(
  handler,
  { dir = process.env.CONCERTINA_JOB_DIR, slot = process.env.CONCERTINA_SLOT } = {},
) {
  if (!dir || !slot || !SLOT_ID.test(slot))
    throw new Error(
      'concertina-app: serveSlot: CONCERTINA_JOB_DIR and CONCERTINA_SLOT must be set (it runs on a slot, started by its stub)',
    );
  const work = join(dir, WORK_DIR, slot);
  const slotFile = join(dir, SLOTS_DIR, slot);
  const me = { slot, host: hostname(), pid: process.pid };
  mkdirSync(work, { recursive: true });
  writeAtomic(join(work, 'worker.json'), JSON.stringify(me));
  // Decision: without its slot file the stub has let the slot go (or is gone), so the worker must not outlive it.
  const gone = () => {
    refresh(dirname(slotFile));
    return !existsSync(slotFile);
  };
  for (let n = 1; ; n++) {
    const file = join(work, `task-${n}.json`);
    const message = await pollFile(file, gone);
    if (message === undefined || message.stop) {
      rmSync(file, { force: true });
      return;
    }
    let reply;
    try {
      reply = { n, ok: true, value: await handler(message.task), ...me };
    } catch (error) {
      reply = { n, ok: false, error: String(error?.stack ?? error), ...me };
    }
    writeAtomic(join(work, `result-${n}.json`), JSON.stringify(reply));
    rmSync(file, { force: true });
  }
}

/**
 * The JSON in `file` once it is there, or undefined once `give_up()` says so. Decision: polled (1 ms at first,
 * slower when idle, at most 100 ms), because a shared file system does not tell other hosts of a change.
 */
async function pollFile(file, give_up) {
  let wait = 1;
  let idle = 0;
  const dir = dirname(file);
  for (let looks = 0; ; looks++) {
    let text;
    refresh(dir);
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    if (text !== undefined) return JSON.parse(text);
    // Checked now and then: it may cost a round trip to the file server.
    if (looks % 20 === 19 && give_up()) return undefined;
    await sleep(wait);
    idle += wait;
    if (idle > 200) wait = Math.min(100, wait * 2);
  }
}

/**
 * Opens and closes `dir`, before looking for a file another host creates there. Decision: an NFS client caches that a
 * name does not exist until the directory's cached attributes expire (30 s and more by default), but revalidates a
 * directory it opens (close-to-open consistency), so a new file is seen at the next look rather than that much later.
 * Local file systems do nothing more than an open and a close.
 */
function refresh(dir) {
  try {
    opendirSync(dir).closeSync();
  } catch {
    // Gone: the lookup that follows says so.
  }
}

function writeAtomic(file, text) {
  const aside = `${file}.tmp-${process.pid}`;
  writeFileSync(aside, text);
  renameSync(aside, file);
}

/** unref: the timer alone does not keep the process alive (a grace period raced against an awaited end). */
function sleep(ms, { unref = false } = {}) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (unref) timer.unref();
  });
}

function clampCount(value, most) {
  const n = Math.floor(Number(value));
  return Number.isFinite(n) ? Math.min(Math.max(0, n), Math.max(0, most)) : 0;
}

const isCount = (v) => Number.isInteger(v) && v >= 0;
const FIELDS = {
  resources: (m) => isCount(m.size) || 'size: must be an integer >= 0',
  offer: (m) =>
    (isCount(m.offerId) && isCount(m.processors) && m.processors > 0) ||
    'offerId and processors: must be integers (processors > 0)',
  granted: (m) =>
    (isCount(m.offerId) && isCount(m.processors) && isCount(m.accepted)) ||
    'offerId, processors and accepted: must be integers >= 0',
  shrink: (m) =>
    (isCount(m.offerId) && isCount(m.processors) && m.processors > 0 && typeof m.mandatory === 'boolean') ||
    'offerId, processors and mandatory: must be integers and a boolean',
  stop: (m) => typeof m.reason === 'string' || 'reason: must be a string',
  refused: (m) => typeof m.reason === 'string' || 'reason: must be a string',
  tasks: (m) =>
    (isCount(m.generation) &&
      Array.isArray(m.nodes) &&
      m.nodes.length > 0 &&
      Array.isArray(m.fractions) &&
      m.fractions.length === m.nodes.length &&
      [m.costMs, m.periodMs, m.deadlineMs, m.dataUnits].every((x) => typeof x === 'number' && x > 0)) ||
    'generation, nodes, fractions, costMs, periodMs, deadlineMs and dataUnits: a placement of interactive tasks',
};
/** Optional fields, checked when present. */
const OPTIONAL = {
  shrink: (m) =>
    m.deadline === undefined ||
    (typeof m.deadline === 'number' && m.deadline >= 0) ||
    'deadline: must be a number >= 0 (milliseconds since the epoch)',
};

/** A to-app message, or why the line is not one. */
function decode(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON (${error.message})`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  if (value.v !== PROTOCOL_VERSION)
    return `protocol version ${JSON.stringify(value.v)} is not supported (this SDK knows ${PROTOCOL_VERSION})`;
  if (!Number.isInteger(value.seq) || value.seq < 1) return 'seq: must be an integer >= 1';
  const check = typeof value.type === 'string' && Object.hasOwn(FIELDS, value.type) ? FIELDS[value.type] : undefined;
  if (!check) return `type: must be one of ${Object.keys(FIELDS).join(', ')} (got ${JSON.stringify(value.type)})`;
  const verdict = check(value);
  if (verdict !== true) return verdict;
  const optional = OPTIONAL[value.type]?.(value) ?? true;
  return optional === true ? value : optional;
}

function warn(message) {
  process.stderr.write(`concertina-app: ${message}\n`);
}
