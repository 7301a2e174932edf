// fileSessionStore: one append-only JSON-lines file per session in one directory. The file is created atomically
// (temporary file, fsync, rename, fsync of the directory); each save appends one line and fsyncs it, so a turn costs
// the same at 10 messages and at 10 000. A line cut short by a crash (no trailing newline) was never acknowledged:
// readers ignore it and the next writer truncates it. File names are the SHA-256 of the session id, so no id can
// name a path outside the directory.
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { byteLength, decodeValue, encodeValue } from '../codec.js';
import type {
  ListSessionsQuery,
  SessionPage,
  SessionSave,
  SessionSaved,
  SessionStore,
  SessionSummary,
  StoredSession,
} from '../contract.js';
import { invalidOption, SessionStoreError, SessionStoreErrorCode, storeUnavailable } from '../errors.js';
import {
  type CheckedSave,
  checkMaxSessionBytes,
  checkQuery,
  checkSave,
  checkSessionId,
  compareSummaries,
  isAfter,
  pageOf,
  sessionNotStored,
  sessionTooLarge,
  staleWrite,
} from '../validate.js';
import { readFirstLine, readLastCommittedLine } from './file-lines.js';
import { LockBusyError, withFileLock } from './file-lock.js';

/**
 * Options of {@link fileSessionStore}.
 *
 * @example
 * ```ts
 * import { fileSessionStore } from '@acpkit/sessions';
 *
 * const store = fileSessionStore({ directory: '/var/lib/my-agent/sessions', maxSessionBytes: 8 * 1024 * 1024 });
 * ```
 */
export interface FileSessionStoreOptions {
  /** The directory holding one `<sha256 of id>.session` file per session (created, mode 0700, when missing). */
  readonly directory: string;
  /** The per-session bound. Default `DEFAULT_MAX_SESSION_BYTES` (32 MiB). */
  readonly maxSessionBytes?: number | undefined;
  /** How long a save waits for another process writing the same session. Default 5 000 ms. */
  readonly lockTimeoutMs?: number | undefined;
}

/** The first line of every session file. */
const FORMAT = 'acpkit-session/1';
const SUFFIX = '.session';

interface Header {
  readonly format: string;
  readonly sessionId: string;
  readonly createdAt: string;
}

