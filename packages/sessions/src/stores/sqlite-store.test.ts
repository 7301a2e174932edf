import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeSessionStoreContract } from '../testing.js';
import { loadSqliteDriver } from './sqlite-driver.js';
import { sqliteSessionStore } from './sqlite-store.js';

const directories: string[] = [];
async function freshPath(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'acpkit-sqlite-store-'));
  directories.push(directory);
  return join(directory, 'sessions.db');
}
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

describeSessionStoreContract('sqlite', async (options) =>
  sqliteSessionStore({ path: await freshPath(), ...options }),
);

describe('sqliteSessionStore on disk', () => {
  it('uses the binding this Node line has: node:sqlite from 22.13, better-sqlite3 on Node 20', async () => {
    const store = sqliteSessionStore({ path: await freshPath() });
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    const builtIn = major > 22 || (major === 22 && minor >= 13);
    expect(await store.driver()).toBe(builtIn ? 'node:sqlite' : 'better-sqlite3');
    await store.close();
  });

  it('writes a real SQLite file in WAL mode with the documented schema', async () => {
    const path = await freshPath();
    const store = sqliteSessionStore({ path });
    await store.save({ sessionId: 's', expectedVersion: 0, cwd: '/w', title: 't', append: ['one'] });
    await store.save({ sessionId: 's', expectedVersion: 1, cwd: '/w', append: ['two'] });
    await store.close();
    // Read the file back with the binding itself, as any SQLite tool would see it.
    const db = (await loadSqliteDriver('auto')).open(path);
    const value = (sql: string) => Object.values(db.prepare(sql).get() as object);
    expect(value('PRAGMA journal_mode')).toEqual(['wal']);
    expect(value("SELECT version FROM acpkit_schema_version WHERE component = 'sessions'")).toEqual([1]);
    expect(value('SELECT session_id, version, title FROM acpkit_sessions')).toEqual(['s', 2, 't']);
    expect(value('SELECT count(*) FROM acpkit_session_turns')).toEqual([2]);
    expect(
      value("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name LIKE 'acpkit_sessions_by_%'"),
    ).toEqual([2]);
    db.close();
  });

  it('reports a file that is not a database as CORRUPT_RECORD, saying what to do', async () => {
    const path = await freshPath();
    await writeFile(
      path,
      'this is not a SQLite database, just text that is long enough to have a header.'.repeat(20),
    );
    const store = sqliteSessionStore({ path });
    const error = await store.get('s').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'CORRUPT_RECORD', details: { location: path } });
    expect((error as Error).message).toContain('restore it from a backup');
    await store.close();
  });

  it('reports a path it cannot open as STORE_UNAVAILABLE', async () => {
    const path = join(await freshPath(), 'no', 'such', 'dir', 'sessions.db');
    const store = sqliteSessionStore({ path });
    await expect(store.list?.()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await store.close();
  });

  it('shares one file between two stores (two processes): a stale write from one is refused', async () => {
    const path = await freshPath();
    const first = sqliteSessionStore({ path });
    const second = sqliteSessionStore({ path });
    await first.save({ sessionId: 's', expectedVersion: 0, cwd: '/w', append: ['one'] });
    expect((await second.get('s'))?.version).toBe(1);
    await second.save({ sessionId: 's', expectedVersion: 1, cwd: '/w', append: ['two'] });
    await expect(
      first.save({ sessionId: 's', expectedVersion: 1, cwd: '/w', append: ['three'] }),
    ).rejects.toMatchObject({
      code: 'STALE_WRITE',
      details: { actualVersion: 2 },
    });
    expect((await first.get('s'))?.entries).toEqual(['one', 'two']);
    await first.close();
    await second.close();
  });
});
