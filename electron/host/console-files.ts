// The built console's files (dist/renderer), as both transports serve them: the web mode over HTTP, the Electron
// window over the concertina:// protocol. A path can never leave the console's folder.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export interface ConsoleFile {
  readonly body: Buffer;
  readonly contentType: string;
  readonly isPage: boolean;
}

/** The file for a URL path ("/" is the page), or undefined when there is none or the path escapes `dir`. */
export function readConsoleFile(dir: string, urlPath: string): ConsoleFile | undefined {
  const root = path.resolve(dir);
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath === '/' || urlPath === '' ? '/index.html' : urlPath);
  } catch {
    return undefined; // malformed escapes
  }
  if (decoded.includes('\0')) return undefined;
  const file = path.resolve(root, '.' + decoded);
  if (file !== root && !file.startsWith(root + path.sep)) return undefined;
  let body: Buffer;
  try {
    body = readFileSync(file);
  } catch {
    return undefined;
  }
  const contentType = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
  return { body, contentType, isPage: contentType.startsWith('text/html') };
}
