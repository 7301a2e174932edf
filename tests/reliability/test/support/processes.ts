// Child processes of the suite: the built acpremote CLI, fixtures, and a raw JSON-RPC peer over a child's stdio
// that records every stdout line (so a test can prove stdout carried JSON-RPC only).
import type { ChildProcess, ChildProcessByStdio, ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type ProcessGroupChild, type SpawnProcessGroupOptions, spawnProcessGroup } from '@acpkit/remote';

/** The built `acpremote` CLI (the test command builds every package before vitest). */
export const ACPREMOTE_CLI = fileURLToPath(
  new URL('../../../../apps/acpremote/dist/cli.js', import.meta.url),
);

/** The built `acpkit` CLI (`acpkit run --addr` is the other mirror). */
export const ACPKIT_CLI = fileURLToPath(new URL('../../../../apps/acpkit/dist/cli.js', import.meta.url));

/** `examples/deploy-target` (run with `node <directory>`: its stdio agent). */
export const DEPLOY_TARGET = fileURLToPath(new URL('../../../../examples/deploy-target', import.meta.url));

/** Path of a fixture in `test/fixtures`. */
export const fixturePath = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/** Every process group the suite started, so `afterEach` can reap whatever a failing test left behind. */
const startedGroups = new Set<ProcessGroupChild>();
/** Processes a test spawned itself and handed to {@link track}. */
const started = new Set<ChildProcess>();

/**
 * Kills every process a test started that is still running, with everything it started (agents of an
 * `acpremote expose` included), and waits until they are gone.
 *
 * @example
 * ```ts
 * afterEach(() => killStartedProcesses());
 * ```
 */
export async function killStartedProcesses(): Promise<void> {
  const groups = [...startedGroups];
  for (const group of groups) group.signal('SIGKILL');
  const running = [...started].filter((child) => child.exitCode === null && child.signalCode === null);
  await Promise.all([
    ...groups.map((group) => group.terminate()),
    ...running.map(async (child) => {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }),
  ]);
  startedGroups.clear();
  started.clear();
}

/**
 * Spawns `argv` in its own process group with `@acpkit/remote`'s `spawnProcessGroup` (the product's teardown) and
 * tracks it for {@link killStartedProcesses}.
 *
 * @example
 * ```ts
 * const child = spawnTracked([process.execPath, 'agent.js'], { stdio: ['pipe', 'pipe', 'pipe'] });
 * ```
 */
export function spawnTracked(argv: readonly string[], options: SpawnProcessGroupOptions = {}): ChildProcess {
  const group = spawnProcessGroup(argv, { terminateTimeoutMs: 2_000, ...options });
  startedGroups.add(group);
  if (group.process.pid === undefined) throw new Error(`could not spawn ${argv[0]}`);
  return group.process;
}

/** The child of {@link spawnTracked} with the stdio pipes it was given (they exist once it has a pid). */
function withPipes<Child>(child: ChildProcess): Child {
  return child as Child;
}

/**
 * Tracks a process a test spawned itself for {@link killStartedProcesses} (prefer {@link spawnTracked}, which
 * reaches its descendants too).
 *
 * @example
 * ```ts
 * const child = track(spawn('cat'));
 * ```
 */
export function track<Child extends ChildProcess>(child: Child): Child {
  started.add(child);
  child.once('exit', () => started.delete(child));
  return child;
}

