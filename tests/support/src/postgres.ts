// A real, throwaway Postgres server for one test file: initdb into a fresh temporary directory, pg_ctl start
// listening only on a unix socket in that directory (no TCP port to collide with another test or helper), and
// stop + remove everything afterwards. As root (CI, the helpers' machines) the server runs as the `postgres` user,
// because Postgres refuses to run as root. The test command installs Debian's `postgresql` when it is missing.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servicesInstalled } from '../../../scripts/test/step-markers.mjs';

/** A running throwaway server. */
export interface TestPostgres {
  /** `postgresql://…?host=<socket dir>`: give it to `pg`'s `Pool` / `postgresSessionStore`. */
  readonly connectionString: string;
  /** The directory holding the data, the socket and the log (removed by `stop`). */
  readonly directory: string;
  /** The server's log so far (for a failing test's message). */
  log(): Promise<string>;
  /** Stops the server (immediate shutdown) and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
  /** Stops the server but keeps its data, so a test can see a store that is down; `start` brings it back. */
  pause(): Promise<void>;
  /** Starts a paused server again on the same socket and data. */
  start(): Promise<void>;
}

/** Options of {@link startPostgres}. */
export interface StartPostgresOptions {
  /** The superuser role and database name. Default `acpkit`. */
  readonly user?: string;
}

const PORT = 5432; // Only names the socket file `.s.PGSQL.5432` in the server's own directory; no TCP listener.

/** The directory of initdb / pg_ctl: on PATH, else Debian's newest /usr/lib/postgresql/<n>/bin. */
export function postgresBinDir(): string {
  const onPath = spawnSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' });
  const debianRoot = '/usr/lib/postgresql';
  if (existsSync(debianRoot)) {
    const versions = readdirSync(debianRoot)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const bin = join(debianRoot, version, 'bin');
      if (existsSync(join(bin, 'pg_ctl'))) return bin;
    }
  }
  if (onPath.status === 0) return join(onPath.stdout.trim(), '..');
  throw new Error(
    "Postgres is not installed (no pg_ctl): run the test command (pnpm test), which installs Debian's postgresql, or apt-get install postgresql",
  );
}

function runAs(user: { uid: number; gid: number } | undefined, bin: string, command: string, args: string[]) {
  execFileSync(join(bin, command), args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
    env: { ...process.env, LC_ALL: 'C' },
  });
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error(
      'running as root, Postgres needs a non-root user: no `postgres` user (apt-get install postgresql adds it)',
    );
  }
}

/**
 * Starts a throwaway Postgres server for a test file.
 *
 * @example
 * ```ts
 * import { startPostgres, type TestPostgres } from '@acpkit/test-support/postgres';
 * import { afterAll, beforeAll } from 'vitest';
 *
 * let postgres: TestPostgres;
 * beforeAll(async () => { postgres = await startPostgres(); });
 * afterAll(() => postgres.stop());
 * ```
 */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<TestPostgres> {
  // In the test command, Postgres may still be being installed (a fresh machine).
  await servicesInstalled();
  const user = options.user ?? 'acpkit';
  const bin = postgresBinDir();
  const owner = postgresUser();
  const directory = await mkdtemp(join(tmpdir(), 'acpkit-pg-'));
  if (owner !== undefined) await chown(directory, owner.uid, owner.gid);
  const data = join(directory, 'data');
  const logFile = join(directory, 'server.log');
  let running = false;
  let removed = false;
  const start = async () => {
    runAs(owner, bin, 'pg_ctl', [
      'start',
      '-D',
      data,
      '-w',
      '-t',
      '60',
      '-l',
      logFile,
      '-o',
      `-k ${directory} -c listen_addresses= -p ${PORT} -F -c max_connections=60`,
    ]);
    running = true;
  };
  const halt = async () => {
    if (!running) return;
    running = false;
    runAs(owner, bin, 'pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w']);
  };
  try {
    runAs(owner, bin, 'initdb', [
      '-D',
      data,
      '-A',
      'trust',
      '-U',
      user,
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    await start();
    runAs(owner, bin, 'createdb', ['-h', directory, '-p', String(PORT), '-U', user, user]);
  } catch (error) {
    const log = await readFile(logFile, 'utf8').catch(() => '');
    await halt().catch(() => undefined);
    await rm(directory, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`could not start a throwaway Postgres in ${directory}: ${stderr}${log}`, {
      cause: error,
    });
  }
  return {
    connectionString: `postgresql://${user}@localhost/${user}?host=${encodeURIComponent(directory)}&port=${PORT}`,
    directory,
    log: () => readFile(logFile, 'utf8').catch(() => ''),
    pause: halt,
    start,
    async stop() {
      if (removed) return;
      removed = true;
      await halt();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
