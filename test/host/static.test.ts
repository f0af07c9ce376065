// The built console served by the web mode: behind the token (then a cookie), with a strict CSP, and nothing
// outside its folder.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Host } from '../../electron/host/host.js';
import { CONTENT_SECURITY_POLICY, startWebServer, type WebServer } from '../../electron/web/server.js';

let server: WebServer;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'concertina-console-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><script type="module" src="./assets/app.js"></script>');
  writeFileSync(path.join(dir, 'assets', 'app.js'), 'console.log(1)');
  server = await startWebServer(new Host({ workload: 'none' }), { staticDir: dir });
});
afterAll(() => server.close());

function get(
  p: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: p, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the console over the web mode', () => {
  it('serves the page with the token, a strict CSP and an HttpOnly same-site cookie', async () => {
    const r = await get(`/?token=${server.token}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(String(r.headers['set-cookie'])).toMatch(/concertina-token=.+; HttpOnly; SameSite=Strict/);
    expect(r.body).toContain('<script type="module"');
  });

  it('serves assets with the cookie, refuses them without', async () => {
    expect((await get('/assets/app.js')).status).toBe(401);
    const r = await get('/assets/app.js', { cookie: `concertina-token=${server.token}` });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/javascript/);
  });

  it('serves nothing outside the console folder', async () => {
    const r = await get('/..%2F..%2Fetc%2Fpasswd', { cookie: `concertina-token=${server.token}` });
    expect(r.status).toBe(404);
  });
});
