// Start-up of `concertina serve` and `npm start` with arguments that cannot work: each is misuse (exit 2) with one
// line naming the flag and the cause, never an internal error or a stack trace; someone else's database is not touched.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../electron/store/sqlite.js';
import { SCHEMA_VERSION, openStore } from '../../electron/store/store.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <script> args` to its end (a serve that did start is stopped, and shows as exit code 0). */
function run(script: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
      if (stdout.includes('Open: ')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const serve = (...args: string[]) => run('bin/concertina.js', ['serve', '--port', '0', ...args]);

/** Exit 2, one line `concertina: ...` on stderr holding each of `mentions`, no stack trace. */
function expectMisuse(r: Run, ...mentions: string[]): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(/^concertina: /);
  expect(r.stderr.trimEnd().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/internal error|^\s+at /m);
  for (const m of mentions) expect(r.stderr).toContain(m);
}

let tmp: string;
beforeAll(() => {
  if (!existsSync(path.join(repoRoot, 'dist', 'electron', 'cli', 'main.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  tmp = mkdtempSync(path.join(tmpdir(), 'concertina-startup-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('serve --store that cannot be a store', () => {
  it('a directory', async () => {
    const dir = path.join(tmp, 'a-directory');
    mkdirSync(dir);
    expectMisuse(await serve('--store', dir), `--store ${dir}: is a directory`);
  });

  it('a file that is not SQLite', async () => {
    const file = path.join(tmp, 'notes.db');
    writeFileSync(file, 'these are my notes, not a database\n'.repeat(100));
    expectMisuse(await serve('--store', file), `--store ${file}: is not an SQLite database`);
    expect(readFileSync(file, 'utf8')).toBe('these are my notes, not a database\n'.repeat(100));
  });

  it('in a directory that does not exist', async () => {
    const file = path.join(tmp, 'missing', 'dir', 'run.db');
    expectMisuse(await serve('--store', file), `--store ${file}: the directory ${path.dirname(file)} does not exist`);
    expect(existsSync(path.dirname(file))).toBe(false);
  });

  it('under a path part that is a file', async () => {
    const plain = path.join(tmp, 'plain-file');
    writeFileSync(plain, 'x');
    expectMisuse(
      await serve('--store', path.join(plain, 'run.db')),
      '--store',
      'a part of the path is not a directory',
    );
  });

  it('a store of a newer schema', async () => {
    const file = path.join(tmp, 'newer.db');
    openStore(file).close();
    const { db } = openDatabase(file);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expectMisuse(
      await serve('--store', file),
      `--store ${file}:`,
      `was written by a newer Concertina (store schema ${SCHEMA_VERSION + 1}; this one reads up to ${SCHEMA_VERSION}) (left as it is; another --store file starts a fresh run)`,
    );
  });

  it("someone else's SQLite database, which is refused and left byte for byte as it was", async () => {
    const file = path.join(tmp, 'addresses.db');
    const { db } = openDatabase(file);
    db.exec("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('Ada')");
    db.close();
    const before = readFileSync(file);
    expectMisuse(await serve('--store', file), `--store ${file}: is an SQLite database but not a Concertina store`);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });
});

describe('serve --host and --port that cannot be bound', () => {
  it('an address that does not exist', async () => {
    expectMisuse(await serve('--host', '999.1.1.1'), '--host 999.1.1.1');
  });

  it('an address of another machine', async () => {
    // TEST-NET-1 (RFC 5737): never an address of this machine.
    expectMisuse(await serve('--host', '192.0.2.1'), '--host 192.0.2.1 is not an address of this machine');
  });

  describe('a port already in use', () => {
    let taken: Server;
    let port: number;
    beforeAll(async () => {
      taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      port = (taken.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

    it('is named with its number', async () => {
      expectMisuse(
        await run('bin/concertina.js', ['serve', '--port', String(port)]),
        `concertina: --port ${port} is in use`,
      );
    });

    it('leaves no store behind when the port fails', async () => {
      const file = path.join(tmp, 'port-in-use.db');
      expectMisuse(
        await run('bin/concertina.js', ['serve', '--port', String(port), '--store', file]),
        `--port ${port} is in use`,
      );
      expect(existsSync(file)).toBe(false);
    });
  });
});

describe('npm start (scripts/start.mjs)', () => {
  it('a data folder that cannot be created: one line, exit 2, naming the folder and XDG_DATA_HOME', async () => {
    const notAFolder = path.join(tmp, 'data-home-is-a-file');
    writeFileSync(notAFolder, 'x');
    const r = await run('scripts/start.mjs', [], {
      ...process.env,
      XDG_DATA_HOME: notAFolder,
      DISPLAY: '',
      WAYLAND_DISPLAY: '',
    });
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^concertina: cannot create the data folder ${path.join(notAFolder, 'concertina')} \\(a part of the path is not a directory\\); set XDG_DATA_HOME`,
      ),
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
