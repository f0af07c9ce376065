// JSON text from a user (a file, a request body, a form): parsed with the place of a syntax error as line and column,
// and a UTF-8 byte-order mark at its start accepted (editors on Windows write one).

export type JsonParse = { ok: true; value: unknown } | { ok: false; line: number; column: number; message: string };

/** Line and column (1-based) of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));
// V8 says "... in JSON at position N" (newer versions add "(line L column C)"), or for an unexpected token quotes the
// text instead: `Unexpected token '}', "{"a": tru}" is not valid JSON`, and running out of text has no position.
const positionOf = (message: string) => /at position (\d+)/.exec(message)?.[1];
const runsOut = (message: string) => /end of JSON input/i.test(message);

/**
 * Where JSON.parse gives up on `text` when its message does not say: the end of the shortest prefix that fails for
 * another reason than ending early (a prefix of valid JSON only ever fails for ending early, at its end).
 */
function failureOffset(text: string): number {
  const fails = (n: number) => {
    try {
      JSON.parse(text.slice(0, n));
      return false;
    } catch (error) {
      const message = errorMessage(error);
      const at = positionOf(message);
      return !runsOut(message) && (at === undefined || Number(at) < n);
    }
  };
  let low = 1;
  let high = text.length; // fails(text.length) holds: the whole text failed
  while (low < high) {
    const mid = (low + high) >> 1;
    if (fails(mid)) high = mid;
    else low = mid + 1;
  }
  return low - 1;
}

export function parseJson(input: string): JsonParse {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const raw = errorMessage(error);
    const at = positionOf(raw);
    const offset = at !== undefined ? Number(at) : runsOut(raw) ? text.length : failureOffset(text);
    // The quoted text and the engine's own position go: the caller says where, and the text may be long or hostile.
    const message = raw
      .replace(/, (\.\.\.)?".*"(\.\.\.)? is not valid JSON$/s, '')
      .replace(/ in JSON at position \d+( \(line \d+ column \d+\))?/, '')
      .trim();
    return { ok: false, ...lineColumn(text, offset), message };
  }
}
