import { spawnSync } from 'node:child_process';
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStoreError } from '../errors.js';
import { describeSessionStoreContract } from '../testing.js';
import { fileSessionStore } from './file-store.js';

const directories: string[] = [];
async function freshDirectory(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'acpkit-file-store-'));
  directories.push(directory);
  return directory;
}
afterEach(async () => {
  for (const directory of directories.splice(0)) await rm(directory, { recursive: true, force: true });
});

describeSessionStoreContract('file', async (options) =>
  fileSessionStore({ directory: join(await freshDirectory(), 'sessions'), ...options }),
);

async function sessionFiles(directory: string): Promise<string[]> {
  return (await readdir(directory)).filter((name) => name.endsWith('.session'));
}

describe('fileSessionStore on disk', () => {
  it('keeps every file inside its directory whatever the id, and leaves no temporary or lock file', async () => {
    const root = await freshDirectory();
    const directory = join(root, 'sessions');
    const store = fileSessionStore({ directory });
    for (const sessionId of ['../escape', '../../../../tmp/escape', '/etc/passwd', 'a/b']) {
      await store.save({ sessionId, expectedVersion: 0, cwd: '/w', append: [sessionId] });
      await store.save({ sessionId, expectedVersion: 1, cwd: '/w', append: ['again'] });
    }
    expect(await readdir(root)).toEqual(['sessions']);
    const names = await readdir(directory);
    expect(names).toHaveLength(4);
    for (const name of names) expect(name).toMatch(/^[0-9a-f]{64}\.session$/);
  });

  it('appends one line per save, never rewriting what is stored', async () => {
    const directory = await freshDirectory();
    const store = fileSessionStore({ directory });
    await store.save({ sessionId: 's', expectedVersion: 0, cwd: '/w', append: ['one'] });
    const [name] = await sessionFiles(directory);
    const path = join(directory, name as string);
    const before = await readFile(path, 'utf8');
    await store.save({ sessionId: 's', expectedVersion: 1, cwd: '/w', append: ['two'] });
    const after = await readFile(path, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.split('\n')).toHaveLength(4);
  });

  it('ignores a line a crash cut short, and the next save replaces it', async () => {
    const directory = await freshDirectory();
    const store = fileSessionStore({ directory });
    await store.save({ sessionId: 's', expectedVersion: 0, cwd: '/w', append: ['one'] });
    const path = join(directory, (await sessionFiles(directory))[0] as string);
    await appendFile(path, '{"version":2,"updatedAt":"2026-12-0');
    expect((await store.get('s'))?.entries).toEqual(['one']);
    expect((await store.list?.())?.sessions[0]?.version).toBe(1);
    await store.save({ sessionId: 's', expectedVersion: 1, cwd: '/w', append: ['two'] });
    expect((await store.get('s'))?.entries).toEqual(['one', 'two']);
    expect(await readFile(path, 'utf8')).not.toContain('2026-12-0"');
  });

  it('reports a corrupt file as CORRUPT_RECORD with its path and line; other sessions stay readable', async () => {
    const directory = await freshDirectory();
    const store = fileSessionStore({ directory });
    await store.save({ sessionId: 'good', expectedVersion: 0, cwd: '/w', append: ['fine'] });
    const [goodName] = await sessionFiles(directory);
    await store.save({ sessionId: 'bad', expectedVersion: 0, cwd: '/w', append: ['doomed'] });
    const badName = (await sessionFiles(directory)).find((name) => name !== goodName) as string;
    const badPath = join(directory, badName);
    const lines = (await readFile(badPath, 'utf8')).split('\n');
    await writeFile(badPath, `${lines[0]}\n{"version": 1, garbage\n`);
    const error = await store.get('bad').catch((caught: unknown) => caught);
    expect(SessionStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'CORRUPT_RECORD', details: { location: `${badPath}:2` } });
    expect((error as Error).message).toContain('Restore it from a backup or delete it');
    expect((await store.get('good'))?.entries).toEqual(['fine']);
    await expect(
      store.save({ sessionId: 'bad', expectedVersion: 1, cwd: '/w', append: [] }),
    ).rejects.toMatchObject({
      code: 'CORRUPT_RECORD',
    });
    // A file whose header names another session (copied by hand) is refused too.
    await writeFile(badPath, await readFile(join(directory, goodName as string), 'utf8'));
    await expect(store.get('bad')).rejects.toMatchObject({ code: 'CORRUPT_RECORD' });
    // Deleting the damaged session is the way out.
    expect(await store.delete?.('bad')).toBe(true);
  });

  it('takes over a lock left by a killed writer, and refuses as stale while a live process holds it', async () => {
    const directory = await freshDirectory();
    const store = fileSessionStore({ directory, lockTimeoutMs: 100 });
    await store.save({ sessionId: 's', expectedVersion: 0, cwd: '/w', append: ['one'] });
    const path = join(directory, (await sessionFiles(directory))[0] as string);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    await writeFile(`${path}.lock`, dead.stdout);
    await store.save({ sessionId: 's', expectedVersion: 1, cwd: '/w', append: ['two'] });
    await writeFile(`${path}.lock`, String(process.ppid));
    await expect(
      store.save({ sessionId: 's', expectedVersion: 2, cwd: '/w', append: ['three'] }),
    ).rejects.toMatchObject({
      code: 'STALE_WRITE',
    });
    expect((await store.get('s'))?.entries).toEqual(['one', 'two']);
  });

  it('reports a store path that is a file as STORE_UNAVAILABLE, and writes nothing', async () => {
    const root = await freshDirectory();
    const notADirectory = join(root, 'file');
    await writeFile(notADirectory, 'x');
    const store = fileSessionStore({ directory: notADirectory });
    const error = await store
      .save({ sessionId: 's', expectedVersion: 0, cwd: '/w', append: [] })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((error as Error).message).toContain('Check that it is up and retry');
    await expect(store.list?.()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});
