import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { WebSocket } from 'ws';
import { type RemoteLogger, type RemoteServer, serveCommand, silentLogger } from '../../src/index.js';

export const ECHO_AGENT = fileURLToPath(new URL('../fixtures/echo-agent.mjs', import.meta.url));
export const STUBBORN_CHILD = fileURLToPath(new URL('../fixtures/stubborn-child.mjs', import.meta.url));

/** `serveCommand` of the echo agent on an OS-chosen port, silent unless `options` names a logger; closed by `cleanup`. */
export async function startEchoServer(
  cleanup: Cleanup,
  options: Parameters<typeof serveCommand>[1] = {},
): Promise<RemoteServer> {
  const server = await serveCommand([process.execPath, ECHO_AGENT], {
    port: 0,
    logger: silentLogger,
    ...options,
  });
  cleanup.add(() => server.close());
  return server;
}

/**
 * Runs a full garbage collection (V8's `gc`, exposed at run time), after the current job's WeakRefs are released: for
 * tests that check with a `WeakRef` that nothing keeps an object.
 */
export async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let round = 0; round < 3; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
}

/** Runs registered cleanups (sockets, servers, processes) after each test, in reverse order. */
export class Cleanup {
  private readonly tasks: Array<() => unknown> = [];
  add(task: () => unknown): void {
    this.tasks.push(task);
  }
  async run(): Promise<void> {
    while (this.tasks.length > 0) {
      const task = this.tasks.pop()!;
      try {
        await task();
      } catch {
        // keep cleaning up
      }
    }
  }
}

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown> | undefined;
}

/** A logger that records entries and lets a test wait for one. */
export function recordingLogger(): {
  logger: RemoteLogger;
  entries: LogEntry[];
  waitFor(pattern: RegExp): Promise<LogEntry>;
  /** Resolves with the matching entries once `count` of them were logged. */
  waitForCount(pattern: RegExp, count: number): Promise<LogEntry[]>;
} {
  const entries: LogEntry[] = [];
  const waiters = new Set<() => void>();
  const push = (level: LogEntry['level']) => (message: string, fields?: Record<string, unknown>) => {
    entries.push({ level, message, fields });
    for (const waiter of [...waiters]) waiter();
  };
  const waitForCount = (pattern: RegExp, count: number) =>
    new Promise<LogEntry[]>((resolve) => {
      const check = () => {
        const found = entries.filter((entry) => pattern.test(entry.message));
        if (found.length < count) return;
        waiters.delete(check);
        resolve(found);
      };
      waiters.add(check);
      check();
    });
  return {
    logger: { info: push('info'), warn: push('warn'), error: push('error'), debug: push('debug') },
    entries,
    waitFor: async (pattern) => (await waitForCount(pattern, 1))[0]!,
    waitForCount,
  };
}

/** A raw WebSocket client that queues parsed JSON messages. */
export class RawClient {
  readonly socket: WebSocket;
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly queue: unknown[] = [];
  private readonly waiters: Array<{ predicate(message: unknown): boolean; resolve(message: unknown): void }> =
    [];

  private constructor(socket: WebSocket) {
    this.socket = socket;
    this.closed = new Promise((resolve) => {
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') }));
    });
    socket.on('error', () => {});
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString('utf8'));
      const waiter = this.waiters.find((candidate) => candidate.predicate(message));
      if (waiter) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      } else {
        this.queue.push(message);
      }
    });
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<RawClient> {
    const socket = new WebSocket(url, { headers });
    const client = new RawClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`unexpected response ${response.statusCode}`)),
      );
    });
    return client;
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Next message matching `predicate` (earlier non-matching ones stay queued). */
  // biome-ignore lint/suspicious/noExplicitAny: test helper returns loosely typed JSON
  next(predicate: (message: any) => boolean = () => true): Promise<any> {
    const index = this.queue.findIndex(predicate);
    if (index !== -1) return Promise.resolve(this.queue.splice(index, 1)[0]);
    return new Promise((resolve) => this.waiters.push({ predicate, resolve }));
  }

  // biome-ignore lint/suspicious/noExplicitAny: test helper returns loosely typed JSON
  response(id: string | number): Promise<any> {
    return this.next((message) => message.id === id && ('result' in message || 'error' in message));
  }

  close(): void {
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) {
      this.socket.close();
    }
  }
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  upgraded: boolean;
}

/** Reads a plain (not upgraded) HTTP response to its end. */
export function readRawResponse(response: IncomingMessage): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      body += chunk;
    });
    response.on('error', reject);
    response.on('end', () =>
      resolve({ status: response.statusCode ?? 0, headers: response.headers, body, upgraded: false }),
    );
  });
}

/** Sends an HTTP request with full control over headers (Host included); optionally as a WebSocket upgrade. */
export function rawRequest(
  port: number,
  path: string,
  headers: Record<string, string>,
  options: { upgrade?: boolean; method?: string; body?: string | Buffer } = {},
): Promise<RawResponse> {
  const upgradeHeaders = options.upgrade
    ? {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      }
    : {};
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      method: options.method ?? 'GET',
      headers: { ...upgradeHeaders, ...headers },
      setHost: !Object.keys(headers).some((name) => name.toLowerCase() === 'host'),
    });
    request.on('error', reject);
    request.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 0, headers: response.headers, body: '', upgraded: true });
    });
    request.on('response', (response) => resolve(readRawResponse(response)));
    request.end(options.body);
  });
}

/** Whether a process still runs (a zombie waiting for a reaper that is not us counts as gone). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
