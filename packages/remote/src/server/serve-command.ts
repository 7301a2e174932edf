// serveCommand: serves a stdio ACP command over Streamable HTTP and WebSocket, one child process per connection.
import type { CommandOptions, ServeOptions } from '../options/options.js';
import { type ResolvedCommand, resolveCommandOptions, resolveServeOptions } from '../options/validation.js';
import type { FramePort } from '../relay/frame-port.js';
import { Relay } from '../relay/relay-core.js';
import type { ConnectionContext, ConnectionSession } from '../seams/connection.js';
import { CloseCode } from '../shared/constants.js';
import type { FrameRules } from '../wire/inbound.js';
import { errorResponseText, wireErrors } from '../wire/json-rpc.js';
import { AgentHandshake } from './agent-handshake.js';
import { type ProcessGroupChild, spawnProcessGroup } from './child-process.js';
import { RemoteServerHost } from './remote-server.js';
import type { RemoteServer } from './remote-server-api.js';

const PREVIEW_CHARS = 200;
/**
 * How long an agent that wrote text that is not JSON-RPC still gets to answer `initialize` before the client is told
 * it is not speaking ACP: the local test client's grace (`@acpkit/testing`, `NOT_AN_ACP_AGENT`).
 */
const NOT_ACP_GRACE_MS = 2_000;

/** The first characters of a line, for a log line or an error: never the whole line decoded. */
function previewOf(bytes: Buffer): string {
  // At most four bytes per character: enough bytes for the preview.
  const text = bytes.toString('utf8', 0, PREVIEW_CHARS * 4 + 4);
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}...` : text;
}

function exitReason(result: { code: number | null; signal: NodeJS.Signals | null; error?: Error }): string {
  if (result.error)
    return `agent process failed to start: ${(result.error as NodeJS.ErrnoException).code ?? result.error.message}`;
  if (result.signal) return `agent process killed by signal ${result.signal}`;
  return `agent process exited with code ${result.code}`;
}

/** A connection whose agent never started: closed with 4001 and the reason, nothing relayed. */
function refuseUnstartedChild(
  port: FramePort,
  child: ProcessGroupChild,
  { logger, connectionId, metrics }: ConnectionContext,
): ConnectionSession {
  const done = child.exited.then((result) => {
    metrics.childExited(result);
    const reason = exitReason(result);
    logger.info(reason, { connection: connectionId });
    port.close(CloseCode.AgentSpawnFailed, reason);
  });
  return {
    done,
    shutdown(reason) {
      port.goAway(reason, child.exited);
    },
  };
}

/** Frames from the client become lines on the agent's stdin: one JSON object each, never a raw line break. */
const CLIENT_RULES: FrameRules = { utf8: 'trusted', singleLine: true };
/**
 * Lines from the agent's stdout become frames as written: only lines that are one JSON object go out (an agent's
 * stray log line would corrupt the client's stream); a byte order mark is dropped, invalid UTF-8 refused.
 */
const AGENT_RULES: FrameRules = { utf8: 'refuse', stripByteOrderMark: true, singleLine: false };

/** Relays one connection, whatever its transport, to one fresh child process. */
function relayToChild(
  port: FramePort,
  command: ResolvedCommand,
  context: ConnectionContext,
): ConnectionSession {
  const { logger, maxMessageBytes, connectionId, log, metrics } = context;
  const child = spawnProcessGroup(command.argv, {
    cwd: command.cwd,
    env: command.env,
    stdio: ['pipe', 'pipe', command.stderr === 'inherit' ? 'inherit' : 'ignore'],
    terminateTimeoutMs: command.terminateTimeoutMs,
  });
  const { stdin, stdout } = child.process;
  // No pid: the spawn failed (ENOENT, EACCES, or EMFILE, where Node creates no stdio at all) and `exited` reports why.
  if (child.process.pid === undefined || !stdin || !stdout) return refuseUnstartedChild(port, child, context);
  metrics.childStarted();
  // Until the agent answers `initialize`: a drop ends the session, and text instead of JSON-RPC is answered.
  const handshake = new AgentHandshake(NOT_ACP_GRACE_MS, {
    established() {
      port.markEstablished();
      relay.forwardUnchanged();
    },
    notSpeakingAcp(initializeIds, preview) {
      relay.forwardUnchanged();
      logger.warn('the agent is not speaking ACP: answered initialize with an error; closing', {
        connection: connectionId,
        preview,
        graceMs: NOT_ACP_GRACE_MS,
      });
      const error = wireErrors.agentNotSpeakingAcp(preview, NOT_ACP_GRACE_MS);
      for (const idToken of initializeIds) port.reply(errorResponseText(idToken, error));
      port.close(CloseCode.InternalError, 'the agent is not speaking ACP (see the server log)');
    },
  });
  const relay: Relay = new Relay({
    port,
    input: stdout,
    output: stdin,
    maxMessageBytes,
    log,
    lineNames: { input: 'agent stdout', output: 'agent stdin' },
    fromPort: {
      rules: CLIENT_RULES,
      sender: 'client',
      policy(payload, direction) {
        handshake.clientFrame(payload);
        direction.forward(payload);
      },
    },
    fromLines: {
      rules: AGENT_RULES,
      sender: 'agent',
      policy(payload, direction) {
        handshake.agentLine(payload);
        direction.forward(payload);
      },
      refused({ reason, bytes }) {
        // Agents sometimes print logs to stdout; those would corrupt the client's JSON-RPC stream.
        if (reason === 'utf8') {
          log.warn('agent stdout line is not valid UTF-8; not forwarded', { bytes: bytes.length });
          handshake.agentText('(bytes that are not UTF-8)');
          return;
        }
        const preview = previewOf(bytes);
        log.warn('agent stdout line is not a JSON-RPC object; not forwarded', {
          bytes: bytes.length,
          preview,
        });
        handshake.agentText(preview);
      },
      oversize() {
        logger.warn('agent message over maxMessageBytes; closing', {
          connection: connectionId,
          maxMessageBytes,
        });
        relay.port.close(CloseCode.MessageTooBig, `agent message exceeds the ${maxMessageBytes}-byte limit`);
      },
    },
  });
  relay.start();

  void child.exited.then(async (result) => {
    metrics.childExited(result);
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
    relay.port.close(result.error ? CloseCode.AgentSpawnFailed : CloseCode.AgentExited, reason);
  });

  const reaped = relay.closed.then(() => {
    handshake.end();
    return child.terminate();
  });
  const done = (async () => {
    await reaped;
    stdout.destroy();
  })();
  return {
    done,
    shutdown(reason) {
      port.goAway(reason, child.terminate());
    },
  };
}

/**
 * Serves a stdio ACP command over Streamable HTTP and WebSocket: **one child process per connection**, spawned from `argv` without a
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
 * console.error(`Serving ACP at ${server.endpoint}`);
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
  return RemoteServerHost.start(resolved, (port, context) => relayToChild(port, command, context));
}
