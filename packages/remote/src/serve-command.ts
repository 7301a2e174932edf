import { isUtf8 } from 'node:buffer';
import type { WebSocket } from 'ws';
import { type ProcessGroupChild, spawnProcessGroup } from './child-process.js';
import { CloseCode } from './constants.js';
import { scanFrame } from './frame-scan.js';
import { closeReason, inspectWebSocketMessage } from './inbound.js';
import { parseFrame } from './json-rpc.js';
import { LineSplitter } from './line-splitter.js';
import type { CommandOptions, ServeOptions } from './options.js';
import { type ResolvedCommand, resolveCommandOptions, resolveServeOptions } from './options-validation.js';
import {
  type ConnectionContext,
  type ConnectionSession,
  type RemoteServer,
  startRemoteServer,
} from './server.js';
import { NEWLINE_BYTES, tickCorker, underlyingSocket } from './write-batching.js';

/** Pause reading the child while this many bytes wait in the socket's send buffer. */
const SOCKET_HIGH_WATER_BYTES = 1024 * 1024;
const SOCKET_LOW_WATER_BYTES = 256 * 1024;
const PREVIEW_CHARS = 200;

function exitReason(result: { code: number | null; signal: NodeJS.Signals | null; error?: Error }): string {
  if (result.error)
    return `agent process failed to start: ${(result.error as NodeJS.ErrnoException).code ?? result.error.message}`;
  if (result.signal) return `agent process killed by signal ${result.signal}`;
  return `agent process exited with code ${result.code}`;
}

function closeSocketWith(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) {
    socket.close(code, closeReason(reason));
  }
}

/** A connection whose agent never started: closed with 4001 and the reason, nothing relayed. */
function refuseUnstartedChild(
  socket: WebSocket,
  child: ProcessGroupChild,
  { logger, connectionId }: ConnectionContext,
): ConnectionSession {
  const done = child.exited.then((result) => {
    const reason = exitReason(result);
    logger.info(reason, { connection: connectionId });
    closeSocketWith(socket, CloseCode.AgentSpawnFailed, reason);
  });
  return {
    done,
    shutdown() {
      closeSocketWith(socket, CloseCode.GoingAway, 'server shutting down');
    },
  };
}

