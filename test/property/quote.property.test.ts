// Quoting, against a real /bin/sh through the local runner: for any string s, `printf %s <quote(s)>` prints s
// exactly, and the `sh` template quotes every interpolated value (arrays word by word).
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalRunner } from '../../runners/shell/local-runner.js';
import { quote, sh } from '../../runners/shell/quote.js';

const runner = new LocalRunner();
afterAll(() => runner.close());

// Any Unicode text, and text made mostly of what shells treat specially.
const special = fc.constantFrom(
  "'",
  '"',
  '$',
  '`',
  '\\',
  '\n',
  '\r',
  '\t',
  ';',
  '&',
  '|',
  '(',
  ')',
  '{',
  '}',
  '<',
  '>',
  '*',
  '?',
  '[',
  '!',
  '#',
  '~',
  '%',
  '-',
  ' ',
  'é',
  '😀',
);
const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: special })).filter((s) => !s.includes('\0'));

describe('quote', () => {
  it('makes one shell word that /bin/sh reads back as exactly the value', async () => {
    await fc.assert(
      fc.asyncProperty(text, async (value) => {
        const result = await runner.run(`printf %s ${quote(value)}`);
        expect(result).toEqual({ stdout: value, stderr: '', code: 0 });
      }),
      { numRuns: 150 },
    );
  });

  it('quotes every value of the sh template, arrays as one word each', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(text, { maxLength: 8 }), text, async (values, single) => {
        const result = await runner.run(sh`printf '%s\\0' ${single} ${values}`.text);
        expect(result.stdout.split('\0').slice(0, -1)).toEqual([single, ...values]);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses a NUL character, which no shell argument can hold', () => {
    expect(() => quote('a\0b')).toThrow(/NUL/);
  });
});
