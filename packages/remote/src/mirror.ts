import { performance } from 'node:perf_hooks';
import { RequestError } from '@agentclientprotocol/sdk';
import { isInsecureRemoteUrl, openClientSocket } from './client-socket.js';
import { CloseCode, TRANSPORT_LATENCY_META_KEY, TRANSPORT_LOST_ERROR_CODE } from './constants.js';
import { startHeartbeat } from './heartbeat.js';
import { closeReason, inspectBytes, inspectOversize, inspectWebSocketMessage } from './inbound.js';
import { errorResponseText, idKey, type WireId } from './json-rpc.js';
import { LineSplitter } from './line-splitter.js';
import { createStderrLogger, redactUrls } from './logger.js';
import type { HostOwnership, MirrorOptions } from './options.js';
import { resolveMirrorOptions } from './options-validation.js';
import { isUnstableMethod } from './unstable-methods.js';
import { NEWLINE_BYTES, tickCorker, underlyingSocket } from './write-batching.js';

const SOCKET_HIGH_WATER_BYTES = 1024 * 1024;
const SOCKET_LOW_WATER_BYTES = 256 * 1024;
const CLOSE_HANDSHAKE_TIMEOUT_MS = 5_000;
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

interface PromptTiming {
  requestKey: string;
  startedAt: number;
  firstUpdateMs: number | undefined;
  updateCount: number;
}

