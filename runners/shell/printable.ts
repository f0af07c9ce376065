// Text from users or clusters (job ids, names, file contents, a job's standard error) made safe to print on a terminal
// or show in a page: no escape sequence or control character in it can move the cursor, recolour or retitle.
import { stripVTControlCharacters } from 'node:util';

// C0 controls but line feed and tab, DEL, and C1 controls (what is left of a sequence the first pass did not know).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function printable(text: string): string {
  return stripVTControlCharacters(text).replace(CONTROL, '');
}
