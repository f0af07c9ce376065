// Quoting for POSIX sh. Every value that reaches a shell goes through `quote`, usually by way of the `sh` tagged
// template, so a script's text is the project's and every interpolated value is data.

/** One shell word holding exactly `value`: single-quoted, with embedded single quotes as '\''. */
export function quote(value: string | number): string {
  const text = String(value);
  if (text.includes('\0')) throw new Error('a shell argument cannot contain a NUL character');
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A fragment of script that is already shell syntax (built by `sh`); interpolated as is. */
export class ShellFragment {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Interpolated = string | number | ShellFragment | readonly (string | number)[];

/**
 * Tagged template for scripts: `sh\`scancel ${id}\`` quotes `id`; arrays become several quoted words; fragments
 * built by `sh` nest unquoted. The literal parts are the project's own text.
 */
export function sh(strings: TemplateStringsArray, ...values: Interpolated[]): ShellFragment {
  let text = strings[0] ?? '';
  values.forEach((value, i) => {
    text += render(value) + (strings[i + 1] ?? '');
  });
  return new ShellFragment(text);
}

function render(value: Interpolated): string {
  if (value instanceof ShellFragment) return value.text;
  if (Array.isArray(value)) return value.map((v) => quote(v)).join(' ');
  return quote(value as string | number);
}
