// Concertina's SDK for malleable and evolving applications, for Node 18 or later, with no dependencies: it runs on
// cluster nodes.
// It speaks the application control protocol through two JSON-lines files in the job's directory on the shared
// file system: it reads Concertina's messages from to-app.jsonl and appends its own to from-app.jsonl. The
// application calls `await app.sync()` at its safe points (between iterations); offers and shrink requests are
// answered there, through its callbacks, and processors given back are released at that same safe point (or, for a
// shrink with a deadline and the option releaseBeforeDeadlineMs, at the first safe point that close to it). An
// evolving application asks for a new size itself with `await app.update(n, { announceS })`.
//
//   import { connect } from './concertina-app.mjs';
//   const app = await connect({ onResized: (size) => pool.resize(size) });
//   while (!finished && !app.stopRequested) { step(app.size); await app.sync(); app.progress(done / total); }
//   app.done(finished);
import { appendFileSync, closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';

export const SDK_NAME = 'concertina-node/1';
const PROTOCOL_VERSION = 1;
const TO_APP_FILE = 'to-app.jsonl';
const FROM_APP_FILE = 'from-app.jsonl';
const NEWLINE = 0x0a;

/**
 * Connects to the job's directory and says hello. Options (each defaults to its environment variable):
 * dir (CONCERTINA_JOB_DIR), size (CONCERTINA_SIZE), min (CONCERTINA_MIN, else 1), max (CONCERTINA_MAX, else size);
 * callbacks onOffer(processors, app) -> accepted, onShrink(processors, mandatory, app, { deadline }) -> accepted,
 * onResized(size, app) (may return a promise), onRefused(reason, app) (an update refused); releaseBeforeDeadlineMs
 * (a shrink with a deadline is released at the first safe point this close to it; default: at once); pollMs
 * (background read of to-app.jsonl, default 500); progressIntervalMs (progress lines at most this often, default 1000).
 */
export async function connect(options = {}) {
  const env = process.env;
  const dir = options.dir ?? env.CONCERTINA_JOB_DIR;
  if (!dir) throw new Error('concertina-app: no job directory (set CONCERTINA_JOB_DIR or pass dir)');
  const size = whole(options.size ?? env.CONCERTINA_SIZE, 'CONCERTINA_SIZE', 1);
  const min = whole(options.min ?? env.CONCERTINA_MIN ?? 1, 'CONCERTINA_MIN', 1);
  const max = whole(options.max ?? env.CONCERTINA_MAX ?? size, 'CONCERTINA_MAX', 1);
  if (min > max) throw new Error(`concertina-app: CONCERTINA_MIN (${min}) must not exceed CONCERTINA_MAX (${max})`);
  if (size < min || size > max) throw new Error(`concertina-app: CONCERTINA_SIZE (${size}) must lie within ${min}..${max}`);
  const app = new ConcertinaApp(dir, size, min, max, options);
  app.start();
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

  constructor(dir, size, min, max, options) {
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
      throw new RangeError(`concertina-app: update: processors must be an integer within ${this.min}..${this.max} (got ${JSON.stringify(processors)})`);
    }
    const announce = Number(announceS);
    if (!Number.isFinite(announce) || announce < 0) throw new RangeError(`concertina-app: update: announceS must be a number >= 0 (got ${JSON.stringify(announceS)})`);
    // Decision: only growth is announced; a smaller size is let go at once, so announcing it would only delay others.
    if (announce > 0 && n < this.size) throw new RangeError(`concertina-app: update: only a grow can be announced (size ${this.size}, asked ${n}); shrink at the time instead`);
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

  async #onResources(held) {
    // Concertina holds fewer than in use: processors were lost (a local job died, or were reclaimed). Decision:
    // the application uses what Concertina holds, up to what it has agreed to (a grow it has since given back
    // part of may still be reported whole for a moment).
    if (held < this.size) this.target -= this.size - held;
    // Processors of a shrink released later (near its deadline) are still in use until then.
    await this.#resize(Math.min(held, this.target + this.releasing));
    // An evolving application holds more than it asked for (a grow that came after it asked for less, which was
    // refused while the grow was under way): it asks again for what it uses, once per refusal.
    if (this.#askedFor !== undefined && held > this.target + this.releasing && this.#askedFor !== this.target) this.#ask(this.target, 0);
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

  async #onShrink({ offerId, processors, mandatory, deadline }) {
    const room = this.size - this.releasing - this.min;
    const wanted = this.#options.onShrink ? await this.#options.onShrink(processors, mandatory, this, { deadline }) : processors;
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
    this.size = size;
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

function clampCount(value, most) {
  const n = Math.floor(Number(value));
  return Number.isFinite(n) ? Math.min(Math.max(0, n), Math.max(0, most)) : 0;
}

const isCount = (v) => Number.isInteger(v) && v >= 0;
const FIELDS = {
  resources: (m) => isCount(m.size) || 'size: must be an integer >= 0',
  offer: (m) => (isCount(m.offerId) && isCount(m.processors) && m.processors > 0) || 'offerId and processors: must be integers (processors > 0)',
  shrink: (m) =>
    (isCount(m.offerId) && isCount(m.processors) && m.processors > 0 && typeof m.mandatory === 'boolean') ||
    'offerId, processors and mandatory: must be integers and a boolean',
  stop: (m) => typeof m.reason === 'string' || 'reason: must be a string',
  refused: (m) => typeof m.reason === 'string' || 'reason: must be a string',
};
/** Optional fields, checked when present. */
const OPTIONAL = {
  shrink: (m) => m.deadline === undefined || (typeof m.deadline === 'number' && m.deadline >= 0) || 'deadline: must be a number >= 0 (milliseconds since the epoch)',
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
  if (value.v !== PROTOCOL_VERSION) return `protocol version ${JSON.stringify(value.v)} is not supported (this SDK knows ${PROTOCOL_VERSION})`;
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