/** Every later line: one save. `state` only when the save replaced it. */
interface TurnLine {
  readonly version: number;
  readonly updatedAt: string;
  readonly cwd: string;
  readonly title: string | null;
  readonly bytes: number;
  readonly stateBytes: number;
  readonly state?: Record<string, unknown>;
  readonly append: unknown[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTurnLine(value: unknown): value is TurnLine {
  return (
    isObject(value) &&
    Number.isSafeInteger(value.version) &&
    typeof value.updatedAt === 'string' &&
    typeof value.cwd === 'string' &&
    (value.title === null || typeof value.title === 'string') &&
    typeof value.bytes === 'number' &&
    typeof value.stateBytes === 'number' &&
    (value.state === undefined || isObject(value.state)) &&
    Array.isArray(value.append)
  );
}

/** One save as its line (the scalar fields once through JSON.stringify, the payloads spliced in as encoded). */
function turnLine(
  save: CheckedSave<unknown>,
  version: number,
  title: string | null,
  totals: { bytes: number; stateBytes: number },
  stateText: string | undefined,
  appendText: string,
): string {
  const head = JSON.stringify({
    version,
    updatedAt: save.updatedAt,
    cwd: save.cwd,
    title,
    bytes: totals.bytes,
    stateBytes: totals.stateBytes,
  });
  return `${head.slice(0, -1)}${stateText === undefined ? '' : `,"state":${stateText}`},"append":${appendText}}\n`;
}

class FileSessionStore implements SessionStore {
  readonly kind = 'file';
  readonly maxSessionBytes: number;
  readonly #directory: string;
  readonly #lockTimeoutMs: number;
  /** Saves of one session in this process, one after another (the lock file orders processes). */
  readonly #queues = new Map<string, Promise<unknown>>();
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(options: FileSessionStoreOptions) {
    if (typeof options?.directory !== 'string' || options.directory === '') {
      throw invalidOption('directory', 'a directory path', options?.directory);
    }
    this.#directory = options.directory;
    this.maxSessionBytes = checkMaxSessionBytes(options.maxSessionBytes);
    const lockTimeoutMs = options.lockTimeoutMs ?? 5_000;
    if (!Number.isSafeInteger(lockTimeoutMs) || lockTimeoutMs < 0) {
      throw invalidOption('lockTimeoutMs', 'a non-negative integer', lockTimeoutMs);
    }
    this.#lockTimeoutMs = lockTimeoutMs;
  }

  /** The file of a session: never derived from the id's characters, so `../x` is just another hash. */
  #pathOf(sessionId: string): string {
    return join(this.#directory, createHash('sha256').update(sessionId, 'utf8').digest('hex') + SUFFIX);
  }

  async get(sessionId: string): Promise<StoredSession | undefined> {
    this.#open();
    const id = checkSessionId(sessionId);
    const path = this.#pathOf(id);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw storeUnavailable('file', error, id);
    }
    const lines = text.split('\n');
    // The part after the last newline is a line a crash cut short (or nothing): never acknowledged, ignored.
    lines.pop();
    const header = this.#parse(path, 1, lines[0] ?? '');
    if (!isObject(header) || header.format !== FORMAT || header.sessionId !== id) {
      throw this.#corrupt(path, 1, id, 'the first line is not this session’s header');
    }
    const entries: unknown[] = [];
    let last: TurnLine | undefined;
    let state: Record<string, unknown> = {};
    for (let index = 1; index < lines.length; index++) {
      const line = this.#parse(path, index + 1, lines[index] as string);
      if (!isTurnLine(line) || line.version !== index) {
        throw this.#corrupt(path, index + 1, id, `line ${index + 1} is not save ${index}`);
      }
      for (const entry of line.append) entries.push(entry);
      if (line.state !== undefined) state = line.state;
      last = line;
    }
    if (last === undefined) throw this.#corrupt(path, 2, id, 'the file holds no save');
    return {
      sessionId: id,
      cwd: last.cwd,
      title: last.title,
      createdAt: (header as unknown as Header).createdAt,
      updatedAt: last.updatedAt,
      version: last.version,
      state,
      entries,
      bytes: last.bytes,
    };
  }

  async save(write: SessionSave): Promise<SessionSaved> {
    this.#open();
    const save = checkSave(write);
    const previous = this.#queues.get(save.sessionId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.#saveLocked(save));
    this.#queues.set(save.sessionId, next);
    try {
      return await next;
    } finally {
      if (this.#queues.get(save.sessionId) === next) this.#queues.delete(save.sessionId);
    }
  }

  async #saveLocked(save: CheckedSave<unknown>): Promise<SessionSaved> {
    await this.#ensureDirectory();
    const path = this.#pathOf(save.sessionId);
    try {
      return await withFileLock(`${path}.lock`, this.#lockTimeoutMs, () => this.#write(path, save));
    } catch (error) {
      if (SessionStoreError.isInstance(error)) throw error;
      // The directory may have gone (or been replaced): make it again on the next save.
      this.#ready = undefined;
      if (error instanceof LockBusyError) {
        throw new SessionStoreError(
          SessionStoreErrorCode.StaleWrite,
          `session ${save.sessionId} is being saved by another process (${error.message}); nothing was written: load the session again and retry the turn`,
          { sessionId: save.sessionId, expectedVersion: save.expectedVersion },
          { cause: error },
        );
      }
      throw storeUnavailable('file', error, save.sessionId);
    }
  }

  async #write(path: string, save: CheckedSave<unknown>): Promise<SessionSaved> {
    const appendText = encodeValue(save.append);
    const stateText = save.state === undefined ? undefined : encodeValue(save.state);
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(path, 'r+');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      if (save.expectedVersion > 0) throw sessionNotStored(save.sessionId, save.expectedVersion);
      return this.#create(path, save, stateText ?? '{}', appendText);
    }
    try {
      const { size } = await handle.stat();
      const tail = await readLastCommittedLine(handle, size);
      const last = tail.line === undefined ? undefined : this.#parse(path, 0, tail.line);
      if (!isTurnLine(last)) throw this.#corrupt(path, 0, save.sessionId, 'the last line is not a save');
      if (last.version !== save.expectedVersion)
        throw staleWrite(save.sessionId, save.expectedVersion, last.version);
      const stateBytes = stateText === undefined ? last.stateBytes : byteLength(stateText);
      const bytes = last.bytes - last.stateBytes + stateBytes + byteLength(appendText);
      if (bytes > this.maxSessionBytes) throw sessionTooLarge(save.sessionId, bytes, this.maxSessionBytes);
      const version = last.version + 1;
      const title = save.title === undefined ? last.title : save.title;
      const line = turnLine(save, version, title, { bytes, stateBytes }, stateText, appendText);
      // Cut a line a crash left unfinished, so the new line starts on a line of its own.
      if (tail.committedSize < size) await handle.truncate(tail.committedSize);
      await handle.write(line, tail.committedSize, 'utf8');
      await handle.datasync();
      return { version, updatedAt: save.updatedAt, bytes };
    } finally {
      await handle.close();
    }
  }

