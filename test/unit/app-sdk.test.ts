// The Node SDK for applications (assets/sdk/concertina-app.mjs), in this process over a temporary job directory:
// answers at safe points, releases after a shrink, new resources, stop, numbering across a restart, bad lines.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connect, type ConcertinaApp, type ConnectOptions } from '../../assets/sdk/concertina-app.mjs';
import { decodeFromApp, encodeLine, type FromAppMessage, type ToAppBody } from '../../runners/protocol/messages.js';

let dir: string;
let app: ConcertinaApp | undefined;
let toAppSeq = 0;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'concertina-sdk-'));
  toAppSeq = 0;
});
afterEach(() => {
  app?.close();
  app = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function send(...bodies: ToAppBody[]): void {
  appendFileSync(path.join(dir, 'to-app.jsonl'), bodies.map((b) => `${encodeLine(++toAppSeq, b)}\n`).join(''));
}

/** What the application wrote, decoded with Concertina's own schemas (so every line must be valid). */
type Written = FromAppMessage extends infer M ? (M extends unknown ? Omit<M, 'v'> : never) : never;

function written(): Written[] {
  const text = readFileSync(path.join(dir, 'from-app.jsonl'), 'utf8');
  return text
    .trimEnd()
    .split('\n')
    .map((line) => {
      const decoded = decodeFromApp(line);
      if (!decoded.ok) throw new Error(`bad line ${line}: ${decoded.reason}`);
      const { v: _v, ...rest } = decoded.message;
      return rest as Written;
    });
}

async function start(options: ConnectOptions): Promise<ConcertinaApp> {
  app = await connect({ dir, pollMs: 60_000, ...options });
  return app;
}

describe('Node SDK', () => {
  it('says hello, then answers an offer at the next safe point and uses the processors once Concertina holds them', async () => {
    const sizes: number[] = [];
    const a = await start({ size: 2, min: 1, max: 6, onResized: (size) => void sizes.push(size) });
    send({ type: 'offer', offerId: 5, processors: 10 });
    expect(written()).toEqual([{ seq: 1, type: 'hello', pid: process.pid, size: 2, sdk: 'concertina-node/1' }]);
    await a.sync();
    // Default: everything up to max.
    expect(written().at(-1)).toEqual({ seq: 2, type: 'offerAnswer', offerId: 5, accepted: 4 });
    expect([a.size, a.target]).toEqual([2, 6]);
    send({ type: 'resources', size: 6 });
    await a.sync();
    expect(a.size).toBe(6);
    expect(sizes).toEqual([6]);
  });

  it('counts only what a cut grow grants, so that it takes later offers again (GADGET at target 6, size 4)', async () => {
    const a = await start({ size: 4, min: 2, max: 6 });
    send({ type: 'offer', offerId: 1, processors: 1 }, { type: 'offer', offerId: 2, processors: 1 });
    await a.sync();
    expect([a.size, a.target]).toEqual([4, 6]);
    // The cluster lost processors between the offers and the answers: neither grow comes.
    send(
      { type: 'granted', offerId: 1, processors: 0, accepted: 1 },
      { type: 'granted', offerId: 2, processors: 0, accepted: 1 },
    );
    await a.sync();
    expect([a.size, a.target]).toEqual([4, 4]);
    send({ type: 'offer', offerId: 3, processors: 2 });
    await a.sync();
    expect(written().at(-1)).toEqual({ seq: 4, type: 'offerAnswer', offerId: 3, accepted: 2 });
    // A grow cut in part: the rest comes and is used.
    send({ type: 'granted', offerId: 3, processors: 1, accepted: 2 }, { type: 'resources', size: 5 });
    await a.sync();
    expect([a.size, a.target]).toEqual([5, 5]);
  });

  it('clamps an answer to the offer and to max, and refuses offers once asked to stop', async () => {
    const a = await start({ size: 2, min: 1, max: 4, onOffer: () => 99 });
    send({ type: 'offer', offerId: 1, processors: 1 }, { type: 'offer', offerId: 2, processors: 5 });
    await a.sync();
    // A stop is seen as soon as it is read: an offer read with it is refused even though it came first.
    send({ type: 'offer', offerId: 3, processors: 1 }, { type: 'stop', reason: 'cancelled' });
    await a.sync();
    expect(
      written()
        .slice(1)
        .map((m) => m.type === 'offerAnswer' && [m.offerId, m.accepted]),
    ).toEqual([
      [1, 1],
      [2, 1],
      [3, 0],
    ]);
    expect(a.stopRequested).toBe(true);
    expect(a.stopReason).toBe('cancelled');
    expect(a.target).toBe(4);
  });

  it('answers a shrink, lets the processors go (onResized) and only then writes released, at the same safe point', async () => {
    const order: string[] = [];
    const a = await start({
      size: 5,
      min: 2,
      max: 8,
      onShrink: (processors, mandatory) => (mandatory ? processors + 1 : 0),
      onResized: (size) => {
        order.push(`resized ${size} after ${written().length} lines`);
      },
    });
    send(
      { type: 'shrink', offerId: 7, processors: 2, mandatory: true },
      { type: 'shrink', offerId: 8, processors: 1, mandatory: false },
    );
    await a.sync();
    expect(written().slice(1)).toEqual([
      { seq: 2, type: 'shrinkAnswer', offerId: 7, accepted: 3 },
      { seq: 3, type: 'released', processors: 3, offerId: 7 },
      { seq: 4, type: 'shrinkAnswer', offerId: 8, accepted: 0 },
    ]);
    // Resized after the answer (2 lines) and before the release.
    expect(order).toEqual(['resized 2 after 2 lines']);
    expect([a.size, a.target]).toEqual([2, 2]);
  });

  it('never goes below min, and a voluntary release is written without an offerId', async () => {
    const a = await start({ size: 4, min: 3, max: 4, onShrink: () => 4 });
    send({ type: 'shrink', offerId: 1, processors: 4, mandatory: true });
    await a.sync();
    expect(written().slice(1, 3)).toEqual([
      { seq: 2, type: 'shrinkAnswer', offerId: 1, accepted: 1 },
      { seq: 3, type: 'released', processors: 1, offerId: 1 },
    ]);
    expect(await a.release(5)).toBe(0);
    const b = await start({ size: 4, min: 1, max: 4 });
    expect(await b.release(2)).toBe(2);
    expect(written().at(-1)).toEqual({ seq: 5, type: 'released', processors: 2 });
  });

  it('uses what Concertina holds up to what it agreed to, and less when processors were lost', async () => {
    const a = await start({ size: 2, min: 1, max: 8, onShrink: (n) => n });
    send({ type: 'offer', offerId: 1, processors: 2 });
    await a.sync();
    expect(a.target).toBe(4);
    // It gave one back before the grow's resources arrived: Concertina may still report the whole grow.
    send({ type: 'shrink', offerId: 2, processors: 1, mandatory: true }, { type: 'resources', size: 4 });
    await a.sync();
    expect([a.size, a.target]).toEqual([3, 3]);
    // A local job died: Concertina holds 2.
    send({ type: 'resources', size: 2 });
    await a.sync();
    expect([a.size, a.target]).toEqual([2, 2]);
  });

  // An evolving application at 1 asked for 3, then for 1 again; Concertina (wrongly) reports 0, then the grow of 2.
  // Taking the 0 as lost processors, it once went to target 0 and, when the grow came, asked again for `update 0`.
  it('keeps its min when Concertina reports fewer, with a warning, and never asks for an update below min', async () => {
    const warn = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const a = await start({ size: 1, min: 1, max: 3 });
      await a.update(3);
      await a.update(1);
      send({ type: 'resources', size: 0 }, { type: 'resources', size: 2 });
      await a.sync();
      expect(written().slice(1)).toEqual([
        { seq: 2, type: 'update', processors: 3 },
        { seq: 3, type: 'update', processors: 1 },
      ]);
      expect([a.size, a.target]).toEqual([1, 1]);
      expect(warn).toHaveBeenCalledWith(
        expect.stringMatching(/resources: Concertina holds 0 processors, below this application's min 1/),
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('reads only complete lines, skips bad ones with a warning naming the line, and skips seqs seen', async () => {
    const warn = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const a = await start({ size: 1, min: 1, max: 4 });
      appendFileSync(
        path.join(dir, 'to-app.jsonl'),
        `${encodeLine(1, { type: 'resources', size: 1 })}\nnot json\n${encodeLine(1, { type: 'offer', offerId: 9, processors: 1 })}\n{"v":1,"seq":2,"type":"offer","offerId":4,`,
      );
      await a.sync();
      expect(written()).toHaveLength(1);
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/to-app\.jsonl:2: not JSON/));
      appendFileSync(path.join(dir, 'to-app.jsonl'), '"processors":1}\n');
      await a.sync();
      expect(written().at(-1)).toEqual({ seq: 2, type: 'offerAnswer', offerId: 4, accepted: 1 });
    } finally {
      warn.mockRestore();
    }
  });

  it('an application restarted in the same directory goes on numbering after a partial last line', async () => {
    writeFileSync(
      path.join(dir, 'from-app.jsonl'),
      `${encodeLine(1, { type: 'progress', fraction: 0.1 })}\n{"v":1,"seq":2,"type":"prog`,
    );
    const a = await start({ size: 1 });
    a.progress(0.5, 'again');
    a.done(true);
    const lines = readFileSync(path.join(dir, 'from-app.jsonl'), 'utf8').trimEnd().split('\n');
    // The partial line is ended and counted: numbering goes on above any seq it may hold.
    expect(lines.slice(2).map((l) => JSON.parse(l).seq)).toEqual([3, 4, 5]);
    a.progress(0.9);
    expect(readFileSync(path.join(dir, 'from-app.jsonl'), 'utf8').trimEnd().split('\n')).toHaveLength(lines.length);
  });

  it('refuses a missing job directory and sizes outside min..max, naming the variable', async () => {
    const saved = process.env.CONCERTINA_JOB_DIR;
    delete process.env.CONCERTINA_JOB_DIR;
    try {
      await expect(connect({ size: 1 })).rejects.toThrow(/CONCERTINA_JOB_DIR/);
    } finally {
      if (saved !== undefined) process.env.CONCERTINA_JOB_DIR = saved;
    }
    await expect(connect({ dir, size: 5, min: 1, max: 4 })).rejects.toThrow(
      /CONCERTINA_SIZE \(5\) must lie within 1\.\.4/,
    );
    await expect(connect({ dir, size: 2, min: 3, max: 1 })).rejects.toThrow(/CONCERTINA_MIN/);
  });
});
