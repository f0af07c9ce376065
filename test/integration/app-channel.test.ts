// The AppChannel on this machine through the local CommandRunner (/bin/sh -s, as over SSH): appends to to-app.jsonl,
// one poll script for many jobs, partial lines, missing and replaced files, a restarted console, and job
// directories whose names would break an unquoted script.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppChannel, newCompleteLines, parsePollOutput } from '../../runners/protocol/channel.js';
import { decodeToApp, encodeLine } from '../../runners/protocol/messages.js';
import { LocalRunner } from '../../runners/shell/local-runner.js';

let root: string;
const runner = new LocalRunner({ defaultTimeoutMs: 20_000 });

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'concertina-channel-'));
});
afterAll(async () => {
  await runner.close();
  rmSync(root, { recursive: true, force: true });
});

let dirs = 0;
/** A fresh job directory, created through the channel; `name` may hold anything a path can. */
async function jobDir(channel: AppChannel, name = `job${++dirs}`): Promise<string> {
  const dir = path.join(root, name);
  await channel.create(dir);
  return dir;
}

const line = (seq: number, body: Parameters<typeof encodeLine>[1]) => `${encodeLine(seq, body)}\n`;

describe('AppChannel', () => {
  it('appends numbered lines to to-app.jsonl, in the order sent, and a restarted channel goes on numbering', async () => {
    const channel = new AppChannel(runner);
    const dir = await jobDir(channel);
    const seqs = await Promise.all([
      channel.send(dir, { type: 'offer', offerId: 1, processors: 3 }),
      channel.send(dir, { type: 'resources', size: 4 }),
      channel.send(dir, { type: 'shrink', offerId: 2, processors: 1, mandatory: true }),
    ]);
    expect(seqs).toEqual([1, 2, 3]);
    const again = new AppChannel(runner);
    expect(await again.send(dir, { type: 'stop', reason: 'it\'s "over"; $(touch x)' })).toBe(4);
    const lines = readFileSync(path.join(dir, 'to-app.jsonl'), 'utf8').trimEnd().split('\n').map(decodeToApp);
    expect(lines.map((l) => l.ok && [l.message.seq, l.message.type])).toEqual([
      [1, 'offer'],
      [2, 'resources'],
      [3, 'shrink'],
      [4, 'stop'],
    ]);
    expect(lines[3]!.ok && lines[3]!.message).toMatchObject({ reason: 'it\'s "over"; $(touch x)' });
  });

  it('ends a partial last line before appending, so the new line stays whole', async () => {
    const channel = new AppChannel(runner);
    const dir = await jobDir(channel);
    writeFileSync(path.join(dir, 'to-app.jsonl'), `${line(1, { type: 'resources', size: 2 })}{"v":1,"seq":2,"ty`);
    expect(await channel.send(dir, { type: 'resources', size: 3 })).toBe(3);
    const last = readFileSync(path.join(dir, 'to-app.jsonl'), 'utf8').trimEnd().split('\n').at(-1)!;
    expect(decodeToApp(last)).toMatchObject({ ok: true, message: { seq: 3, size: 3 } });
  });

  it('refuses a relative job directory, an invalid message and a directory that does not exist', async () => {
    const channel = new AppChannel(runner);
    await expect(channel.send('jobs/j1', { type: 'resources', size: 1 })).rejects.toThrow(/absolute path/);
    await expect(channel.send(root, { type: 'offer', offerId: 1, processors: 0 })).rejects.toThrow(
      /invalid offer message: processors: /,
    );
    await expect(channel.send(path.join(root, 'absent'), { type: 'resources', size: 1 })).rejects.toThrow(
      /does not exist/,
    );
  });

  it('reads every job in one poll: new complete lines only, a missing file, bad lines named', async () => {
    const channel = new AppChannel(runner);
    const a = await jobDir(channel);
    const b = await jobDir(channel);
    const absent = path.join(root, 'not-started');
    const fromA = path.join(a, 'from-app.jsonl');
    appendFileSync(
      fromA,
      line(1, { type: 'hello', pid: 10, size: 2, sdk: 't' }) +
        line(2, { type: 'progress', fraction: 0.5, note: 'é ☃' }) +
        '{"v":1,"seq":3,"type":"off',
    );
    appendFileSync(path.join(b, 'from-app.jsonl'), 'garbage\n' + line(1, { type: 'done', ok: true }));

    const first = await channel.poll([a, b, absent]);
    expect(first.get(a)).toMatchObject({ state: 'ok', errors: [] });
    expect(first.get(a)!.messages.map((m) => m.type)).toEqual(['hello', 'progress']);
    expect(first.get(a)!.messages[1]).toMatchObject({ note: 'é ☃' });
    expect(first.get(b)!.messages.map((m) => m.type)).toEqual(['done']);
    expect(first.get(b)!.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(new RegExp(`^local:${b}/from-app.jsonl:1: not JSON`)),
    ]);
    expect(first.get(absent)).toMatchObject({ state: 'missing', messages: [] });

    // The partial third line is completed by the application; the next poll reads it whole, and only it.
    appendFileSync(fromA, 'erAnswer","offerId":4,"accepted":2}\n');
    const second = await channel.poll([a, b]);
    expect(second.get(a)!.messages).toEqual([{ v: 1, seq: 3, type: 'offerAnswer', offerId: 4, accepted: 2 }]);
    expect(second.get(b)!.messages).toEqual([]);
    expect(channel.lastSeq(a)).toBe(3);
  });

  it('a waiting poll reads a line appended while it waits, and returns empty when none comes', async () => {
    const channel = new AppChannel(runner);
    const [a, b] = [await jobDir(channel), await jobDir(channel)];
    appendFileSync(path.join(a, 'from-app.jsonl'), line(1, { type: 'hello', pid: 1, size: 1, sdk: 't' }));
    await channel.poll([a, b]);
    expect((await channel.poll([a, b], { waitMs: 200 })).get(a)!.messages).toEqual([]);
    const polled = channel.poll([a, b], { waitMs: 15_000 });
    setTimeout(
      () => appendFileSync(path.join(b, 'from-app.jsonl'), line(1, { type: 'offerAnswer', offerId: 7, accepted: 1 })),
      300,
    );
    const result = await polled;
    expect(result.get(b)!.messages).toEqual([{ v: 1, seq: 1, type: 'offerAnswer', offerId: 7, accepted: 1 }]);
    expect(result.get(a)!.messages).toEqual([]);
  });

  it('after a restart reads from the top and skips the seqs handled before', async () => {
    const channel = new AppChannel(runner);
    const dir = await jobDir(channel);
    const file = path.join(dir, 'from-app.jsonl');
    appendFileSync(file, line(1, { type: 'released', processors: 1 }) + line(2, { type: 'released', processors: 2 }));
    await channel.poll([dir]);
    const handled = channel.lastSeq(dir);
    appendFileSync(file, line(3, { type: 'released', processors: 3 }));
    const restarted = new AppChannel(runner);
    restarted.resume(dir, handled);
    const result = (await restarted.poll([dir])).get(dir)!;
    expect(result.messages.map((m) => m.type === 'released' && m.processors)).toEqual([3]);
    expect(result.duplicates).toBe(2);
  });

  it('reads a replaced file again from the top, at the next poll', async () => {
    const channel = new AppChannel(runner);
    const dir = await jobDir(channel);
    const file = path.join(dir, 'from-app.jsonl');
    writeFileSync(
      file,
      line(1, { type: 'progress', fraction: 0.1, note: 'a long first run' }) +
        line(2, { type: 'progress', fraction: 0.2 }),
    );
    await channel.poll([dir]);
    writeFileSync(file, line(1, { type: 'hello', pid: 5, size: 1, sdk: 't' }));
    expect((await channel.poll([dir])).get(dir)).toEqual({
      state: 'replaced',
      messages: [],
      errors: [],
      duplicates: 0,
    });
    expect((await channel.poll([dir])).get(dir)!.messages.map((m) => m.type)).toEqual(['hello']);
    // Longer, but no newline where the last line read ended: also a new file.
    writeFileSync(file, line(1, { type: 'progress', fraction: 0.3, note: 'a new run with a longer first line' }));
    expect((await channel.poll([dir])).get(dir)!.state).toBe('replaced');
  });

  it('keeps directory names with quotes, $(), ;, newlines and non-ASCII as data', async () => {
    const channel = new AppChannel(runner);
    const name = `it's "a" $(touch pwned) ; \`id\` \n ünï ${'$'}HOME`;
    const dir = await jobDir(channel, name);
    await channel.send(dir, { type: 'resources', size: 2 });
    appendFileSync(path.join(dir, 'from-app.jsonl'), line(1, { type: 'done', ok: true }));
    const result = (await channel.poll([dir])).get(dir)!;
    expect(result.messages.map((m) => m.type)).toEqual(['done']);
    expect(readFileSync(path.join(dir, 'to-app.jsonl'), 'utf8')).toContain('"size":2');
    expect(() => readFileSync(path.join(root, 'pwned'))).toThrow();
    expect(() => readFileSync('pwned')).toThrow();
  });
});

