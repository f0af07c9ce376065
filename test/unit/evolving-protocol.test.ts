// The application control protocol's evolving-job messages: `update` (application -> Concertina), `refused` and a
// shrink's `deadline` (Concertina -> application), through the schemas, the core's ApplicationPort over a local job
// directory (RemoteApplications + AppChannel on the local shell), the Node SDK and the POSIX shell helper.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connect, type ConcertinaApp, type ConnectOptions } from '../../assets/sdk/concertina-app.mjs';
import type { ApplicationMessage } from '../../core/ports.js';
import { RemoteApplications, type ProtocolViolation } from '../../runners/protocol/application-port.js';
import { AppChannel } from '../../runners/protocol/channel.js';
import {
  decodeFromApp,
  decodeToApp,
  encodeLine,
  type FromAppMessage,
  type ToAppBody,
  type ToAppMessage,
} from '../../runners/protocol/messages.js';
import { LocalRunner } from '../../runners/shell/local-runner.js';

const SHELL_SDK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../assets/sdk/concertina-app.sh');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'concertina-evolving-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const lines = (file: string) => readFileSync(path.join(dir, file), 'utf8').trimEnd().split('\n').filter(Boolean);

describe('evolving messages', () => {
  it('decodes an update with and without announceS, a refusal, and a shrink with and without a deadline', () => {
    expect(decodeFromApp('{"v":1,"seq":3,"type":"update","processors":6,"announceS":30}')).toEqual({
      ok: true,
      message: { v: 1, seq: 3, type: 'update', processors: 6, announceS: 30 },
    });
    expect(decodeFromApp(encodeLine(4, { type: 'update', processors: 2 }))).toEqual({
      ok: true,
      message: { v: 1, seq: 4, type: 'update', processors: 2 },
    });
    expect(decodeToApp(encodeLine(2, { type: 'refused', reason: 'outside 1..8' }))).toEqual({
      ok: true,
      message: { v: 1, seq: 2, type: 'refused', reason: 'outside 1..8' },
    });
    const withDeadline = encodeLine(5, {
      type: 'shrink',
      offerId: 1,
      processors: 2,
      mandatory: true,
      deadline: 1_763_900_000_123,
    });
    expect(decodeToApp(withDeadline)).toEqual({
      ok: true,
      message: {
        v: 1,
        seq: 5,
        type: 'shrink',
        offerId: 1,
        processors: 2,
        mandatory: true,
        deadline: 1_763_900_000_123,
      },
    });
    // The v1 shrink without a deadline is still what it was.
    expect(decodeToApp('{"v":1,"seq":6,"type":"shrink","offerId":2,"processors":1,"mandatory":false}')).toEqual({
      ok: true,
      message: { v: 1, seq: 6, type: 'shrink', offerId: 2, processors: 1, mandatory: false },
    });
  });

  it.each([
    ['{"v":1,"seq":1,"type":"update"}', /^processors: /],
    ['{"v":1,"seq":1,"type":"update","processors":0}', /^processors: /],
    ['{"v":1,"seq":1,"type":"update","processors":2.5}', /^processors: /],
    ['{"v":1,"seq":1,"type":"update","processors":3,"announceS":-1}', /^announceS: /],
    ['{"v":1,"seq":1,"type":"update","processors":3,"announceS":"soon"}', /^announceS: /],
  ])('names the bad field of %s', (line, reason) => {
    const decoded = decodeFromApp(line);
    expect(decoded.ok).toBe(false);
    expect(!decoded.ok && decoded.reason).toMatch(reason);
  });

  it('names the bad field of a refusal and of a deadline, and keeps each direction to its own types', () => {
    const refused = decodeToApp('{"v":1,"seq":1,"type":"refused","reason":7}');
    expect(!refused.ok && refused.reason).toMatch(/^reason: /);
    const deadline = decodeToApp(
      '{"v":1,"seq":1,"type":"shrink","offerId":1,"processors":1,"mandatory":true,"deadline":-5}',
    );
    expect(!deadline.ok && deadline.reason).toMatch(/^deadline: /);
    expect(decodeToApp('{"v":1,"seq":1,"type":"update","processors":2}')).toEqual({
      ok: false,
      reason: expect.stringMatching(/^type: must be one of .*refused.* \(got "update"\)$/),
    });
    expect(decodeFromApp('{"v":1,"seq":1,"type":"refused","reason":"x"}')).toEqual({
      ok: false,
      reason: expect.stringMatching(/^type: must be one of .*update.* \(got "refused"\)$/),
    });
  });

  it('decodes back every update it encodes (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 1e9 }),
        fc.option(fc.double({ min: 0, max: 1e6, noNaN: true }), { nil: undefined }),
        (processors, seq, announceS) => {
          const body =
            announceS === undefined
              ? { type: 'update' as const, processors }
              : { type: 'update' as const, processors, announceS };
          expect(decodeFromApp(encodeLine(seq, body))).toEqual({ ok: true, message: { v: 1, seq, ...body } });
        },
      ),
    );
  });
});

