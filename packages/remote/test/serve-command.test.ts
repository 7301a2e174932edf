import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { client, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AcpRemoteError,
  AcpRemoteErrorCode,
  CloseCode,
  connectAcp,
  RelayErrorCode,
  type RemoteServer,
  serveCommand,
} from '../src/index.js';
import {
  Cleanup,
  ECHO_AGENT,
  processExists,
  RawClient,
  recordingLogger,
  STUBBORN_CHILD,
} from './support/helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function startEcho(options: Parameters<typeof serveCommand>[1] = {}) {
  const recorder = recordingLogger();
  const server = await serveCommand([process.execPath, ECHO_AGENT], {
    port: 0,
    logger: recorder.logger,
    ...options,
  });
  cleanup.add(() => server.close());
  return { server, ...recorder };
}

async function openClient(server: RemoteServer, headers?: Record<string, string>) {
  const raw = await RawClient.open(server.url, headers);
  cleanup.add(() => raw.close());
  return raw;
}

describe('serveCommand', () => {
  it('relays a real SDK client session to the stdio agent, unknown fields included', async () => {
    const { server } = await startEcho();
    const remote = await connectAcp(server.url);
    cleanup.add(() => remote.close());
    const updates: unknown[] = [];
    const connection = client({ name: 'test-client' })
      .onNotification('session/update', ({ params }) => {
        updates.push(params);
      })
      .connect(remote.stream);
    const initialized = await connection.agent.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { elicitation: { form: {} }, futureCap: { enabled: true } } as never,
    });
    expect(initialized._meta?.received).toEqual({
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { elicitation: { form: {} }, futureCap: { enabled: true } },
    });
    const prompt = await connection.agent.request('session/prompt', { sessionId: 'session-1', prompt: [] });
    expect(prompt.stopReason).toBe('end_turn');
    expect(updates).toHaveLength(2);
    expect(remote.metadata?.remote_cwd).toBe(process.cwd());
  });

  it('keeps JSON-RPC id 0, _-prefixed methods and unknown fields unchanged', async () => {
    const { server } = await startEcho();
    const raw = await openClient(server);
    raw.send({
      jsonrpc: '2.0',
      id: 0,
      method: '_vendor/ping',
      params: { nested: { unknown: [1, 'two', null] } },
    });
    const response = await raw.response(0);
    expect(response.id).toBe(0);
    expect(response.result.echo).toEqual({
      method: '_vendor/ping',
      params: { nested: { unknown: [1, 'two', null] } },
      requestId: 0,
    });
  });

  it('relays $/cancel_request so the agent cancels the request with -32800', async () => {
    const { server } = await startEcho();
    const raw = await openClient(server);
    raw.send({ jsonrpc: '2.0', id: 'slow-1', method: '_test/wait-for-cancel', params: {} });
    raw.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 'slow-1' } });
    const response = await raw.response('slow-1');
    expect(response.error.code).toBe(-32800);
  });

  it('relays notifications in both directions', async () => {
    const { server } = await startEcho();
    const raw = await openClient(server);
    raw.send({ jsonrpc: '2.0', method: '_vendor/note', params: { n: 1 } });
    const notified = await raw.next((message) => message.method === '_test/notified');
    expect(notified.params).toEqual({ method: '_vendor/note', params: { n: 1 } });
  });

  it('starts the child in cwd with the inherited environment plus additive overrides, KEY= included', async () => {
    const directory = realpathSync(mkdtempSync(join(tmpdir(), 'acpremote-cwd-')));
    cleanup.add(() => rmSync(directory, { recursive: true, force: true }));
    const { server } = await startEcho({
      cwd: directory,
      env: { ECHO_VALUE: 'from-options', ECHO_EMPTY: '' },
    });
    expect(server.metadata.remote_cwd).toBe(directory);
    const raw = await openClient(server);
    raw.send({ jsonrpc: '2.0', id: 1, method: '_vendor/env', params: {} });
    const { result } = await raw.response(1);
    expect(result.cwd).toBe(directory);
    expect(result.env).toEqual({ ECHO_VALUE: 'from-options', ECHO_EMPTY: '' });
  });

  it('removes unsetEnv names from the inherited environment', async () => {
    process.env.ECHO_VALUE = 'secret-from-parent';
    cleanup.add(() => {
      delete process.env.ECHO_VALUE;
    });
    const { server } = await startEcho({ unsetEnv: ['ECHO_VALUE'] });
    const raw = await openClient(server);
    raw.send({ jsonrpc: '2.0', id: 1, method: '_vendor/env', params: {} });
    expect((await raw.response(1)).result.env.ECHO_VALUE).toBeNull();
  });

  it('spawns one child per connection', async () => {
    const { server } = await startEcho();
    const first = await openClient(server);
    const second = await openClient(server);
    first.send({ jsonrpc: '2.0', id: 1, method: '_vendor/pid', params: {} });
    second.send({ jsonrpc: '2.0', id: 1, method: '_vendor/pid', params: {} });
    const [a, b] = await Promise.all([first.response(1), second.response(1)]);
    expect(a.result.pid).not.toBe(b.result.pid);
    first.close();
    await first.closed;
    second.send({ jsonrpc: '2.0', id: 2, method: '_vendor/pid', params: {} });
    expect((await second.response(2)).result.pid).toBe(b.result.pid);
  });

  it('logs a child stdout line that is not JSON-RPC and does not forward it', async () => {
    const { server, waitFor } = await startEcho({ env: { ECHO_AGENT_BANNER: 'Agent starting up...' } });
    const raw = await openClient(server);
    raw.send({ jsonrpc: '2.0', id: 1, method: '_test/garbage', params: {} });
    const response = await raw.response(1);
    expect(response.result).toEqual({ ok: true });
    const entry = await waitFor(/not a JSON-RPC object/);
    expect(entry.level).toBe('warn');
    raw.send({ jsonrpc: '2.0', id: 2, method: '_vendor/after', params: {} });
    // Only JSON-RPC reached the client: the next message is the response to request 2.
    expect((await raw.next()).id).toBe(2);
  });

  it('answers a client message that is not one JSON object with a JSON-RPC error and stays open', async () => {
    const { server } = await startEcho();
    const raw = await openClient(server);
    raw.send('this is not json');
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32700 } });
    raw.send('[{"jsonrpc":"2.0","id":1,"method":"x"}]');
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32600 } });
    raw.send('{"jsonrpc":"2.0",\n"id":3,\r\n"method":"_vendor/multi-line","params":{"text":"a\\nb"}}');
    expect((await raw.response(3)).result.echo.params).toEqual({ text: 'a\nb' });
  });

  it('closes the socket with 4000 and a reason naming the exit code when the child exits', async () => {
    const { server } = await startEcho();
    const raw = await openClient(server);
    raw.send({ jsonrpc: '2.0', id: 1, method: '_test/exit', params: { code: 3 } });
    expect((await raw.response(1)).result).toEqual({ exiting: true });
    expect(await raw.closed).toEqual({
      code: CloseCode.AgentExited,
      reason: 'agent process exited with code 3',
    });
  });

  it('closes the socket with 4001 when the command cannot be started', async () => {
    const recorder = recordingLogger();
    const server = await serveCommand(['/nonexistent/acp-agent-binary'], {
      port: 0,
      logger: recorder.logger,
    });
    cleanup.add(() => server.close());
    const raw = await openClient(server);
    const closed = await raw.closed;
    expect(closed.code).toBe(CloseCode.AgentSpawnFailed);
    expect(closed.reason).toMatch(/agent process failed to start: ENOENT/);
  });

  it('kills a child that ignores stdin EOF and SIGTERM, with its process group, when the socket closes', async () => {
    const recorder = recordingLogger();
    const server = await serveCommand([process.execPath, STUBBORN_CHILD], {
      port: 0,
      terminateTimeoutMs: 300,
      logger: recorder.logger,
    });
    cleanup.add(() => server.close());
    const raw = await openClient(server);
    const { params } = await raw.next((message) => message.method === '_test/pids');
    cleanup.add(() => {
      for (const pid of [params.pid, params.grandchild]) if (processExists(pid)) process.kill(pid, 'SIGKILL');
    });
    expect(processExists(params.pid)).toBe(true);
    expect(processExists(params.grandchild)).toBe(true);
    raw.close();
    await raw.closed;
    // close() waits for every connection's teardown, which ends only once the group is gone.
    await server.close();
    expect(processExists(params.pid)).toBe(false);
    expect(processExists(params.grandchild)).toBe(false);
  });

  it('reaps every child when the server closes with connections open', async () => {
    const { server } = await startEcho({ terminateTimeoutMs: 1000 });
    const raw = await openClient(server);
    raw.send({ jsonrpc: '2.0', id: 1, method: '_vendor/pid', params: {} });
    const { pid } = (await raw.response(1)).result;
    await server.close();
    await server.close();
    expect(processExists(pid)).toBe(false);
    expect((await raw.closed).code).toBe(CloseCode.GoingAway);
  });

  it('closes with 1003 on a binary frame', async () => {
    const { server } = await startEcho();
    const raw = await openClient(server);
    raw.socket.send(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"x"}'), { binary: true });
    expect((await raw.closed).code).toBe(CloseCode.UnsupportedData);
  });

  it('closes with 1007 on a text frame that is not valid UTF-8', async () => {
    const { server } = await startEcho();
    const raw = await openClient(server);
    raw.socket.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect((await raw.closed).code).toBe(CloseCode.InvalidPayload);
  });

  it('answers an oversized request with a JSON-RPC error naming the limit and keeps the connection', async () => {
    const { server } = await startEcho({ maxMessageBytes: 2048 });
    const raw = await openClient(server);
    raw.send({ jsonrpc: '2.0', id: 7, method: 'session/prompt', params: { blob: 'x'.repeat(3000) } });
    const response = await raw.response(7);
    expect(response.error).toMatchObject({
      code: RelayErrorCode.MessageTooLarge,
      data: { maxMessageBytes: 2048 },
    });
    raw.send({ jsonrpc: '2.0', id: 8, method: '_vendor/ping', params: {} });
    expect((await raw.response(8)).result.echo.method).toBe('_vendor/ping');
  });

  it('closes with 1009 and a reason on an oversized notification', async () => {
    const { server } = await startEcho({ maxMessageBytes: 2048 });
    const raw = await openClient(server);
    raw.send({ jsonrpc: '2.0', method: 'session/update', params: { blob: 'x'.repeat(3000) } });
    const closed = await raw.closed;
    expect(closed.code).toBe(CloseCode.MessageTooBig);
    expect(closed.reason).toMatch(/2048-byte limit/);
  });

  it('closes with 1009 on a payload far over the limit', async () => {
    const { server } = await startEcho({ maxMessageBytes: 2048 });
    const raw = await openClient(server);
    raw.send({ jsonrpc: '2.0', id: 1, method: 'x', params: { blob: 'x'.repeat(10_000) } });
    expect((await raw.closed).code).toBe(CloseCode.MessageTooBig);
  });

  it('closes with 1009 when the agent writes a line over the limit', async () => {
    const { server } = await startEcho({ maxMessageBytes: 2048 });
    const raw = await openClient(server);
    raw.send({ jsonrpc: '2.0', id: 1, method: '_test/big', params: { bytes: 5000 } });
    const closed = await raw.closed;
    expect(closed.code).toBe(CloseCode.MessageTooBig);
    expect(closed.reason).toMatch(/agent message exceeds/);
  });

  it('relays multi-megabyte messages intact in both directions', async () => {
    const { server } = await startEcho();
    const raw = await openClient(server);
    const blob = 'y'.repeat(6 * 1024 * 1024);
    raw.send({ jsonrpc: '2.0', id: 1, method: '_vendor/upload', params: { blob } });
    raw.send({ jsonrpc: '2.0', id: 2, method: '_test/big', params: { bytes: 8 * 1024 * 1024 } });
    const [upload, download] = await Promise.all([raw.response(1), raw.response(2)]);
    expect(upload.result.echo.params.blob).toBe(blob);
    expect(download.result.blob).toHaveLength(8 * 1024 * 1024);
  });

  it('refuses an empty command, a blank token and a missing cwd with INVALID_OPTION', async () => {
    const attempts = [
      () => serveCommand([], { port: 0 }),
      () => serveCommand([process.execPath], { port: 0, bearerToken: '   ' }),
      () => serveCommand([process.execPath], { port: 0, cwd: '/nonexistent/directory' }),
      () => serveCommand([process.execPath], { port: 0, env: { 'A=B': 'x' } }),
      () => serveCommand([process.execPath], { port: 0, terminateTimeoutMs: 0 }),
    ];
    for (const attempt of attempts) {
      const error = await attempt().then(
        (server) => server.close(),
        (caught: unknown) => caught,
      );
      expect(AcpRemoteError.isInstance(error) && error.code).toBe(AcpRemoteErrorCode.InvalidOption);
    }
  });
});
