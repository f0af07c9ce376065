// OpenSSH's wildcard patterns (known_hosts host names, Include file names): `*` is any run of characters, `?`
// exactly one. Matched without building a regular expression from file content.

export function globMatch(pattern: string, text: string, options: { caseInsensitive?: boolean } = {}): boolean {
  const p = options.caseInsensitive ? pattern.toLowerCase() : pattern;
  const t = options.caseInsensitive ? text.toLowerCase() : text;
  // Iterative matching that backtracks to the last `*` only: linear for the patterns met in practice.
  let pi = 0;
  let ti = 0;
  let star = -1;
  let resume = 0;
  while (ti < t.length) {
    if (pi < p.length && (p[pi] === '?' || p[pi] === t[ti])) {
      pi++;
      ti++;
    } else if (pi < p.length && p[pi] === '*') {
      star = pi++;
      resume = ti;
    } else if (star >= 0) {
      pi = star + 1;
      ti = ++resume;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === '*') pi++;
  return pi === p.length;
}

export const hasWildcard = (text: string): boolean => /[*?]/.test(text);