describe('RemoteApplications with an evolving job (local job directory)', () => {
  const runner = new LocalRunner({ defaultTimeoutMs: 10_000 });
  afterAll(() => runner.close());

  async function setUp(graceMs = 1_000) {
    const channel = new AppChannel(runner);
    const jobDir = path.join(dir, 'job');
    await channel.create(jobDir);
    const delivered: ApplicationMessage[] = [];
    const violations: ProtocolViolation[] = [];
    const problems: string[] = [];
    const clock = { ms: 1_000_000 };
    const port = new RemoteApplications({
      deliver: (m) => delivered.push(m),
      onViolation: (v) => violations.push(v),
      onProblem: (p) => problems.push(p.message),
      graceMs,
      now: () => clock.ms,
      // Scheduler time 0 is the port's clock at 1000 s.
      schedulerTimeToMs: (t) => 1_000_000 + t * 1000,
      jobs: [['evo', { channel, jobDir }]],
    });
    const appWrites = (...bodies: Parameters<typeof encodeLine>[1][]) => {
      const start = lines('job/from-app.jsonl').length;
      appendFileSync(
        path.join(jobDir, 'from-app.jsonl'),
        bodies.map((b, i) => `${encodeLine(start + i + 1, b)}\n`).join(''),
      );
    };
    /** What the port wrote for the application, once `count` lines are there (its sends are not awaited). */
    const toApp = async (count: number): Promise<ToAppMessage[]> => {
      for (let i = 0; i < 500 && lines('job/to-app.jsonl').length < count; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      return lines('job/to-app.jsonl').map((l) => {
        const d = decodeToApp(l);
        if (!d.ok) throw new Error(d.reason);
        return d.message;
      });
    };
    return { jobDir, port, delivered, violations, problems, clock, appWrites, toApp };
  }

  it("delivers the application's updates to the scheduler in order, announceS only when given", async () => {
    const s = await setUp();
    s.appWrites(
      { type: 'hello', pid: 1, size: 2, sdk: 't' },
      { type: 'update', processors: 5 },
      { type: 'update', processors: 7, announceS: 12.5 },
      { type: 'update', processors: 3, announceS: 0 },
    );
    await s.port.poll();
    expect(s.delivered).toEqual([
      { type: 'update', jobId: 'evo', processors: 5 },
      { type: 'update', jobId: 'evo', processors: 7, announceS: 12.5 },
      { type: 'update', jobId: 'evo', processors: 3, announceS: 0 },
    ]);
    expect(s.problems).toEqual([]);
  });

  it('reports a malformed update with its file and line, and loses nothing after it', async () => {
    const s = await setUp();
    appendFileSync(
      path.join(s.jobDir, 'from-app.jsonl'),
      ['{"v":1,"seq":1,"type":"update","processors":-2}', encodeLine(2, { type: 'update', processors: 4 }), ''].join(
        '\n',
      ),
    );
    await s.port.poll();
    expect(s.problems).toEqual([expect.stringMatching(/job\/from-app\.jsonl:1: processors: /)]);
    expect(s.delivered).toEqual([{ type: 'update', jobId: 'evo', processors: 4 }]);
  });

  it("writes a refusal with its reason, and a shrink with its deadline in the application's wall-clock ms", async () => {
    const s = await setUp();
    s.port.updateRefused('evo', 'job evo: 9 processors is outside its 1..8');
    s.port.requestShrink(4, 'evo', 2, true, 30);
    s.port.resized('evo', 6);
    expect(await s.toApp(3)).toEqual([
      { v: 1, seq: 1, type: 'refused', reason: 'job evo: 9 processors is outside its 1..8' },
      { v: 1, seq: 2, type: 'shrink', offerId: 4, processors: 2, mandatory: true, deadline: 1_030_000 },
      { v: 1, seq: 3, type: 'resources', size: 6 },
    ]);
  });

  it('runs the grace period of a shrink with a deadline from the deadline, and from the request without one', async () => {
    const s = await setUp(1_000);
    // Deadline 20 s ahead (scheduler time 20 = port time 1_020_000 ms); another shrink without one.
    s.port.requestShrink(1, 'evo', 2, true, 20);
    s.port.requestShrink(2, 'evo', 1, true);
    await s.toApp(2);
    s.clock.ms += 1_500;
    await s.port.poll();
    expect(s.violations.map((v) => v.offerId)).toEqual([2]);
    s.clock.ms = 1_020_500;
    await s.port.poll();
    expect(s.violations.map((v) => v.offerId)).toEqual([2]);
    s.clock.ms = 1_021_000;
    await s.port.poll();
    expect(s.violations.map((v) => v.offerId)).toEqual([2, 1]);
  });
});

describe('Node SDK for evolving applications', () => {
  let app: ConcertinaApp | undefined;
  let toAppSeq = 0;
  beforeEach(() => {
    toAppSeq = 0;
  });
  afterEach(() => {
    app?.close();
    app = undefined;
  });
  const send = (...bodies: ToAppBody[]) =>
    appendFileSync(path.join(dir, 'to-app.jsonl'), bodies.map((b) => `${encodeLine(++toAppSeq, b)}\n`).join(''));
  type Written = FromAppMessage extends infer M ? (M extends unknown ? Omit<M, 'v'> : never) : never;
  const written = (): Written[] =>
    lines('from-app.jsonl').map((l) => {
      const d = decodeFromApp(l);
      if (!d.ok) throw new Error(`bad line ${l}: ${d.reason}`);
      const { v: _v, ...rest } = d.message;
      return rest as Written;
    });
  const start = async (options: ConnectOptions) => (app = await connect({ dir, pollMs: 60_000, ...options }));

  it('asks to grow, and takes the processors into use only once Concertina says it holds them', async () => {
    const sizes: number[] = [];
    const a = await start({ size: 2, min: 1, max: 8, onResized: (n) => void sizes.push(n) });
    expect(await a.update(6, { announceS: 20 })).toBe(true);
    expect(written().at(-1)).toEqual({ seq: 2, type: 'update', processors: 6, announceS: 20 });
    expect([a.size, a.target]).toEqual([2, 6]);
    // Asking again for what it already asked for sends nothing.
    expect(await a.update(6)).toBe(false);
    await a.sync();
    expect(a.size).toBe(2);
    send({ type: 'resources', size: 6 });
    await a.sync();
    expect([a.size, a.target]).toEqual([6, 6]);
    expect(sizes).toEqual([6]);
  });

  it('lets its last processors go before it asks for fewer', async () => {
    const order: string[] = [];
    const a = await start({
      size: 5,
      min: 1,
      max: 8,
      onResized: (n) => void order.push(`resized ${n} with ${written().length} lines`),
    });
    expect(await a.update(2)).toBe(true);
    expect(order).toEqual(['resized 2 with 1 lines']);
    expect(written().at(-1)).toEqual({ seq: 2, type: 'update', processors: 2 });
    expect([a.size, a.target]).toEqual([2, 2]);
  });

  it('surfaces a refusal and goes on at the size Concertina holds', async () => {
    const refusals: string[] = [];
    const a = await start({ size: 2, min: 1, max: 8, onRefused: (reason) => void refusals.push(reason) });
    await a.update(7);
    send({ type: 'refused', reason: 'the pre-allocation holds 6' });
    expect(a.refusal).toBeUndefined();
    await a.sync();
    expect(refusals).toEqual(['the pre-allocation holds 6']);
    expect(a.refusal).toBe('the pre-allocation holds 6');
    expect([a.size, a.target]).toEqual([2, 2]);
  });

  it('asks again for what it uses when a grow it no longer wanted arrives after its smaller update was refused', async () => {
    const a = await start({ size: 4, min: 1, max: 8 });
    await a.update(5);
    // Before the grow is active it wants 3: it lets one go and asks; Concertina refuses while the grow runs.
    await a.update(3);
    send({ type: 'refused', reason: 'an earlier update is still being activated' }, { type: 'resources', size: 5 });
    await a.sync();
    expect([a.size, a.target]).toEqual([3, 3]);
    expect(
      written()
        .slice(1)
        .map((m) => m.type === 'update' && m.processors),
    ).toEqual([5, 3, 3]);
    // Granted this time: nothing more to say.
    send({ type: 'resources', size: 3 });
    await a.sync();
    expect(written()).toHaveLength(4);
  });

  it('refuses sizes outside min..max and announced shrinks, writing nothing', async () => {
    const a = await start({ size: 4, min: 2, max: 6 });
    await expect(a.update(7)).rejects.toThrow(/within 2\.\.6/);
    await expect(a.update(1)).rejects.toThrow(/within 2\.\.6/);
    await expect(a.update(3, { announceS: 5 })).rejects.toThrow(/only a grow can be announced/);
    await expect(a.update(5, { announceS: -1 })).rejects.toThrow(/announceS/);
    expect(written()).toHaveLength(1);
  });

  it("hands a shrink's deadline to onShrink, and releases at once without releaseBeforeDeadlineMs", async () => {
    const seen: Array<number | undefined> = [];
    const a = await start({
      size: 4,
      min: 1,
      max: 4,
      onShrink: (n, _m, _app, { deadline }) => {
        seen.push(deadline);
        return n;
      },
    });
    send(
      { type: 'shrink', offerId: 3, processors: 1, mandatory: true, deadline: Date.now() + 60_000 },
      { type: 'shrink', offerId: 4, processors: 1, mandatory: true },
    );
    await a.sync();
    expect(seen).toEqual([expect.any(Number), undefined]);
    expect(
      written()
        .slice(1)
        .map((m) => m.type),
    ).toEqual(['shrinkAnswer', 'released', 'shrinkAnswer', 'released']);
    expect(a.size).toBe(2);
  });

  it('with releaseBeforeDeadlineMs, keeps using the processors until the deadline is near, then releases them in order', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const base = Date.now();
      const a = await start({ size: 5, min: 1, max: 5, releaseBeforeDeadlineMs: 1_000 });
      send(
        { type: 'shrink', offerId: 1, processors: 2, mandatory: true, deadline: base + 10_000 },
        { type: 'shrink', offerId: 2, processors: 1, mandatory: true, deadline: base + 20_000 },
      );
      await a.sync();
      expect(written().slice(1)).toEqual([
        { seq: 2, type: 'shrinkAnswer', offerId: 1, accepted: 2 },
        { seq: 3, type: 'shrinkAnswer', offerId: 2, accepted: 1 },
      ]);
      expect([a.size, a.target, a.releasing]).toEqual([5, 2, 3]);
      // A new size from Concertina meanwhile does not take the promised processors away before their release.
      send({ type: 'resources', size: 5 });
      await a.sync();
      expect([a.size, a.releasing]).toEqual([5, 3]);
      vi.setSystemTime(base + 9_000);
      await a.sync();
      expect(written().at(-1)).toEqual({ seq: 4, type: 'released', processors: 2, offerId: 1 });
      expect([a.size, a.releasing]).toEqual([3, 1]);
      // A further shrink cannot take what is already promised.
      send({ type: 'shrink', offerId: 3, processors: 5, mandatory: true });
      await a.sync();
      expect(written().slice(-2)).toEqual([
        { seq: 5, type: 'shrinkAnswer', offerId: 3, accepted: 1 },
        { seq: 6, type: 'released', processors: 1, offerId: 3 },
      ]);
      vi.setSystemTime(base + 19_500);
      await a.sync();
      expect(written().at(-1)).toEqual({ seq: 7, type: 'released', processors: 1, offerId: 2 });
      expect([a.size, a.target, a.releasing]).toEqual([1, 1, 0]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('Node SDK against an honest runner (property)', () => {
  type Op =
    | { kind: 'offer'; processors: number }
    | { kind: 'shrink'; processors: number; mandatory: boolean }
    | { kind: 'update'; processors: number }
    | { kind: 'refuseNextUpdate' };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant('offer' as const), processors: fc.integer({ min: 1, max: 6 }) }),
    fc.record({
      kind: fc.constant('shrink' as const),
      processors: fc.integer({ min: 1, max: 6 }),
      mandatory: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('update' as const), processors: fc.integer({ min: 1, max: 8 }) }),
    fc.constant({ kind: 'refuseNextUpdate' as const }),
  );

  it('never uses more than Concertina holds, stays within min..max, writes only valid lines, and ends up using what it holds', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 3, max: 8 }),
        fc.array(op, { maxLength: 12 }),
        async (min, max, ops) => {
          const jobDir = mkdtempSync(path.join(dir, 'p-'));
          const app = await connect({ dir: jobDir, size: min, min, max, pollMs: 60_000, progressIntervalMs: 60_000 });
          try {
            // The runner's side: what Concertina holds, the lines it has read, and what it writes.
            let held = min;
            let read = 0;
            let seq = 0;
            let offerId = 0;
            let refuseNext = false;
            const offered = new Map<number, number>();
            const send = (body: ToAppBody) =>
              appendFileSync(path.join(jobDir, 'to-app.jsonl'), `${encodeLine(++seq, body)}\n`);
            const readAppLines = () => {
              const all = readFileSync(path.join(jobDir, 'from-app.jsonl'), 'utf8').trimEnd().split('\n');
              const fresh = all.slice(read);
              read = all.length;
              for (const line of fresh) {
                const d = decodeFromApp(line);
                if (!d.ok) throw new Error(`invalid line ${line}: ${d.reason}`);
                const m = d.message;
                if (m.type === 'offerAnswer') {
                  expect(m.accepted).toBeLessThanOrEqual(offered.get(m.offerId)!);
                  held += m.accepted;
                  send({ type: 'resources', size: held });
                } else if (m.type === 'released') {
                  held -= m.processors;
                  send({ type: 'resources', size: held });
                } else if (m.type === 'update') {
                  expect(m.processors).toBeGreaterThanOrEqual(min);
                  expect(m.processors).toBeLessThanOrEqual(max);
                  if (refuseNext) {
                    refuseNext = false;
                    send({ type: 'refused', reason: 'not now' });
                  } else {
                    held = m.processors;
                    send({ type: 'resources', size: held });
                  }
                }
              }
              return fresh.length;
            };
            const check = () => {
              expect(app.size).toBeLessThanOrEqual(held);
              expect(app.size).toBeGreaterThanOrEqual(min);
              expect(app.size).toBeLessThanOrEqual(max);
            };
            for (const o of ops) {
              if (o.kind === 'offer') {
                offered.set(++offerId, o.processors);
                send({ type: 'offer', offerId, processors: o.processors });
              } else if (o.kind === 'shrink')
                send({ type: 'shrink', offerId: ++offerId, processors: o.processors, mandatory: o.mandatory });
              else if (o.kind === 'refuseNextUpdate') refuseNext = true;
              else if (o.processors >= min && o.processors <= max) await app.update(o.processors);
              check();
              await app.sync();
              check();
              readAppLines();
            }
            // Concertina says what it holds (as it does once the grow that made it refuse a smaller size is active);
            // once nothing more is said on either side, the application uses exactly that.
            refuseNext = false;
            send({ type: 'resources', size: held });
            for (let round = 0; round < 6; round++) {
              await app.sync();
              check();
              if (readAppLines() === 0) break;
            }
            expect([app.size, app.target]).toEqual([held, held]);
          } finally {
            app.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('POSIX shell helper for evolving applications', () => {
  function sh(script: string) {
    const result = spawnSync('/bin/sh', ['-c', `. "$SDK"; concertina_init || exit 9\n${script}`], {
      env: { PATH: process.env.PATH, SDK: SHELL_SDK, CONCERTINA_JOB_DIR: dir, CONCERTINA_SIZE: '2' },
      encoding: 'utf8',
    });
    return result;
  }

  it('writes updates Concertina decodes, announced or not, and refuses a bad count', () => {
    const r = sh(
      'concertina_update 5 && concertina_update 7 30 && concertina_update 3 0 && concertina_update -1; echo "status $?"',
    );
    expect(r.stdout.trim()).toBe('status 2');
    expect(r.stderr).toMatch(/processors must be a whole number/);
    const decoded = lines('from-app.jsonl').map((l) => decodeFromApp(l));
    expect(decoded.map((d) => d.ok && d.message)).toEqual([
      expect.objectContaining({ type: 'hello', size: 2 }),
      { v: 1, seq: 2, type: 'update', processors: 5 },
      { v: 1, seq: 3, type: 'update', processors: 7, announceS: 30 },
      { v: 1, seq: 4, type: 'update', processors: 3 },
    ]);
  });

  it("reads a refusal's reason and a shrink's deadline", () => {
    const reason = 'job "evo": 9 is outside 1..8 \\ see log';
    appendFileSync(
      path.join(dir, 'to-app.jsonl'),
      `${encodeLine(1, { type: 'refused', reason })}\n${encodeLine(2, { type: 'shrink', offerId: 3, processors: 1, mandatory: true, deadline: 1_763_900_000_123 })}\n`,
    );
    const r = sh(`concertina_read
printf '%s\\n' "$CONCERTINA_MESSAGES" | while IFS= read -r m; do
  [ -n "$m" ] || continue
  case $(concertina_type "$m") in
    refused) printf 'refused=%s\\n' "$(concertina_text "$m" reason)" ;;
    shrink) printf 'deadline=%s\\n' "$(concertina_field "$m" deadline)" ;;
  esac
done`);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n').filter(Boolean)).toEqual([`refused=${reason}`, 'deadline=1763900000123']);
  });
});
