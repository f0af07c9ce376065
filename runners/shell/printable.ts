// Text from users (job ids, names, file contents) made safe to print on a terminal: no escape sequence or control
// character in it can move the cursor, recolour, retitle or otherwise drive the terminal.
import { stripVTControlCharacters } from 'node:util';

// C0 controls but line feed and tab, DEL, and C1 controls (what is left of a sequence the first pass did not know).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function printable(text: string): string {
  return stripVTControlCharacters(text).replace(CONTROL, '');
}