/** Relays one WebSocket connection to one fresh child process. */
function relayToChild(
  socket: WebSocket,
  command: ResolvedCommand,
  context: ConnectionContext,
): ConnectionSession {
  const { logger, maxMessageBytes, connectionId } = context;
  const child = spawnProcessGroup(command.argv, {
    cwd: command.cwd,
    env: command.env,
    stdio: ['pipe', 'pipe', command.stderr === 'inherit' ? 'inherit' : 'ignore'],
    terminateTimeoutMs: command.terminateTimeoutMs,
  });
  const { stdin, stdout } = child.process;
  // No pid: the spawn failed (ENOENT, EACCES, or EMFILE, where Node creates no stdio at all) and `exited` reports why.
  if (child.process.pid === undefined || !stdin || !stdout)
    return refuseUnstartedChild(socket, child, context);
  const corkSocket = tickCorker(underlyingSocket(socket));
  const corkStdin = tickCorker(stdin);
  let stdoutPaused = false;
  let socketPaused = false;

  const closeSocket = (code: number, reason: string) => closeSocketWith(socket, code, reason);

  const onSent = () => {
    if (stdoutPaused && socket.bufferedAmount <= SOCKET_LOW_WATER_BYTES) {
      stdoutPaused = false;
      logger.debug?.('resumed reading agent stdout', { connection: connectionId });
      stdout.resume();
    }
  };

  const splitter = new LineSplitter(maxMessageBytes, {
    onLine(line) {
      if (line.length === 0) return;
      if (!isUtf8(line)) {
        logger.warn('agent stdout line is not valid UTF-8; not forwarded', {
          connection: connectionId,
          bytes: line.length,
        });
        return;
      }
      // Fast path: a valid JSON object goes out as the very bytes the agent wrote, never decoded or parsed.
      let payload: Buffer | string = line;
      if (scanFrame(line) === undefined) {
        let text = line.toString('utf8');
        // A byte order mark is dropped, as the UTF-8 decoder this relay used before did.
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        const parsed = parseFrame(text);
        if (!parsed.ok) {
          // Agents sometimes print logs to stdout; those would corrupt the client's JSON-RPC stream.
          logger.warn('agent stdout line is not a JSON-RPC object; not forwarded', {
            connection: connectionId,
            bytes: line.length,
            preview: text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}...` : text,
          });
          return;
        }
        payload = text;
      }
      if (socket.readyState !== socket.OPEN) return;
      corkSocket();
      socket.send(payload, { binary: false }, onSent);
      if (!stdoutPaused && socket.bufferedAmount > SOCKET_HIGH_WATER_BYTES) {
        stdoutPaused = true;
        logger.debug?.('paused reading agent stdout: the WebSocket send buffer is full', {
          connection: connectionId,
          bufferedAmount: socket.bufferedAmount,
        });
        stdout.pause();
      }
    },
    onOversize() {
      logger.warn('agent message over maxMessageBytes; closing', {
        connection: connectionId,
        maxMessageBytes,
      });
      closeSocket(CloseCode.MessageTooBig, `agent message exceeds the ${maxMessageBytes}-byte limit`);
    },
  });
  stdout.on('data', (chunk: Buffer) => splitter.push(chunk));
  stdout.on('end', () => splitter.end());

  const onStdinDrain = () => {
    if (socketPaused) {
      socketPaused = false;
      logger.debug?.('resumed reading the WebSocket', { connection: connectionId });
      socket.resume();
    }
  };
  stdin.on('drain', onStdinDrain);

  socket.on('message', (data, isBinary) => {
    const action = inspectWebSocketMessage(data, isBinary, maxMessageBytes);
    switch (action.type) {
      case 'forward':
        if (!stdin.writable) return;
        corkStdin();
        stdin.write(action.payload);
        if (!stdin.write(NEWLINE_BYTES) && !socketPaused) {
          socketPaused = true;
          logger.debug?.('paused reading the WebSocket: agent stdin is full', { connection: connectionId });
          socket.pause();
        }
        return;
      case 'reply':
        logger.warn(action.note, { connection: connectionId });
        socket.send(action.text);
        return;
      case 'close':
        logger.warn('closing connection', {
          connection: connectionId,
          code: action.code,
          reason: action.reason,
        });
        closeSocket(action.code, action.reason);
        return;
    }
  });

  void child.exited.then(async (result) => {
    const reason = exitReason(result);
    logger.info(reason, { connection: connectionId });
    // Forward the child's last lines before closing; a grandchild may hold stdout open, so bound the wait.
    if (!result.error) {
      await Promise.race([
        new Promise<void>((resolve) => {
          if (stdout.readableEnded || stdout.destroyed) resolve();
          else stdout.once('close', () => resolve());
        }),
        new Promise<void>((resolve) => setTimeout(resolve, command.terminateTimeoutMs).unref()),
      ]);
    }
    closeSocket(result.error ? CloseCode.AgentSpawnFailed : CloseCode.AgentExited, reason);
  });

  const socketClosed = new Promise<void>((resolve) => {
    if (socket.readyState === socket.CLOSED) resolve();
    else socket.once('close', () => resolve());
  });
  const reaped = socketClosed.then(() => child.terminate());
  const done = (async () => {
    await reaped;
    stdout.destroy();
  })();
  return {
    done,
    shutdown() {
      closeSocket(CloseCode.GoingAway, 'server shutting down');
      void child.terminate().then(() => {
        // The peer may never answer the close frame; don't keep the server waiting for ws's 30 s timeout.
        if (socket.readyState !== socket.CLOSED) socket.terminate();
      });
    },
  };
}

/**
 * Serves a stdio ACP command over WebSocket: **one child process per connection**, spawned from `argv` without a
 * shell in its own process group; one text message = one JSON-RPC message = one NDJSON line, relayed unchanged.
 * A child stdout line that is not a JSON object is logged to stderr and not forwarded. When the child exits the
 * socket closes with {@link CloseCode.AgentExited} (4000) and a reason naming the exit code; when the socket closes
 * the child is torn down (stdin EOF → SIGTERM group → SIGKILL group).
 *
 * @param argv - Command and arguments, e.g. `['node', 'dist/agent.js']`.
 * @param options - Serve options plus child options (`cwd`, `env`, `unsetEnv`, `stderr`, `terminateTimeoutMs`).
 * @returns The running server; `close()` reaps every child.
 * @throws {@link AcpRemoteError} `INVALID_OPTION` (empty command, blank token, bad cwd, ...),
 *   `UNAUTHENTICATED_PUBLIC_BIND`, or `LISTEN_FAILED`.
 * @example
 * ```ts
 * const server = await serveCommand(['node', 'examples/deploy-target/dist/agent.js'], { port: 0 });
 * console.error(`Serving ACP WebSocket at ${server.url}`);
 * // later
 * await server.close();
 * ```
 */
export async function serveCommand(
  argv: readonly string[],
  options: ServeOptions & CommandOptions = {},
): Promise<RemoteServer> {
  const command = resolveCommandOptions(argv, options);
  const resolved = resolveServeOptions(options, command.cwd ?? process.cwd());
  return startRemoteServer(resolved, (socket, context) => relayToChild(socket, command, context));
}
