// JSON text from users: a syntax error's line and column, whatever the engine's message says, and a byte-order mark.
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../core/model/json-text.js';

describe('parseJson', () => {
  it.each([
    ['a trailing comma in an object', '{\n  "jobs": [\n    {"kind": "rigid",}\n  ]\n}', 3, 22],
    ['a cut text', '[\n{"kind":', 2, 9],
    ['a missing comma', '{\n  "clusters": [] "x"\n}', 2, 18],
    // V8 gives these no position: only the text they are in.
    ['a misplaced bracket', '{"clusters": [}', 1, 15],
    ['a word cut short', '{"a":\n  tru}', 2, 6],
    ['a trailing comma in an array', '[1,\n 2,\n]', 3, 1],
    ['a number without its leading zero', '[\n  .5]', 2, 3],
  ])('%s: line and column', (_name, text, line, column) => {
    const r = parseJson(text);
    expect(r).toMatchObject({ ok: false, line, column });
  });

  it('says what is wrong without quoting the text or the engine position', () => {
    const r = parseJson('{"a":\n  tru\u001b[31m}');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).not.toContain('tru');
    expect(r.message).not.toMatch(/position|not valid JSON/);
    expect(r.message.length).toBeGreaterThan(0);
  });

  it('drops the quoted text of a long input too (the engine cuts it with "...")', () => {
    const long = `[${'1,'.repeat(500)}\n tru]`;
    expect(parseJson(long)).toEqual({ ok: false, line: 2, column: 5, message: "Unexpected token ']'" });
  });

  it('accepts a UTF-8 byte-order mark at the start, and counts columns after it', () => {
    expect(parseJson('\ufeff{"clusters": []}')).toEqual({ ok: true, value: { clusters: [] } });
    expect(parseJson('\ufeff[1,]')).toMatchObject({ ok: false, line: 1, column: 4 });
    // Only at the start: elsewhere it is a character like any other.
    expect(parseJson('[1,\ufeff2]').ok).toBe(false);
  });
});
