// The SQLite driver layer: the store works through either driver; node:sqlite is chosen where the runtime has it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasNodeSqlite, openDatabase, transaction, type SqliteDriverName } from '../../electron/store/sqlite.js';
import { openStore } from '../../electron/store/store.js';

const tempFile = () => path.join(mkdtempSync(path.join(tmpdir(), 'concertina-sqlite-')), 'run.db');
const nodeSqlite = hasNodeSqlite();
if (!nodeSqlite)
  console.warn(
    `sqlite.test: node:sqlite is not in Node ${process.versions.node} (it is in Electron's Node and Node 22.13+); only better-sqlite3 is exercised here`,
  );
const drivers: SqliteDriverName[] = nodeSqlite ? ['node:sqlite', 'better-sqlite3'] : ['better-sqlite3'];

describe('SQLite drivers', () => {
  it('prefers node:sqlite when the runtime has it, else better-sqlite3', () => {
    const { db, driver } = openDatabase(tempFile());
    db.close();
    expect(driver).toBe(nodeSqlite ? 'node:sqlite' : 'better-sqlite3');
  });

  for (const driver of drivers) {
    it(`${driver}: a transaction commits as a whole or not at all`, () => {
      const { db } = openDatabase(tempFile(), driver);
      db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
      transaction(db, () => db.prepare('INSERT INTO t (v) VALUES (?)').run(1));
      expect(() =>
        transaction(db, () => {
          db.prepare('INSERT INTO t (v) VALUES (?)').run(2);
          db.prepare('INSERT INTO t (v) VALUES (?)').run(null);
        }),
      ).toThrow();
      expect(db.prepare('SELECT v FROM t').all()).toEqual([{ v: 1 }]);
      db.close();
    });

    it(`${driver}: the store keeps a run across reopening`, () => {
      const file = tempFile();
      const store = openStore(file, { driver });
      store.startRun({ grid: { clusters: [] }, workload: 'none', seed: 3 });
      store.commit({ command: { t: 5, key: 'jobs.submit', value: { id: 'a' }, jobId: 'a' }, clock: 42 });
      store.close();
      const again = openStore(file, { driver });
      expect(again.run()).toEqual({ grid: { clusters: [] }, workload: 'none', seed: 3 });
      expect(again.commands()).toEqual([{ t: 5, key: 'jobs.submit', value: { id: 'a' }, jobId: 'a' }]);
      expect(again.clock()).toBe(42);
      again.close();
    });
  }
});