/** A running `acpremote expose` (or `serve`) process. */
export interface RunningServer {
  readonly child: ChildProcess;
  readonly url: string;
  readonly port: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Everything the server wrote to stdout so far (serve/expose must write nothing there). */
  stdout(): string;
  /** Sends SIGINT (close every connection at once, no drain) and waits for the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `acpremote <subcommand> --port 0 …` and resolves with the URL from its stderr banner.
 *
 * @example
 * ```ts
 * const server = await startAcpremote(['expose', '--', 'cat']);
 * ```
 */
export async function startAcpremote(
  args: readonly string[],
  options: { env?: Record<string, string>; nodeArgs?: readonly string[] } = {},
): Promise<RunningServer> {
  const [subcommand, ...rest] = args;
  const hasPort = rest.includes('--port');
  const child = withPipes<ChildProcessByStdio<null, Readable, Readable>>(
    spawnTracked(
      [
        process.execPath,
        ...(options.nodeArgs ?? []),
        ACPREMOTE_CLI,
        subcommand!,
        ...(hasPort ? [] : ['--port', '0']),
        ...rest,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...options.env },
      },
    ),
  );
  let stderr = '';
  let announced = false;
  child.stderr.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (text: string) => {
      // Keep only the tail: fuzzing makes the server log thousands of warnings.
      stderr = (stderr + text).slice(-64 * 1024);
      if (announced) return;
      const match = /Serving ACP WebSocket at (\S+)/.exec(stderr);
      if (match) {
        announced = true;
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) =>
      reject(new Error(`acpremote ${subcommand} exited with ${code}:\n${stderr}`)),
    );
  });
  // stdout of serve/expose must stay silent: record it to prove that.
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  return {
    child,
    url,
    port: Number(new URL(url).port),
    stderr: () => stderr,
    stdout: () => stdout,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      // SIGTERM would drain: wait up to 30 s for connections a test left open.
      child.kill('SIGINT');
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/** A JSON-RPC message as read from a peer. */
export type JsonRpcMessage = {
  jsonrpc?: unknown;
  id?: string | number | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/**
 * A raw JSON-RPC peer over a child's stdin/stdout (the mirror, or an agent): no SDK in between, so tests see
 * exactly what is on the wire. Every stdout line is recorded; `nonJsonRpcLines` lists those that are not JSON-RPC.
 *
 * @example
 * ```ts
 * const peer = spawnStdioPeer(process.execPath, [ACPREMOTE_CLI, 'mirror', url]);
 * const answer = await peer.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
 * ```
 */
export function spawnStdioPeer(
  command: string,
  args: readonly string[],
  options: { env?: Record<string, string> } = {},
) {
  const child = withPipes<ChildProcessWithoutNullStreams>(
    spawnTracked([command, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    }),
  );
  const lines: string[] = [];
  const nonJsonRpcLines: string[] = [];
  const responses = new Map<string | number, (message: JsonRpcMessage) => void>();
  const incoming: JsonRpcMessage[] = [];
  const waiters: {
    test: (message: JsonRpcMessage) => boolean;
    resolve: (message: JsonRpcMessage) => void;
    reject: (error: Error) => void;
  }[] = [];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  child.stdin.on('error', () => {});
  const lineWaiters: { count: number; resolve: () => void }[] = [];
  createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    lines.push(line);
    for (let index = lineWaiters.length - 1; index >= 0; index -= 1) {
      if (lines.length >= lineWaiters[index]!.count) lineWaiters.splice(index, 1)[0]!.resolve();
    }
    let message: JsonRpcMessage;
    try {
      message = JSON.parse(line) as JsonRpcMessage;
    } catch {
      nonJsonRpcLines.push(line);
      return;
    }
    if (
      message === null ||
      typeof message !== 'object' ||
      Array.isArray(message) ||
      message.jsonrpc !== '2.0'
    ) {
      nonJsonRpcLines.push(line);
      return;
    }
    const isResponse = message.method === undefined && message.id !== undefined && message.id !== null;
    if (isResponse && responses.has(message.id!)) {
      responses.get(message.id!)!(message);
      responses.delete(message.id!);
      return;
    }
    const waiter = waiters.findIndex((candidate) => candidate.test(message));
    if (waiter !== -1) waiters.splice(waiter, 1)[0]!.resolve(message);
    else incoming.push(message);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Nothing waits forever on a peer that is gone: pending requests and `next()` waiters fail with its exit code.
  const failures = new Set<(error: Error) => void>();
  void exited.then((code) => {
    const error = new Error(`peer exited with ${code}; stderr: ${stderr.slice(-2_000)}`);
    for (const fail of failures) fail(error);
    failures.clear();
    for (const waiter of waiters.splice(0)) waiter.reject(error);
  });
  let nextId = 1;
  return {
    child,
    lines,
    nonJsonRpcLines,
    exited,
    stderr: () => stderr,
    /** Sends a request and resolves with the whole response message (result or error). */
    request(method: string, params: unknown, id: string | number = `t${nextId++}`): Promise<JsonRpcMessage> {
      const response = new Promise<JsonRpcMessage>((resolve, reject) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          reject(new Error(`peer already exited with ${child.exitCode ?? child.signalCode}`));
          return;
        }
        failures.add(reject);
        responses.set(id, (message) => {
          failures.delete(reject);
          resolve(message);
        });
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return response;
    },
    /** Writes one raw JSON-RPC message (a response to the peer's request, a notification). */
    write(message: object): void {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    },
    /** Resolves with the first incoming message (request or notification) that matches. */
    next(test: (message: JsonRpcMessage) => boolean): Promise<JsonRpcMessage> {
      const queued = incoming.findIndex(test);
      if (queued !== -1) return Promise.resolve(incoming.splice(queued, 1)[0]!);
      if (child.exitCode !== null || child.signalCode !== null) {
        return Promise.reject(new Error(`peer already exited with ${child.exitCode ?? child.signalCode}`));
      }
      return new Promise((resolve, reject) => waiters.push({ test, resolve, reject }));
    },
    pendingResponses: () => responses.size,
    /** Resolves once `count` stdout lines arrived in total; rejects after `timeoutMs` or when the child exits. */
    linesReached(count: number, timeoutMs: number): Promise<void> {
      if (lines.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${lines.length} of ${count} stdout lines within ${timeoutMs} ms`)),
          timeoutMs,
        );
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`peer exited with ${code} after ${lines.length} of ${count} stdout lines`));
        });
        lineWaiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

/** The pids whose parent is `pid` (Linux /proc). */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may contain spaces and parentheses). Zombies count: unreaped is leaked.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) children.push(Number(entry));
    } catch {
      // The process exited while we looked.
    }
  }
  return children;
}

/** Number of open file descriptors of `pid` (Linux /proc). */
export function openFileDescriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Inodes of the TCP sockets `pid` can see (its network namespace's /proc/<pid>/net/tcp and tcp6). */
function tcpInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const inode = line.trim().split(/\s+/)[9];
      if (inode !== undefined && inode !== '0') inodes.add(inode);
    }
  }
  return inodes;
}

/**
 * Number of TCP socket descriptors `pid` holds (listening and connected; not the socketpairs of a child's stdio):
 * Linux /proc.
 */
export function tcpSocketDescriptors(pid: number): number {
  const inodes = tcpInodes(pid);
  let sockets = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match !== null && inodes.has(match[1]!)) sockets += 1;
    } catch {
      // closed while we looked
    }
  }
  return sockets;
}

/**
 * Polls `condition` until it holds, failing after `timeoutMs` with `describe()`. Waiting on a condition, not a sleep.
 *
 * @example
 * ```ts
 * await waitFor(() => childPids(pid).length === 0, 5_000, () => `children left: ${childPids(pid)}`);
 * ```
 */
export async function waitFor(
  condition: () => boolean,
  timeoutMs: number,
  describe: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The benchmark's memory probe (`node --import`): on SIGUSR2, a full GC, then the live memory to a JSON file. */
export const MEMORY_PROBE = fileURLToPath(
  new URL('../../../../bench/src/soak/memory-probe.mjs', import.meta.url),
);

/**
 * The live memory (V8 heap used + external, after a full GC) of a process started with `--import MEMORY_PROBE` and
 * `ACPKIT_SOAK_PROBE_DIR=directory`: asks for report number `round` (1, 2, …) and waits for it.
 *
 * @example
 * ```ts
 * const before = await liveMemory(server.child.pid!, probeDirectory, 1);
 * ```
 */
export async function liveMemory(pid: number, directory: string, round: number): Promise<number> {
  process.kill(pid, 'SIGUSR2');
  const file = `${directory}/${pid}.json`;
  let live = 0;
  await waitFor(
    () => {
      try {
        const report = JSON.parse(readFileSync(file, 'utf8')) as {
          report: number;
          heapUsed: number;
          external: number;
        };
        live = report.heapUsed + report.external;
        return report.report >= round;
      } catch {
        return false;
      }
    },
    10_000,
    () => `no memory report ${round} from ${pid}`,
  );
  return live;
}
