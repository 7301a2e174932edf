// runMirror: relays a remote ACP server to local stdio, and the mirror's two rewrites of what the editor sends.
import type { HostOwnership, MirrorOptions } from '../options/options.js';
import { resolveMirrorOptions } from '../options/validation.js';
import { Relay } from '../relay/relay-core.js';
import { CloseCode } from '../shared/constants.js';
import { redactUrls } from '../shared/logger.js';
import { warnIfInsecure } from '../websocket/client-socket.js';
import { inspectOversize } from '../wire/inbound.js';
import { errorResponseText, wireErrors } from '../wire/json-rpc.js';
import { CarriedPort } from './carried-port.js';
import { openClientConnection } from './client-connection.js';
import { MirrorPolicy } from './mirror-policy.js';

/** After local EOF, how long answers to requests already sent may still arrive before the mirror closes. */
const IN_FLIGHT_DRAIN_MS = 5_000;

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Applies host ownership to an `initialize` request's params. `remote` sets `fs.readTextFile`, `fs.writeTextFile`
 * and `terminal` to false and keeps every other field (elicitation included); `client-passthrough` keeps all.
 * Returns undefined when nothing changes.
 *
 * @example
 * ```ts
 * applyHostOwnership({ protocolVersion: 1, clientCapabilities: { elicitation: { form: {} } } }, 'remote');
 * // → { protocolVersion: 1, clientCapabilities: { elicitation: { form: {} }, fs: { readTextFile: false,
 * //      writeTextFile: false }, terminal: false } }
 * ```
 */
export function applyHostOwnership(params: unknown, ownership: HostOwnership): JsonObject | undefined {
  if (ownership === 'client-passthrough' || !isObject(params)) return undefined;
  const capabilities = isObject(params.clientCapabilities) ? params.clientCapabilities : {};
  const fs = isObject(capabilities.fs) ? capabilities.fs : {};
  return {
    ...params,
    clientCapabilities: {
      ...capabilities,
      fs: { ...fs, readTextFile: false, writeTextFile: false },
      terminal: false,
    },
  };
}

/**
 * Rewrites the `cwd` of a `session/*` request that carries one to the server's `remote_cwd`. Requests without a
 * `cwd` (e.g. an unfiltered `session/list`) are left alone. Returns undefined when nothing changes.
 *
 * @example
 * ```ts
 * rewriteSessionCwd('session/new', { cwd: '/home/me/project', mcpServers: [] }, '/srv/project');
 * // → { cwd: '/srv/project', mcpServers: [] }
 * ```
 */
export function rewriteSessionCwd(
  method: string,
  params: unknown,
  remoteCwd: string | undefined,
): JsonObject | undefined {
  if (remoteCwd === undefined || !method.startsWith('session/') || !isObject(params)) return undefined;
  if (typeof params.cwd !== 'string' || params.cwd === remoteCwd) return undefined;
  return { ...params, cwd: remoteCwd };
}

/**
 * Runs the stdio mirror: a local stdio ACP server (NDJSON on `input`/`output`) that relays **frames** to a remote
 * endpoint (Streamable HTTP or WebSocket). It rewrites only `initialize.clientCapabilities` (host ownership) and the `cwd` of session
 * requests (to the server's `remote_cwd`); everything else passes byte-for-byte in order. Without
 * `useUnstableProtocol` it answers `-32601` itself for requests whose method exists only in the SDK's `/unstable`
 * entrypoint (both directions) and drops such notifications with a stderr note; `_`-prefixed methods always pass.
 * When the server agrees to resume (the default on both sides), a dropped connection is reconnected and resumed
 * without the editor noticing: requests stay pending, and what the editor sends meanwhile is delivered after.
 *
 * When the connection is lost for good (the resume refused, the server gone) while the editor has sessions open, the
 * sessions are carried to a new connection (`carrySessions`): `session/resume` or `session/load` for each, the
 * requests in flight at the cut answered with an error that says the session continues.
 *
 * @returns 0 after local stdin EOF (the socket is closed, so the server reaps the remote agent); 1 when the upstream
 *   connection is lost and can be neither resumed nor carried (every in-flight request from the editor first gets a
 *   JSON-RPC error naming the loss).
 * @throws {@link AcpRemoteError} `INVALID_OPTION`, `AUTHENTICATION_FAILED` or `CONNECTION_FAILED` when the
 *   connection cannot be opened (nothing has been written to `output` then).
 * @example
 * ```ts
 * const exitCode = await runMirror('ws://127.0.0.1:8080/acp/ws', { bearerToken: process.env.ACP_TOKEN });
 * process.exit(exitCode);
 * ```
 */