  async #create(
    path: string,
    save: CheckedSave<unknown>,
    stateText: string,
    appendText: string,
  ): Promise<SessionSaved> {
    const stateBytes = byteLength(stateText);
    const bytes = stateBytes + byteLength(appendText);
    if (bytes > this.maxSessionBytes) throw sessionTooLarge(save.sessionId, bytes, this.maxSessionBytes);
    const header: Header = { format: FORMAT, sessionId: save.sessionId, createdAt: save.updatedAt };
    const text = `${JSON.stringify(header)}\n${turnLine(save, 1, save.title ?? null, { bytes, stateBytes }, stateText, appendText)}`;
    const temporary = join(this.#directory, `.${randomUUID()}.tmp`);
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } catch (error) {
      await handle.close();
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    await handle.close();
    await rename(temporary, path);
    await this.#syncDirectory();
    return { version: 1, updatedAt: save.updatedAt, bytes };
  }

  async list(query?: ListSessionsQuery): Promise<SessionPage> {
    this.#open();
    const { cwd, limit, after } = checkQuery(query);
    let names: string[];
    try {
      names = (await readdir(this.#directory)).filter((name) => name.endsWith(SUFFIX));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { sessions: [] };
      throw storeUnavailable('file', error);
    }
    const matching: SessionSummary[] = [];
    // A few files at a time: enough to overlap the reads, not so many that a large directory exhausts descriptors.
    for (let start = 0; start < names.length; start += 64) {
      const batch = names.slice(start, start + 64).map((name) => this.#summary(join(this.#directory, name)));
      for (const summary of await Promise.all(batch)) {
        if (summary === undefined) continue;
        if ((cwd === undefined || summary.cwd === cwd) && isAfter(summary, after)) matching.push(summary);
      }
    }
    return pageOf(matching.sort(compareSummaries), limit);
  }

  /** A session file's summary from its first and last lines; `undefined` when it vanished meanwhile. */
  async #summary(path: string): Promise<SessionSummary | undefined> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw storeUnavailable('file', error);
    }
    try {
      const { size } = await handle.stat();
      const header = this.#parse(path, 1, await readFirstLine(handle));
      const tail = await readLastCommittedLine(handle, size);
      const last = tail.line === undefined ? undefined : this.#parse(path, 0, tail.line);
      if (!isObject(header) || typeof header.sessionId !== 'string' || !isTurnLine(last)) {
        throw this.#corrupt(path, 0, undefined, 'the header or the last save is malformed');
      }
      return {
        sessionId: header.sessionId,
        cwd: last.cwd,
        title: last.title,
        createdAt: String(header.createdAt),
        updatedAt: last.updatedAt,
        version: last.version,
      };
    } finally {
      await handle.close();
    }
  }

  async delete(sessionId: string): Promise<boolean> {
    this.#open();
    const id = checkSessionId(sessionId);
    const path = this.#pathOf(id);
    try {
      await this.#ensureDirectory();
      return await withFileLock(`${path}.lock`, this.#lockTimeoutMs, async () => {
        try {
          await unlink(path);
          return true;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
          throw error;
        }
      });
    } catch (error) {
      throw storeUnavailable('file', error, id);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled(this.#queues.values());
  }

  #ensureDirectory(): Promise<void> {
    this.#ready ??= mkdir(this.#directory, { recursive: true, mode: 0o700 }).then(
      () => undefined,
      (error: unknown) => {
        this.#ready = undefined;
        throw storeUnavailable('file', error);
      },
    );
    return this.#ready;
  }

  /** Makes a rename durable: the directory entry is fsynced too. */
  async #syncDirectory(): Promise<void> {
    const handle = await open(this.#directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  #parse(path: string, line: number, text: string): unknown {
    try {
      return decodeValue(text);
    } catch (cause) {
      throw this.#corrupt(path, line, undefined, 'a line is not JSON', cause);
    }
  }

  #corrupt(path: string, line: number, sessionId: string | undefined, what: string, cause?: unknown) {
    const location = line > 0 ? `${path}:${line}` : path;
    return new SessionStoreError(
      SessionStoreErrorCode.CorruptRecord,
      `the session file ${location} cannot be read (${what}); other sessions are unaffected. Restore it from a backup or delete it`,
      { sessionId, location },
      { cause },
    );
  }

  #open(): void {
    if (this.#closed) {
      throw new SessionStoreError(SessionStoreErrorCode.StoreClosed, 'this file session store was closed');
    }
  }
}

/**
 * A session store of one append-only file per session in `directory`: durable (every save is fsynced before it
 * returns; a crash loses at most the save in flight, never an acknowledged one), safe for several processes on one
 * machine (a lock file per session), with session ids treated as untrusted (file names are their SHA-256). `list`
 * reads the first and last line of every file: use SQLite past a few thousand sessions.
 *
 * @example
 * ```ts
 * import { fileSessionStore } from '@acpkit/sessions';
 *
 * export const sessionStore = fileSessionStore({ directory: `${process.env.HOME}/.my-agent/sessions` });
 * ```
 */
export function fileSessionStore(options: FileSessionStoreOptions): SessionStore {
  return new FileSessionStore(options);
}