/**
 * Runs the stdio mirror: a local stdio ACP server (NDJSON on `input`/`output`) that relays **frames** to a remote
 * WebSocket endpoint. It rewrites only `initialize.clientCapabilities` (host ownership) and the `cwd` of session
 * requests (to the server's `remote_cwd`); everything else passes byte-for-byte in order. Without
 * `useUnstableProtocol` it answers `-32601` itself for requests whose method exists only in the SDK's `/unstable`
 * entrypoint (both directions) and drops such notifications with a stderr note; `_`-prefixed methods always pass.
 *
 * @returns 0 after local stdin EOF (the socket is closed, so the server reaps the remote agent); 1 when the upstream
 *   connection is lost (every in-flight request from the editor first gets a JSON-RPC error naming the loss).
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
  const logger = options.logger ?? createStderrLogger();
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  if (isInsecureRemoteUrl(resolved.url)) {
    logger.warn('ws:// to a non-loopback host: messages and the token travel unencrypted; prefer wss://', {
      host: resolved.url.hostname,
    });
  }
  const { socket, metadata } = await openClientSocket(resolved);
  const remoteCwd = metadata?.remote_cwd ?? undefined;
  const stopHeartbeat = startHeartbeat(socket, resolved.pingIntervalMs, () =>
    logger.warn('connection terminated: missed pong'),
  );
  logger.info('mirror connected', { url: redactUrls(resolved.url.toString()), remoteCwd });

  const inFlight = new Map<string, WireId>();
  const prompts = new Map<string, PromptTiming[]>();
  let localEnded = false;
  let closeWhenDrained: () => void = () => {};
  let inputPaused = false;
  const corkOutput = tickCorker(output);
  const corkSocket = tickCorker(underlyingSocket(socket));
  // Counted instead of a Promise per line: the mirror only ever waits for all output to be written, at the end.
  let pendingOutputWrites = 0;
  let onOutputIdle: (() => void) | undefined;
  const onOutputWritten = () => {
    pendingOutputWrites -= 1;
    if (pendingOutputWrites === 0 && onOutputIdle) {
      const resolve = onOutputIdle;
      onOutputIdle = undefined;
      resolve();
    }
  };
  const outputWritten = () =>
    pendingOutputWrites === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          onOutputIdle = resolve;
        });

  const writeLine = (payload: Buffer | string) => {
    corkOutput();
    pendingOutputWrites += 1;
    output.write(payload);
    const flushed = output.write(NEWLINE_BYTES, onOutputWritten);
    if (!flushed && socket.readyState === socket.OPEN && !socket.isPaused) {
      socket.pause();
      output.once('drain', () => socket.resume());
    }
  };

  const onSent = () => {
    if (inputPaused && socket.bufferedAmount <= SOCKET_LOW_WATER_BYTES) {
      inputPaused = false;
      input.resume();
    }
  };
  const sendUpstream = (payload: Buffer | string) => {
    corkSocket();
    socket.send(payload, { binary: false }, onSent);
    if (!inputPaused && socket.bufferedAmount > SOCKET_HIGH_WATER_BYTES) {
      inputPaused = true;
      input.pause();
    }
  };

  const transportLost = (code: number, reason: string) =>
    new RequestError(
      TRANSPORT_LOST_ERROR_CODE,
      `ACP remote transport lost: the WebSocket connection closed (code ${code}${reason ? `: ${reason}` : ''})`,
      { transport: 'websocket', closeCode: code, reason },
    );

  const handleEditorLine = (line: Buffer) => {
    const action = inspectBytes(line, false);
    if (action.type === 'reply') {
      logger.warn(`editor sent an ${action.note}`);
      writeLine(action.text);
      return;
    }
    if (action.type !== 'forward') return;
    const { frame } = action;
    // Parsed only when a rewrite or the latency meta needs the object, and then once.
    let parsed: JsonObject | undefined;
    const message = () => (parsed ??= action.message());
    let outgoing: Buffer | string = action.payload;
    if (frame.kind === 'request' || frame.kind === 'notification') {
      if (!resolved.useUnstableProtocol && isUnstableMethod(frame.method)) {
        if (frame.kind === 'request')
          writeLine(errorResponseText(frame.id, RequestError.methodNotFound(frame.method)));
        else
          logger.warn('dropped unstable notification from the editor (enable useUnstableProtocol)', {
            method: frame.method,
          });
        return;
      }
      let rewritten: JsonObject | undefined;
      if (frame.method === 'initialize') {
        if (resolved.hostOwnership !== 'client-passthrough')
          rewritten = applyHostOwnership(message().params, resolved.hostOwnership);
      } else if (remoteCwd !== undefined && frame.method.startsWith('session/')) {
        rewritten = rewriteSessionCwd(frame.method, message().params, remoteCwd);
      }
      if (rewritten) outgoing = JSON.stringify({ ...message(), params: rewritten });
    }
    if (frame.kind === 'request') {
      if (socket.readyState !== socket.OPEN) {
        writeLine(errorResponseText(frame.id, transportLost(CloseCode.GoingAway, 'not connected')));
        return;
      }
      const key = idKey(frame.id);
      inFlight.set(key, frame.id);
      const params =
        resolved.emitLatencyMeta && frame.method === 'session/prompt' ? message().params : undefined;
      if (isObject(params)) {
        const sessionId = params.sessionId;
        if (typeof sessionId === 'string') {
          const list = prompts.get(sessionId) ?? [];
          list.push({
            requestKey: key,
            startedAt: performance.now(),
            firstUpdateMs: undefined,
            updateCount: 0,
          });
          prompts.set(sessionId, list);
        }
      }
    }
    if (socket.readyState === socket.OPEN) sendUpstream(outgoing);
  };

  const addLatencyMeta = (message: JsonObject): string | undefined => {
    const params = message.params;
    if (!isObject(params)) return undefined;
    const sessionId = typeof params.sessionId === 'string' ? params.sessionId : undefined;
    const timing = sessionId === undefined ? undefined : prompts.get(sessionId)?.at(-1);
    const now = performance.now();
    let latency: JsonObject = { receivedAtMs: Date.now() };
    if (timing) {
      timing.updateCount += 1;
      timing.firstUpdateMs ??= Math.round((now - timing.startedAt) * 1000) / 1000;
      latency = {
        ...latency,
        elapsedMs: Math.round((now - timing.startedAt) * 1000) / 1000,
        firstUpdateMs: timing.firstUpdateMs,
        updateCount: timing.updateCount,
      };
    }
    const meta = isObject(params._meta) ? params._meta : {};
    return JSON.stringify({
      ...message,
      params: { ...params, _meta: { ...meta, [TRANSPORT_LATENCY_META_KEY]: latency } },
    });
  };

  const finishPrompt = (key: string) => {
    for (const [sessionId, list] of prompts) {
      const index = list.findIndex((timing) => timing.requestKey === key);
      if (index === -1) continue;
      list.splice(index, 1);
      if (list.length === 0) prompts.delete(sessionId);
      return;
    }
  };

  socket.on('message', (data, isBinary) => {
    const action = inspectWebSocketMessage(data, isBinary, resolved.maxMessageBytes);
    switch (action.type) {
      case 'reply':
        logger.warn(`remote sent an ${action.note}`);
        socket.send(action.text);
        return;
      case 'close':
        logger.warn('closing connection', { code: action.code, reason: action.reason });
        socket.close(action.code, closeReason(action.reason));
        return;
      case 'forward':
        break;
    }
    const { frame } = action;
    let payload: Buffer | string = action.payload;
    if (frame.kind === 'response') {
      const key = idKey(frame.id);
      inFlight.delete(key);
      if (resolved.emitLatencyMeta) finishPrompt(key);
      if (localEnded && inFlight.size === 0) queueMicrotask(closeWhenDrained);
    } else if (frame.kind === 'request' || frame.kind === 'notification') {
      if (!resolved.useUnstableProtocol && isUnstableMethod(frame.method)) {
        if (frame.kind === 'request')
          socket.send(errorResponseText(frame.id, RequestError.methodNotFound(frame.method)));
        else
          logger.warn('dropped unstable notification from the remote (enable useUnstableProtocol)', {
            method: frame.method,
          });
        return;
      }
      if (resolved.emitLatencyMeta && frame.kind === 'notification' && frame.method === 'session/update') {
        payload = addLatencyMeta(action.message()) ?? payload;
      }
    }
    writeLine(payload);
  });
  socket.on('error', (error) => logger.warn('WebSocket error', { error: error.message }));

  const splitter = new LineSplitter(resolved.maxMessageBytes, {
    onLine(line) {
      if (line.length === 0) return;
      handleEditorLine(line);
    },
    onOversize(head) {
      const action = inspectOversize(head.toString('utf8'), resolved.maxMessageBytes, undefined);
      if (action.type === 'reply') writeLine(action.text);
      logger.warn('editor message over maxMessageBytes; not forwarded', {
        maxMessageBytes: resolved.maxMessageBytes,
      });
    },
  });
  const onData = (chunk: Buffer | string) =>
    splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  let outputFailed = false;
  let drainTimer: NodeJS.Timeout | undefined;
  const closeUpstream = () => {
    clearTimeout(drainTimer);
    // Reads may be paused for output backpressure; the server's close frame must still get through.
    if (socket.isPaused) socket.resume();
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) {
      socket.close(CloseCode.Normal, 'client input ended');
      // Don't wait ws's 30 s close timeout for a server that never answers the close frame.
      setTimeout(() => socket.terminate(), CLOSE_HANDSHAKE_TIMEOUT_MS).unref();
    }
  };
  closeWhenDrained = () => {
    if (localEnded && inFlight.size === 0) closeUpstream();
  };
  const onEnd = () => {
    if (localEnded) return;
    splitter.end();
    localEnded = true;
    if (outputFailed || inFlight.size === 0) {
      logger.info('local input ended; closing the remote connection');
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
  const onInputError = (error: Error) => {
    logger.warn('local input failed; treating it as end of input', { error: error.message });
    onEnd();
  };
  // An editor that went away makes stdout fail with EPIPE: that is a local end, not a crash.
  const onOutputError = (error: Error) => {
    logger.warn('local output failed; closing the remote connection', { error: error.message });
    outputFailed = true;
    if (localEnded) closeUpstream();
    else onEnd();
  };
  input.on('data', onData);
  input.once('end', onEnd);
  input.on('error', onInputError);
  output.on('error', onOutputError);

  const closeInfo = await new Promise<{ code: number; reason: string }>((resolve) => {
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') }));
  });
  stopHeartbeat();
  input.off('data', onData);
  input.off('end', onEnd);
  input.off('error', onInputError);
  input.pause();
  clearTimeout(drainTimer);
  if (localEnded) {
    if (!outputFailed && inFlight.size > 0) {
      const error = transportLost(closeInfo.code, closeInfo.reason || 'local input ended');
      for (const id of inFlight.values()) writeLine(errorResponseText(id, error));
    }
    await outputWritten();
    return 0;
  }
  logger.error('remote connection lost', {
    code: closeInfo.code,
    reason: closeInfo.reason,
    inFlight: inFlight.size,
  });
  const error = transportLost(closeInfo.code, closeInfo.reason);
  for (const id of inFlight.values()) writeLine(errorResponseText(id, error));
  inFlight.clear();
  await outputWritten();
  return 1;
}
