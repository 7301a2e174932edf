import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AcpRemoteError,
  AcpRemoteErrorCode,
  type MirrorOptions,
  RelayErrorCode,
  RemoteProtocol,
  type RemoteServer,
  runMirror,
  serveCommand,
} from '../src/index.js';
import { Cleanup, ECHO_AGENT, processExists, recordingLogger } from './support/helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function startServer(options: Parameters<typeof serveCommand>[1] = {}): Promise<RemoteServer> {
  const server = await serveCommand([process.execPath, ECHO_AGENT], {
    port: 0,
    logger: recordingLogger().logger,
    terminateTimeoutMs: 1000,
    ...options,
  });
  cleanup.add(() => server.close());
  return server;
}

/** Listeners for notifications the editor-side client receives through its `*` fallback. */
let editorNotificationListeners: Array<(method: string) => void> = [];
afterEach(() => {
  editorNotificationListeners = [];
});

/** Runs the mirror on in-memory stdio and connects a real SDK client app to it, as an editor would. */
function startMirror(server: RemoteServer, options: MirrorOptions = {}, clientHandlers = true) {
  const input = new PassThrough();
  const output = new PassThrough();
  const outputLines: string[] = [];
  let pending = '';
  output.on('data', (chunk: Buffer) => {
    const parts = (pending + chunk.toString('utf8')).split('\n');
    pending = parts.pop() ?? '';
    outputLines.push(...parts);
  });
  const recorder = recordingLogger();
  const exitCode = runMirror(server.url, { input, output, logger: recorder.logger, ...options });
  const editorOutput = new PassThrough();
  output.pipe(editorOutput);
  const stream = ndJsonStream(
    Writable.toWeb(input),
    Readable.toWeb(editorOutput) as ReadableStream<Uint8Array>,
  );
  const updates: Array<Record<string, unknown>> = [];
  let builder = client({ name: 'editor' }).onNotification(methods.client.session.update, ({ params }) => {
    updates.push(params as unknown as Record<string, unknown>);
  });
  builder = builder.onNotification('*', ({ method }) => {
    for (const listener of editorNotificationListeners) listener(method);
  });
  if (clientHandlers) {
    builder = builder
      .onRequest(methods.client.elicitation.create, () => ({ action: 'accept', content: { choice: 'c1' } }))
      .onRequest('*', ({ method }) => ({ answeredByEditor: method }));
  }
  const connection = builder.connect(stream);
  cleanup.add(async () => {
    connection.close();
    if (!input.writableEnded) input.end();
    await exitCode.catch(() => undefined);
  });
  return { input, output, outputLines, exitCode, connection, updates, ...recorder };
}

// biome-ignore lint/suspicious/noExplicitAny: the echo agent's results are loosely typed JSON
type Loose = any;

