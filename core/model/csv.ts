// CSV that is safe to open: RFC 4180 fields, numbers as numbers, and no text a spreadsheet would run as a formula.
// The CLI's files and the console's chart exports both write their cells here.

export type CsvValue = string | number | boolean | null | undefined;

// Enough digits for any measurement here, without the 17-digit tails of binary fractions.
function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return '';
  return Number.isInteger(n) ? String(n) : String(Number(n.toFixed(6)));
}

// OWASP's CSV-injection advice: a cell starting with one of these may be read as a formula.
const FORMULA_START = /^[=+\-@\t\r]/;
// Decision: text that is a plain number ("-3", "+1.5e3") stays as it is: a spreadsheet reads it as a number, never a
// formula, and a prefix would turn the number into text.
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** One CSV field: text that could start a formula gets a leading `'`; quoted when it holds a separator, a quote, a line break or edge blanks. */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'number' ? formatNumber(value) : String(value);
  if (typeof value === 'string' && FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Rows of fields as CSV text, one line each, ending with a line break. */
export function csvLines(rows: Iterable<readonly CsvValue[]>): string {
  const lines: string[] = [];
  for (const row of rows) lines.push(row.map(csvField).join(','));
  return `${lines.join('\n')}\n`;
}
