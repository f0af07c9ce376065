// Framing several commands in one script and reading their outputs back, through a real /bin/sh.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { framedScript, newNonce, splitSections } from '../../../runners/managers/sections.js';
import { LocalRunner } from '../../../runners/shell/local-runner.js';
import { sh } from '../../../runners/shell/quote.js';

const runner = new LocalRunner();
afterAll(() => runner.close());

describe('framed scripts', () => {
  it('give each command its output, exit status and standard error, whatever surrounds them', async () => {
    const nonce = newNonce();
    const script = framedScript(nonce, {
      first: sh`printf 'one\ntwo\n'`,
      silent: sh`true`,
      failing: sh`echo 'it broke' >&2; printf 'partial'; exit 3`,
      exits: sh`exit 5`,
      after: sh`echo still runs`,
    });
    const result = await runner.run(`echo 'banner from .bashrc'\n${script.text}echo 'bye'\n`);
    const sections = splitSections(result.stdout, nonce);
    expect(Object.fromEntries(sections)).toEqual({
      first: { text: 'one\ntwo\n', code: 0, stderr: '' },
      silent: { text: '', code: 0, stderr: '' },
      failing: { text: 'partial', code: 3, stderr: 'it broke\n' },
      exits: { text: '', code: 5, stderr: '' },
      after: { text: 'still runs\n', code: 0, stderr: '' },
    });
  });

  it('keep the rest of the script from a command that reads standard input', async () => {
    const nonce = newNonce();
    const script = framedScript(nonce, { greedy: sh`cat; echo read`, next: sh`echo next` });
    const sections = splitSections((await runner.run(script.text)).stdout, nonce);
    expect(sections.get('greedy')).toEqual({ text: 'read\n', code: 0, stderr: '' });
    expect(sections.get('next')?.text).toBe('next\n');
  });

  it('carry any output through unchanged (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', maxLength: 60 }).filter((s) => !s.includes('\0')),
        async (text) => {
          const nonce = newNonce();
          const script = framedScript(nonce, { out: sh`printf '%s' ${text}` });
          expect(splitSections((await runner.run(script.text)).stdout, nonce).get('out')?.text).toBe(text);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('leave out a section whose end never came (the shell died in it)', () => {
    const nonce = 'abc';
    expect(splitSections(`\n<<abc:begin:a>>\nhalf`, nonce).size).toBe(0);
    expect(splitSections(`\n<<other:begin:a>>\nx\n<<other:end:a:0>>\n`, nonce).size).toBe(0);
  });

  it('refuse section names that are not plain words', () => {
    expect(() => framedScript('n', { 'a b': sh`true` })).toThrow(/section name/);
  });
});
