// The concertina:// protocol the window loads the console from: the built files, each answer with the window's
// CSP, nothing outside the console's folder and nothing from another host.
import { readConsoleFile } from '../host/console-files.js';
import { APP_ORIGIN, WINDOW_CSP } from './security.js';

export function serveAppRequest(requestUrl: string, consoleDir: string): Response {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return new Response('bad request', { status: 400 });
  }
  // Node's URL gives a custom scheme the origin "null", so compare its parts.
  if (`${url.protocol}//${url.host}` !== APP_ORIGIN) return new Response('not found', { status: 404 });
  const file = readConsoleFile(consoleDir, url.pathname);
  if (!file) return new Response('not found', { status: 404 });
  return new Response(new Uint8Array(file.body), {
    status: 200,
    headers: {
      'content-type': file.contentType,
      'content-security-policy': WINDOW_CSP,
      'x-content-type-options': 'nosniff',
      'cache-control': file.isPage ? 'no-store' : 'public, max-age=0',
    },
  });
}