describe('runMirror', () => {
  it('applies remote host ownership to initialize and keeps elicitation and unknown fields', async () => {
    const server = await startServer();
    const { connection } = startMirror(server);
    const result: Loose = await connection.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: true, writeTextFile: true },
        terminal: true,
        elicitation: { form: {} },
        futureCap: { x: 1 },
      } as never,
    });
    expect(result._meta.received.clientCapabilities).toEqual({
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
      elicitation: { form: {} },
      futureCap: { x: 1 },
    });
  });

  it('passes the client capabilities through unchanged in client-passthrough mode', async () => {
    const server = await startServer();
    const { connection } = startMirror(server, { hostOwnership: 'client-passthrough' });
    const capabilities = {
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      elicitation: { form: {} },
    };
    const result: Loose = await connection.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: capabilities,
    });
    expect(result._meta.received.clientCapabilities).toEqual(capabilities);
  });

  it('rewrites the cwd of session requests to the remote_cwd from the server metadata', async () => {
    const directory = realpathSync(mkdtempSync(join(tmpdir(), 'acpremote-mirror-')));
    cleanup.add(() => rmSync(directory, { recursive: true, force: true }));
    const server = await startServer({ cwd: directory });
    const { connection } = startMirror(server);
    const created: Loose = await connection.agent.request(methods.agent.session.new, {
      cwd: '/home/editor/project',
      mcpServers: [],
    });
    expect(created._meta.received).toEqual({ cwd: directory, mcpServers: [] });
  });

  it('relays id 0, _-prefixed methods and elicitation in both directions', async () => {
    const server = await startServer();
    const { connection } = startMirror(server);
    const ping: Loose = await connection.agent.request('_vendor/ping', { payload: [1, { deep: true }] });
    expect(ping.echo).toMatchObject({ method: '_vendor/ping', params: { payload: [1, { deep: true }] } });
    const asked: Loose = await connection.agent.request('_test/ask-client', {
      method: 'elicitation/create',
      params: {
        sessionId: 's',
        mode: 'form',
        message: 'm',
        requestedSchema: { type: 'object', properties: {} },
      },
    });
    expect(asked.result).toEqual({ action: 'accept', content: { choice: 'c1' } });
    const vendor: Loose = await connection.agent.request('_test/ask-client', { method: '_vendor/question' });
    expect(vendor.result).toEqual({ answeredByEditor: '_vendor/question' });
  });

  it('answers unstable requests from the editor with -32601 itself and forwards nothing without the flag', async () => {
    const server = await startServer();
    const { connection, waitFor } = startMirror(server);
    const error: Loose = await connection.agent
      .request('session/fork', { sessionId: 's', cwd: '/x' })
      .catch((caught: unknown) => caught);
    expect(error.code).toBe(-32601);
    await connection.agent.notify('mcp/message', { sessionId: 's' });
    expect((await waitFor(/dropped unstable notification from the editor/)).fields).toEqual({
      method: 'mcp/message',
    });
    await connection.agent.notify('_vendor/note', {});
    const { seen }: Loose = await connection.agent.request('_test/seen', {});
    expect(seen).toEqual(['_vendor/note', '_test/seen']);
  });

  it('answers unstable requests from the remote with -32601 and drops its unstable notifications without the flag', async () => {
    const server = await startServer();
    const { connection, outputLines, waitFor } = startMirror(server);
    const asked: Loose = await connection.agent.request('_test/ask-client', {
      method: 'mcp/message',
      params: {},
    });
    expect(asked.error.code).toBe(-32601);
    await connection.agent.request('_test/notify-client', { method: 'auth/status_update' });
    expect((await waitFor(/dropped unstable notification from the remote/)).fields).toEqual({
      method: 'auth/status_update',
    });
    expect(outputLines.some((line) => line.includes('"method":"auth/status_update"'))).toBe(false);
  });

  it('treats a failing output (editor gone, EPIPE) as the end of the session and resolves 0', async () => {
    const server = await startServer();
    const input = new PassThrough();
    const output = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    const exitCode = runMirror(server.url, { input, output, logger: recordingLogger().logger });
    input.write('not json at all\n');
    expect(await exitCode).toBe(0);
  });

  it('relays unstable methods in both directions with useUnstableProtocol', async () => {
    const server = await startServer();
    const { connection } = startMirror(server, { useUnstableProtocol: true });
    const forked: Loose = await connection.agent.request('session/fork', { sessionId: 's', cwd: '/x' });
    expect(forked.echo.method).toBe('session/fork');
    await connection.agent.notify('mcp/message', { sessionId: 's' });
    const { seen }: Loose = await connection.agent.request('_test/seen', {});
    expect(seen).toEqual(['session/fork', 'mcp/message', '_test/seen']);
    const relayed = new Promise<string>((resolve) => {
      editorNotificationListeners.push((method) => {
        if (method === 'auth/status_update') resolve(method);
      });
    });
    await connection.agent.request('_test/notify-client', { method: 'auth/status_update' });
    expect(await relayed).toBe('auth/status_update');
    const asked: Loose = await connection.agent.request('_test/ask-client', {
      method: 'mcp/message',
      params: {},
    });
    expect(asked.result).toEqual({ answeredByEditor: 'mcp/message' });
  });

  it('writes only JSON-RPC to its output', async () => {
    const server = await startServer({ env: { ECHO_AGENT_BANNER: 'noisy banner on stdout' } });
    const { connection, outputLines } = startMirror(server);
    await connection.agent.request('_test/garbage', {});
    await connection.agent.request(methods.agent.session.prompt, { sessionId: 's', prompt: [] });
    expect(outputLines.length).toBeGreaterThan(2);
    for (const line of outputLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  });

  it('puts transport timings under _meta["acpkit.dev/transport-latency"] of session/update', async () => {
    const server = await startServer();
    const { connection, updates } = startMirror(server, { emitLatencyMeta: true });
    await connection.agent.request(methods.agent.session.prompt, { sessionId: 'session-1', prompt: [] });
    expect(updates).toHaveLength(2);
    const metas = updates.map((update: Loose) => update._meta[RemoteProtocol.transportLatencyMetaKey]);
    expect(metas.map((meta) => meta.updateCount)).toEqual([1, 2]);
    for (const meta of metas) {
      expect(meta.elapsedMs).toBeGreaterThanOrEqual(meta.firstUpdateMs);
      expect(typeof meta.receivedAtMs).toBe('number');
    }
    expect(JSON.stringify(updates)).not.toContain('field_meta');
  });

  it('adds no latency meta by default', async () => {
    const server = await startServer();
    const { connection, updates } = startMirror(server);
    await connection.agent.request(methods.agent.session.prompt, { sessionId: 'session-1', prompt: [] });
    expect(updates.every((update) => !('_meta' in update))).toBe(true);
  });

  it('closes the socket and resolves 0 on input EOF, and the server reaps the remote child', async () => {
    const server = await startServer();
    const { connection, input, exitCode } = startMirror(server);
    const pinged: Loose = await connection.agent.request('_vendor/pid', {});
    input.end();
    expect(await exitCode).toBe(0);
    await server.close();
    expect(processExists(pinged.pid)).toBe(false);
  });

  it('still delivers answers to requests sent before input EOF, then resolves 0', async () => {
    const server = await startServer();
    const input = new PassThrough();
    const output = new PassThrough();
    const exitCode = runMirror(server.url, { input, output, logger: recordingLogger().logger });
    input.end(
      `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } })}\n` +
        `${JSON.stringify({ jsonrpc: '2.0', id: 'fork', method: 'session/fork', params: { sessionId: 's' } })}\n`,
    );
    expect(await exitCode).toBe(0);
    const lines = output
      .read()
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line: string) => JSON.parse(line));
    expect(lines.find((line: Loose) => line.id === 0)?.result.protocolVersion).toBe(1);
    expect(lines.find((line: Loose) => line.id === 'fork')?.error.code).toBe(-32601);
  });

  it('gives up on an unanswered request a few seconds after input EOF, answering it with an error', async () => {
    const server = await startServer();
    const input = new PassThrough();
    const output = new PassThrough();
    const recorder = recordingLogger();
    const exitCode = runMirror(server.url, { input, output, logger: recorder.logger });
    input.end(`${JSON.stringify({ jsonrpc: '2.0', id: 9, method: '_test/hang', params: {} })}\n`);
    await recorder.waitFor(/once in-flight requests are answered/);
    expect(await exitCode).toBe(0);
    const [line] = output.read().toString('utf8').trim().split('\n');
    expect(JSON.parse(line)).toMatchObject({ id: 9, error: { code: RelayErrorCode.TransportLost } });
  });

  it('fails every in-flight request with a transport-loss error and resolves 1 when the remote dies', async () => {
    const server = await startServer();
    const { connection, exitCode } = startMirror(server);
    const { pid }: Loose = await connection.agent.request('_vendor/pid', {});
    const hanging = connection.agent.request('_test/hang', {}).catch((caught: unknown) => caught);
    // Ensure the request reached the agent before killing it (the echo answers in order).
    await connection.agent.request('_vendor/sync', {});
    process.kill(pid, 'SIGKILL');
    const error: Loose = await hanging;
    expect(error.code).toBe(RelayErrorCode.TransportLost);
    expect(error.message).toMatch(/transport lost/);
    expect(error.data).toMatchObject({ closeCode: 4000 });
    expect(await exitCode).toBe(1);
  });

  it('answers an oversized editor request with an error and keeps relaying', async () => {
    const server = await startServer();
    const { connection } = startMirror(server, { maxMessageBytes: 4096 });
    const error: Loose = await connection.agent
      .request('_vendor/upload', { blob: 'z'.repeat(10_000) })
      .catch((caught: unknown) => caught);
    expect(error.code).toBe(-32600);
    expect(((await connection.agent.request('_vendor/ping', {})) as Loose).echo.method).toBe('_vendor/ping');
  });

  it('rejects with AUTHENTICATION_FAILED or CONNECTION_FAILED when it cannot connect', async () => {
    const server = await startServer({ bearerToken: 'token-1' });
    const input = new PassThrough();
    const output = new PassThrough();
    const logger = recordingLogger().logger;
    const unauthorised = await runMirror(server.url, { input, output, logger }).catch(
      (error: unknown) => error,
    );
    expect(AcpRemoteError.isInstance(unauthorised) && unauthorised.code).toBe(
      AcpRemoteErrorCode.AuthenticationFailed,
    );
    const port = server.port;
    await server.close();
    const refused = await runMirror(`ws://127.0.0.1:${port}/acp/ws`, { input, output, logger }).catch(
      (error: unknown) => error,
    );
    expect(AcpRemoteError.isInstance(refused) && refused.code).toBe(AcpRemoteErrorCode.ConnectionFailed);
    expect(output.readableLength).toBe(0);
  });

  it('warns on stderr for ws:// to a non-loopback host', async () => {
    const recorder = recordingLogger();
    // 192.0.2.0/24 is TEST-NET-1: never routed, so the attempt ends at the open timeout.
    const result = await runMirror('ws://192.0.2.1:9/acp/ws', {
      input: new PassThrough(),
      output: new PassThrough(),
      logger: recorder.logger,
      openTimeoutMs: 300,
    }).catch((error: unknown) => error);
    expect(AcpRemoteError.isInstance(result)).toBe(true);
    expect((await recorder.waitFor(/unencrypted/)).level).toBe('warn');
  });
});
