// The JSON-lines reader, whatever the moments the file is read at: any split of a stream into chunks (cut anywhere,
// inside multi-byte characters too) decodes to the same messages and errors as reading it whole, and readers that
// start over from the top (a console restart) hand out every message exactly once.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFromApp, encodeLine, type FromAppBody, type FromAppMessage } from '../../runners/protocol/messages.js';
import { JsonLinesReader } from '../../runners/protocol/reader.js';

const note = fc.option(fc.string({ unit: 'grapheme', maxLength: 12 }), { nil: undefined });
const body: fc.Arbitrary<FromAppBody> = fc.oneof(
  fc.record({ type: fc.constant('progress' as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }), note }),
  fc.record({ type: fc.constant('offerAnswer' as const), offerId: fc.nat(1000), accepted: fc.nat(64) }),
  fc.record({ type: fc.constant('released' as const), processors: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ type: fc.constant('done' as const), ok: fc.boolean(), note }),
);
/** Each entry: a message, or a bad line (its text has no newline). */
const entries = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: body },
    {
      weight: 1,
      arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }).map((t) => ({ bad: t.replaceAll('\n', ' ') })),
    },
  ),
  {
    maxLength: 30,
  },
);

function stream(list: readonly (FromAppBody | { bad: string })[]): Buffer {
  let seq = 0;
  const lines = list.map((e) =>
    'bad' in e ? `#${e.bad}` : encodeLine(++seq, JSON.parse(JSON.stringify(e)) as FromAppBody),
  );
  return Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
}

const FILE = 'from-app.jsonl';
const newReader = (lastSeq = 0) => new JsonLinesReader<FromAppMessage>(FILE, decodeFromApp, lastSeq);

/** Reads `bytes` as it grows to each cut, from the reader's offset, as the channel does; then to the end. */
function readGrowing(reader: JsonLinesReader<FromAppMessage>, bytes: Buffer, cuts: readonly number[]) {
  const messages: FromAppMessage[] = [];
  const errors: string[] = [];
  for (const end of [...cuts, bytes.length]) {
    const result = reader.read(bytes.subarray(reader.offset, Math.max(reader.offset, end)).toString('utf8'));
    messages.push(...result.messages);
    errors.push(...result.errors.map((e) => e.message));
  }
  return { messages, errors };
}

describe('JsonLinesReader over any split', () => {
  it('decodes the same messages and errors as one read of the whole stream', () => {
    fc.assert(
      fc.property(
        entries,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
        (list, fractions) => {
          const bytes = stream(list);
          const whole = newReader().read(bytes.toString('utf8'));
          const cuts = fractions.map((f) => Math.floor(f * bytes.length)).sort((a, b) => a - b);
          const split = readGrowing(newReader(), bytes, cuts);
          expect(split.messages).toEqual(whole.messages);
          expect(split.errors).toEqual(whole.errors.map((e) => e.message));
          expect(whole.messages.length).toBe(list.filter((e) => !('bad' in e)).length);
        },
      ),
    );
  });

  it('hands out every message once across restarted readers that read again from the top', () => {
    fc.assert(
      fc.property(
        entries,
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.boolean()), { maxLength: 10 }),
        (list, plan) => {
          const bytes = stream(list);
          const whole = newReader().read(bytes.toString('utf8')).messages;
          const delivered: FromAppMessage[] = [];
          let reader = newReader();
          for (const [fraction, restart] of [...plan].sort((a, b) => a[0] - b[0])) {
            // A restart keeps only the last seq handled, as the runner would in its store.
            if (restart) reader = newReader(reader.lastSeq);
            const end = Math.floor(fraction * bytes.length);
            delivered.push(
              ...reader.read(bytes.subarray(reader.offset, Math.max(reader.offset, end)).toString('utf8')).messages,
            );
          }
          delivered.push(...reader.read(bytes.subarray(reader.offset).toString('utf8')).messages);
          expect(delivered).toEqual(whole);
        },
      ),
    );
  });
});
