// `concertina serve` as a user runs it: a real process, its URL with the token, and a clean stop on SIGTERM.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('concertina serve', () => {
  it('prints a 127.0.0.1 URL with a token, answers with it, refuses without it, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['bin/concertina.js', 'serve', '--port', '0'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c) => {
        out += c;
        const m = /Open: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`serve exited early with ${code}`)));
    });
    const { origin, searchParams } = new URL(url);
    const token = searchParams.get('token')!;
    const ok = await fetch(`${origin}/api/grid.snapshot`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: '{}',
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { ok: boolean }).ok).toBe(true);
    const refused = await fetch(`${origin}/api/grid.snapshot`, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(401);
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('`npm start` without a window says why in one line and serves the web mode, its run in the data folder', async () => {
    const dataHome = mkdtempSync(path.join(tmpdir(), 'concertina-start-'));
    const env = { ...process.env, XDG_DATA_HOME: dataHome, DISPLAY: '', WAYLAND_DISPLAY: '' };
    const child = spawn(process.execPath, ['scripts/start.mjs', '--port', '0'], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c) => {
        out += c;
        if (/Open: http:\/\/127\.0\.0\.1:\d+\/\?token=/.test(out)) resolve();
      });
      child.on('exit', (code) => reject(new Error(`start exited early with ${code}: ${err}`)));
    });
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toMatch(/^concertina: .+; starting the web mode instead\.$/m);
    expect(existsSync(path.join(dataHome, 'concertina', 'run.db'))).toBe(true);
  });

  it('refuses a bad port with exit 2', async () => {
    const child = spawn(process.execPath, ['bin/concertina.js', 'serve', '--port', '70000'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('--port must be a whole number from 0 to 65535');
  });
});
