// The application control protocol's messages and its incremental JSON-lines reader: partial lines, bad lines named
// by file and line, seq deduplication when a reader starts over.
import { describe, expect, it } from 'vitest';
import { decodeFromApp, decodeToApp, encodeLine, type FromAppMessage } from '../../runners/protocol/messages.js';
import { JsonLinesReader, completeLines } from '../../runners/protocol/reader.js';

const FILE = 'lab1:/jobs/j1/from-app.jsonl';
const reader = (lastSeq = 0) => new JsonLinesReader<FromAppMessage>(FILE, decodeFromApp, lastSeq);

const hello = encodeLine(1, { type: 'hello', pid: 42, size: 2, sdk: 'test' });
const answer = encodeLine(2, { type: 'offerAnswer', offerId: 7, accepted: 2 });
const released = encodeLine(3, { type: 'released', processors: 3, offerId: 8 });

describe('messages', () => {
  it('encodes v and seq first, and decodes back what was encoded', () => {
    expect(answer).toBe('{"v":1,"seq":2,"type":"offerAnswer","offerId":7,"accepted":2}');
    expect(decodeFromApp(answer)).toEqual({
      ok: true,
      message: { v: 1, seq: 2, type: 'offerAnswer', offerId: 7, accepted: 2 },
    });
    const shrink = encodeLine(4, { type: 'shrink', offerId: 3, processors: 2, mandatory: true });
    expect(decodeToApp(shrink)).toEqual({
      ok: true,
      message: { v: 1, seq: 4, type: 'shrink', offerId: 3, processors: 2, mandatory: true },
    });
  });

  it('names the field that is wrong', () => {
    const bad = decodeFromApp('{"v":1,"seq":5,"type":"progress","fraction":1.5}');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.reason).toMatch(/^fraction: /);
    const noSeq = decodeFromApp('{"v":1,"type":"done","ok":true}');
    expect(!noSeq.ok && noSeq.reason).toMatch(/^seq: /);
  });

  it('refuses an unknown type, a later protocol version, a message of the other direction and non-JSON', () => {
    expect(decodeFromApp('{"v":1,"seq":1,"type":"grow","n":2}')).toEqual({
      ok: false,
      reason: expect.stringMatching(/^type: must be one of hello, .* \(got "grow"\)$/),
    });
    expect(decodeFromApp('{"v":2,"seq":1,"type":"evolve"}')).toEqual({
      ok: false,
      reason: 'protocol version 2 is not supported (this reader knows 1)',
    });
    expect(decodeToApp(answer).ok).toBe(false);
    expect(decodeFromApp('{"v":1,"seq":1,')).toEqual({ ok: false, reason: expect.stringMatching(/^not JSON/) });
    expect(decodeFromApp('[1,2]')).toEqual({ ok: false, reason: 'not a JSON object' });
  });

  it('accepts a voluntary release (no offerId) and ignores unknown fields', () => {
    const line = '{"v":1,"seq":9,"type":"released","processors":1,"extra":"later"}';
    expect(decodeFromApp(line)).toEqual({ ok: true, message: { v: 1, seq: 9, type: 'released', processors: 1 } });
  });
});

describe('completeLines', () => {
  it('leaves out the text after the last newline and counts bytes, not characters', () => {
    expect(completeLines('ab\né\npart')).toEqual([
      { text: 'ab', bytes: 3 },
      { text: 'é', bytes: 3 },
    ]);
    expect(completeLines('no newline yet')).toEqual([]);
    expect(completeLines('')).toEqual([]);
  });
});

describe('JsonLinesReader', () => {
  it('takes complete lines only and reads the rest of a partial line at the next read', () => {
    const r = reader();
    const stream = `${hello}\n${answer}\n`;
    const cut = hello.length + 10;
    const first = r.read(stream.slice(0, cut));
    expect(first.messages.map((m) => m.seq)).toEqual([1]);
    expect(r.offset).toBe(hello.length + 1);
    const second = r.read(stream.slice(r.offset));
    expect(second.messages.map((m) => m.seq)).toEqual([2]);
    expect(r.offset).toBe(stream.length);
    expect(r.lines).toBe(2);
  });

  it('names a bad line by file and line number and loses nothing else', () => {
    const r = reader();
    const result = r.read(`${hello}\n{"v":1,"seq":2,"type":"progress"}\nnot json\n\n${released}\n`);
    expect(result.messages.map((m) => m.type)).toEqual(['hello', 'released']);
    expect(result.errors.map((e) => [e.line, e.message.split(': ')[0]])).toEqual([
      [2, `${FILE}:2`],
      [3, `${FILE}:3`],
    ]);
    expect(result.errors[0]!.message).toContain('fraction');
    // The blank line 4 is skipped without an error; the release on line 5 is read.
    expect(r.lines).toBe(5);
  });

  it('skips seqs already seen when a restarted reader reads again from the top', () => {
    const stream = `${hello}\n${answer}\n${released}\n`;
    const before = reader();
    before.read(stream.slice(0, hello.length + answer.length + 2));
    expect(before.lastSeq).toBe(2);
    const after = reader(before.lastSeq);
    const result = after.read(stream);
    expect(result.messages.map((m) => m.seq)).toEqual([3]);
    expect(result.duplicates).toBe(2);
  });

  it('skips a line written twice', () => {
    const result = reader().read(`${hello}\n${answer}\n${answer}\n${released}\n`);
    expect(result.messages.map((m) => m.seq)).toEqual([1, 2, 3]);
    expect(result.duplicates).toBe(1);
  });

  it('starts over, seqs included, when the file was replaced', () => {
    const r = reader();
    r.read(`${hello}\n${answer}\n`);
    r.restart();
    expect(r.offset).toBe(0);
    expect(r.read(`${hello}\n`).messages.map((m) => m.seq)).toEqual([1]);
  });
});
