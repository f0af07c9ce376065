// CSV fields: RFC 4180 quoting, numbers as numbers, and text a spreadsheet would run as a formula neutralised.
import { describe, expect, it } from 'vitest';
import { csvField, csvLines } from '../../core/model/csv.js';

describe('csvField', () => {
  it.each([
    ['=1+2', "'=1+2"],
    ['+cmd', "'+cmd"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
  ])('neutralises text that starts a formula: %j', (text, field) => {
    expect(csvField(text)).toBe(field);
  });

  it('leaves numbers, plain numbers as text, and other text as they are', () => {
    expect(csvField(-3)).toBe('-3');
    expect(csvField(-0.1234567)).toBe('-0.123457');
    expect(csvField('-3')).toBe('-3');
    expect(csvField('+1.5e3')).toBe('+1.5e3');
    expect(csvField('a-b')).toBe('a-b');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField(null)).toBe('');
    expect(csvField(Number.NaN)).toBe('');
    expect(csvField(true)).toBe('true');
  });

  it('writes rows as lines', () => {
    expect(
      csvLines([
        ['id', 'x'],
        ['=a', -1],
      ]),
    ).toBe("id,x\n'=a,-1\n");
  });
});