export async function runMirror(url: string, options: MirrorOptions = {}): Promise<number> {
  const resolved = resolveMirrorOptions(url, options);
  const logger = resolved.logger;
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  warnIfInsecure(resolved.url, logger);
  const connection = await openClientConnection(resolved, 'remote');
  const { metadata, log } = connection;
  const port = new CarriedPort(connection, resolved, () => openClientConnection(resolved, 'remote'));
  const remoteCwd = metadata?.remote_cwd ?? undefined;
  logger.info('mirror connected', {
    url: redactUrls(resolved.url.toString()),
    remoteCwd,
    ...(resolved.transport === 'streamable-http' ? { transport: 'streamable-http' } : {}),
    ...(connection.resumeSelected ? { resumable: true } : {}),
  });

  const policy = new MirrorPolicy({
    hostOwnership: resolved.hostOwnership,
    useUnstableProtocol: resolved.useUnstableProtocol,
    emitLatencyMeta: resolved.emitLatencyMeta,
    remoteCwd,
    log,
    maxPendingRequests: resolved.maxPendingRequests,
  });
  const { inFlight } = policy;
  let localEnded = false;
  let outputFailed = false;
  let drainTimer: NodeJS.Timeout | undefined;

  const closeUpstream = () => {
    clearTimeout(drainTimer);
    // While a resume is under way the close follows the replay, so what the editor sent last still arrives.
    port.closeConnection('client input ended', 'wait');
  };
  policy.onAnswered = () => {
    if (localEnded && inFlight.size === 0) queueMicrotask(closeUpstream);
  };
  const onEnd = () => {
    if (localEnded) return;
    localEnded = true;
    if (outputFailed || inFlight.size === 0) {
      logger.debug?.('local input ended; closing the remote connection');
      closeUpstream();
      return;
    }
    // Answers to requests already sent still reach the output (e.g. `printf ... | acpremote mirror URL`), within
    // a bound so a request that never completes cannot keep the mirror alive.
    logger.info('local input ended; closing the remote connection once in-flight requests are answered', {
      inFlight: inFlight.size,
      timeoutMs: IN_FLIGHT_DRAIN_MS,
    });
    drainTimer = setTimeout(closeUpstream, IN_FLIGHT_DRAIN_MS);
    drainTimer.unref();
  };

  const relay: Relay = new Relay({
    port,
    input,
    output,
    maxMessageBytes: resolved.maxMessageBytes,
    log,
    lineNames: { input: 'stdin', output: 'stdout' },
    fromPort: { rules: policy.remoteRules, policy: policy.fromRemote(), sender: 'remote' },
    fromLines: {
      rules: policy.editorRules,
      policy: policy.fromEditor(
        () => port.isOpen,
        () => wireErrors.transportLost(CloseCode.GoingAway, 'not connected', resolved.transport),
      ),
      sender: 'editor',
      oversize(head) {
        const action = inspectOversize(head, resolved.maxMessageBytes, undefined);
        if (action.type === 'reply') relay.toLines(action.text);
        log.warn('editor message over maxMessageBytes; not forwarded', {
          maxMessageBytes: resolved.maxMessageBytes,
        });
      },
    },
    linesEnded: onEnd,
    linesFailed(error, side) {
      if (side === 'input') {
        logger.warn('local input failed; treating it as end of input', { error: error.message });
        relay.lines.endInput();
        return;
      }
      // An editor that went away makes stdout fail with EPIPE: that is a local end, not a crash.
      logger.warn('local output failed; closing the remote connection', { error: error.message });
      outputFailed = true;
      if (localEnded) closeUpstream();
      else relay.lines.endInput();
    },
  });
  relay.start();
  const stop = () => relay.lines.endInput();
  if (options.signal?.aborted) stop();
  else options.signal?.addEventListener('abort', stop, { once: true });

  const closeInfo = await relay.closed;
  options.signal?.removeEventListener('abort', stop);
  clearTimeout(drainTimer);
  if (localEnded) {
    if (!outputFailed && inFlight.size > 0) {
      const error = wireErrors.transportLost(
        closeInfo.code,
        closeInfo.reason || 'local input ended',
        resolved.transport,
      );
      for (const idToken of inFlight.values()) relay.lines.write(errorResponseText(idToken, error));
    }
    await relay.lines.flushed();
    return 0;
  }
  logger.error('remote connection lost', {
    code: closeInfo.code,
    reason: closeInfo.reason,
    inFlight: inFlight.size,
  });
  const error = wireErrors.transportLost(closeInfo.code, closeInfo.reason, resolved.transport);
  for (const idToken of inFlight.values()) relay.lines.write(errorResponseText(idToken, error));
  inFlight.clear();
  await relay.lines.flushed();
  return 1;
}