describe('parsePollOutput and newCompleteLines', () => {
  const token = 'CONCERTINA-POLL-abc';
  const out = [
    '0 CONCERTINA-POLL-abc 0 ok',
    '3 one',
    '2 tw',
    '0 CONCERTINA-POLL-abc-end',
    '0 CONCERTINA-POLL-abc 1 missing',
    '0 ',
    '0 CONCERTINA-POLL-abc-end',
    '',
  ].join('\n');

  it('splits the output into one section per job, with byte counts', () => {
    expect(parsePollOutput(out, token, 2)).toEqual([
      {
        state: 'ok',
        records: [
          { text: 'one', bytes: 4 },
          { text: 'tw', bytes: 3 },
        ],
      },
      { state: 'missing', records: [{ text: '', bytes: 1 }] },
    ]);
  });

  it('keeps complete lines only, and past the start checks that the newline before the offset is still there', () => {
    const records = (...texts: string[]) => texts.map((text) => ({ text, bytes: Buffer.byteLength(text) + 1 }));
    expect(newCompleteLines(records('one', 'tw'), 0)).toEqual(records('one'));
    expect(newCompleteLines(records('', 'two', ''), 10)).toEqual(records('two'));
    expect(newCompleteLines(records('', ''), 10)).toEqual([]);
    // Nothing at all (the file is shorter than the offset), or another byte there: replaced.
    expect(newCompleteLines(records(''), 10)).toBeUndefined();
    expect(newCompleteLines(records('x', 'two', ''), 10)).toBeUndefined();
  });

  it('refuses output that was cut short or does not come from the script', () => {
    expect(() => parsePollOutput('0 CONCERTINA-POLL-abc 0 ok\n3 one\n', token, 1)).toThrow(/cut short/);
    expect(() => parsePollOutput('Welcome to the cluster!\n', token, 1)).toThrow(/unexpected poll output/);
  });
});
