// The SWF parser's hand-read tokens (swf.ts: whole numbers read digit by digit, the first field that is not a number
// noted as the line is read) against the plain reading: each line trimmed, split on blanks, every field through
// Number(). Tokens of every shape: whole numbers short and past 15 digits, decimals, exponents, signs, leading zeros,
// junk, a lone '-', overflowing exponents; any ASCII blanks between them, CRLF or LF, comment and blank lines.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSwf } from '../../core/sim/workloads/swf.js';

const FIELDS = 18;

const tokenArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 2_000_000_000 }).map(String) },
  { weight: 2, arbitrary: fc.integer({ min: -3, max: 8 }).map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: 10n ** 14n, max: 10n ** 22n }).map(String) },
  { weight: 2, arbitrary: fc.tuple(fc.nat(99_999), fc.nat(999_999)).map(([a, b]) => `${a}.${b}`) },
  { weight: 1, arbitrary: fc.double({ min: -1e12, max: 1e12, noNaN: true }).map(String) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '-',
      '--5',
      'abc',
      '1e999',
      '-1e999',
      'Infinity',
      'NaN',
      '0x10',
      '007',
      '+5',
      '-0',
      '4.0',
      '4e0',
      '.5',
      '5.',
      '.',
      '1e',
      '1_000',
      '12a',
      '9'.repeat(20),
      `1${'0'.repeat(400)}`,
    ),
  },
);

// Tokens for the fields a job needs usable (run time, processors, submit time), so that most lines make jobs.
const usableArb = fc.oneof(fc.integer({ min: 1, max: 5000 }).map(String), tokenArb);

const dataLineArb: fc.Arbitrary<string[]> = fc.oneof(
  { weight: 8, arbitrary: fc.array(fc.oneof(usableArb, tokenArb), { minLength: FIELDS, maxLength: FIELDS }) },
  { weight: 1, arbitrary: fc.array(usableArb, { minLength: 1, maxLength: FIELDS + 2 }) },
);

const blankArb = fc.constantFrom(' ', '  ', '\t', ' \t ', '\v', '\f', '   ');

const lineArb: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc
      .tuple(dataLineArb, fc.array(blankArb, { minLength: FIELDS + 2, maxLength: FIELDS + 2 }), fc.boolean())
      .map(
        ([tokens, blanks, indent]) => (indent ? blanks[0]! : '') + tokens.map((t, k) => t + blanks[k + 1]!).join(''),
      ),
  },
  { weight: 1, arbitrary: fc.constantFrom('', '   ', '; Note: a comment', '  ; indented comment', ';') },
);

const textArb = fc
  .tuple(fc.array(lineArb, { maxLength: 12 }), fc.constantFrom('\n', '\r\n'))
  .map(([lines, end]) => lines.join(end));

interface Read {
  jobs: Array<{ id: string; processors: number; submit: number; runtime: number; walltime: number }>;
  skipped: Array<{ line: number; cause: string; reason?: string }>;
}

/** The plain reading, with swf.ts's rules for which records make jobs. */
function reference(text: string): Read {
  const read: Read = { jobs: [], skipped: [] };
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith(';')) return;
    const tokens = trimmed.split(/\s+/);
    if (tokens.length !== FIELDS) {
      const reason = `malformed: has ${tokens.length} fields, SWF needs ${FIELDS}`;
      return read.skipped.push({ line, cause: 'malformed line', reason });
    }
    const bad = tokens.findIndex((t) => !Number.isFinite(Number(t)));
    if (bad >= 0) {
      const reason = `malformed: field ${bad + 1} "${tokens[bad]}" is not a number`;
      return read.skipped.push({ line, cause: 'malformed line', reason });
    }
    const v = tokens.map(Number);
    const [jobNumber, submit, , runtime, allocated, , , requested, requestedTime] = v as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const processors = allocated >= 1 ? allocated : requested;
    const cause = !(runtime > 0)
      ? 'run time not positive'
      : !(processors >= 1)
        ? 'no processor count'
        : !Number.isInteger(processors)
          ? 'processor count not whole'
          : !(submit >= 0)
            ? 'submit time unknown'
            : undefined;
    if (cause !== undefined) return read.skipped.push({ line, cause });
    const walltime = requestedTime > 0 ? requestedTime : runtime;
    return read.jobs.push({ id: `swf-${jobNumber}`, processors, submit, runtime, walltime });
  });
  const earliest = Math.min(...read.jobs.map((j) => j.submit));
  for (const job of read.jobs) job.submit -= earliest;
  return read;
}

/** The parse of `text`, given as a string or as its UTF-8 bytes (as the CLI reads a file). */
function parsed(text: string | Uint8Array): Read {
  const r = parseSwf(text, 't');
  if (!r.ok) throw new Error('a lenient parse always succeeds');
  return {
    jobs: r.value.jobs.map((j) => ({
      id: j.id!,
      processors: j.components[0]!.processors!,
      submit: j.submitTime,
      runtime: (j.app as { runtime: number }).runtime,
      walltime: j.walltime!,
    })),
    skipped: r.value.skipped.map((s) =>
      s.cause === 'malformed line'
        ? { line: s.line, cause: s.cause, reason: s.reason }
        : { line: s.line, cause: s.cause },
    ),
  };
}

describe('SWF tokens read by hand', () => {
  it('give the jobs and skipped lines that splitting and Number() give', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(parsed(text)).toEqual(reference(text));
        expect(parsed(new TextEncoder().encode(text))).toEqual(reference(text));
      }),
      { numRuns: 400 },
    );
  });

  it('read from the UTF-8 bytes give what the text gives, non-ASCII junk and comments included', () => {
    // Not Unicode blanks: the tokenizer splits on ASCII blanks only, where the reference's split(/\s+/) takes them all.
    const junkArb = fc.constantFrom('\u00e9t\u00e9', '\u{1f600}', '1\u20ac', '\u03a95', '\u00e9');
    const unicodeLineArb = fc.oneof(
      lineArb,
      fc.array(fc.oneof(usableArb, junkArb), { minLength: FIELDS, maxLength: FIELDS }).map((t) => t.join(' ')),
      junkArb.map((j) => `; Note: ${j}`),
    );
    fc.assert(
      fc.property(fc.array(unicodeLineArb, { maxLength: 12 }), (lines) => {
        const text = lines.join('\n');
        const bytes = new TextEncoder().encode(text);
        expect(parsed(bytes)).toEqual(reference(text));
        // The header's comments and the skipped lines' reasons are decoded from the bytes whole.
        expect(parseSwf(bytes, 't')).toEqual(parseSwf(text, 't'));
      }),
      { numRuns: 300 },
    );
  });
});
