// ACP's Streamable HTTP and the RFD WebSocket on our servers' mount path: the TypeScript SDK's own clients against
// serveAcp and serveCommand, the wire (routing, ids, Last-Event-ID), and every refusal with its status.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { methods, type Stream } from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { createWebSocketStream } from '@agentclientprotocol/sdk/experimental/ws-client';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { connectAcp, type RemoteServer, runMirror, serveAcp, serveCommand } from '../src/index.js';
import { choiceAgent, choosingClient } from './support/choice-agent.js';
import { Cleanup, ECHO_AGENT, RawClient, rawRequest, startEchoServer } from './support/helpers.js';
import { initialize, openedStream, openStream, post, TestEventStream } from './support/streamable-http.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** An agent that asks one choice per prompt and answers with what it got. */
function choosingAgent() {
  return choiceAgent({
    name: 'choosing-agent',
    sessionId: () => `session-${Math.random().toString(16).slice(2)}`,
    reply: (choice) => `choice=${choice}`,
  });
}

async function serve(): Promise<RemoteServer> {
  const server = await serveAcp(() => choosingAgent(), { port: 0, logger: silent });
  cleanup.add(() => server.close());
  return server;
}

const silent = { info() {}, warn() {}, error() {} };

/** One prompt turn with an SDK client on `stream`, the elicitation answered. */
async function turn(stream: Stream): Promise<string> {
  const { connection, texts } = await choosingClient(stream);
  cleanup.add(() => connection.close());
  const { sessionId } = await connection.agent.request(methods.agent.session.new, {
    cwd: '/',
    mcpServers: [],
  });
  const { stopReason } = await connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text: 'go' }],
  });
  return `${stopReason} ${texts.join('')}`;
}

describe('serveAcp: the TypeScript SDK clients at the endpoint', () => {
  it('createHttpStream runs a turn whose elicitation is answered, and RemoteServer.endpoint names the endpoint', async () => {
    const server = await serve();
    expect(server.endpoint).toBe(`http://127.0.0.1:${server.port}/acp`);
    expect(await turn(createHttpStream(server.endpoint))).toBe('end_turn choice=c0');
  });

  it('createWebSocketStream at ws://…/acp gets Acp-Connection-Id on the 101 and runs the turn', async () => {
    const server = await serve();
    const connectionIds: string[] = [];
    class Recording extends WebSocket {
      constructor(address: string | URL, protocols?: string | string[], options?: WebSocket.ClientOptions) {
        super(address, protocols, options);
        this.once('upgrade', (response) => connectionIds.push(String(response.headers['acp-connection-id'])));
      }
    }
    const stream = createWebSocketStream(server.endpoint.replace(/^http/, 'ws'), {
      WebSocket: Recording as never,
    });
    expect(await turn(stream)).toBe('end_turn choice=c0');
    expect(connectionIds).toEqual([expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-/)]);
  });
});

describe('the RFD WebSocket rules on <mount>, and the acpremote wire on <mount>/ws unchanged', () => {
  it.each([
    [
      'a request other than initialize',
      { jsonrpc: '2.0', id: 1, method: 'session/new', params: {} },
      'First message must be initialize',
    ],
    [
      'initialize without an id',
      { jsonrpc: '2.0', method: 'initialize', params: {} },
      'Initialize request must include an ID',
    ],
    ['not JSON', 'nope', 'First message must be initialize'],
  ])('closes with 1002 when the first message is %s', async (_case, first, reason) => {
    const server = await serve();
    const raw = await RawClient.open(server.endpoint.replace(/^http/, 'ws'));
    cleanup.add(() => raw.close());
    raw.send(first);
    expect(await raw.closed).toEqual({ code: 1002, reason });
  });

  it('keeps <mount>/ws as it was: no Acp-Connection-Id, and a first message other than initialize is relayed', async () => {
    const server = await serveCommand([process.execPath, ECHO_AGENT], { port: 0, logger: silent });
    cleanup.add(() => server.close());
    const upgrade = await rawRequest(server.port, '/acp/ws', {}, { upgrade: true });
    expect(upgrade.upgraded).toBe(true);
    expect(upgrade.headers['acp-connection-id']).toBeUndefined();
    const raw = await RawClient.open(server.url);
    cleanup.add(() => raw.close());
    raw.send({ jsonrpc: '2.0', id: 1, method: '_test/seen', params: {} });
    expect(await raw.response(1)).toMatchObject({ result: { seen: ['_test/seen'] } });
  });
});

describe('serveCommand: the wire of the Streamable HTTP endpoint', () => {
  const echoServer = (options: Parameters<typeof startEchoServer>[1] = {}) =>
    startEchoServer(cleanup, options);

  it('answers initialize in the POST, everything else on the streams, a session’s messages on its own', async () => {
    const server = await echoServer();
    const { connectionId, answer, response } = await initialize(server.port);
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1 } });
    expect(response.headers['acpkit-resume-window-ms']).toBe('60000');
    const connection = await openedStream(server.port, connectionId);
    cleanup.add(() => connection.close());
    const headers = { 'Acp-Connection-Id': connectionId };
    const created = await post(
      server.port,
      { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/' } },
      headers,
    );
    expect(created).toMatchObject({ status: 202, body: '' });
    expect(await connection.next((message) => message.id === 1)).toMatchObject({
      result: { sessionId: 'session-1' },
    });
    const session = await openedStream(server.port, connectionId, { session: 'session-1' });
    cleanup.add(() => session.close());
    const prompt = {
      jsonrpc: '2.0',
      id: 2,
      method: 'session/prompt',
      params: { sessionId: 'session-1', prompt: [] },
    };
    expect((await post(server.port, prompt, { ...headers, 'Acp-Session-Id': 'session-1' })).status).toBe(202);
    expect(await session.next((message) => message.id === 2)).toMatchObject({
      result: { stopReason: 'end_turn' },
    });
    expect(session.messages.filter((message) => message.method === 'session/update')).toHaveLength(2);
    expect(session.events.map((event) => event.id)).toEqual(['1', '2', '3']);
    expect(connection.messages.map((message) => message.id)).toEqual([1]);
  });

  it('routes a client response without Acp-Session-Id by its id (the Python SDK client sends none)', async () => {
    const server = await echoServer();
    const { connectionId } = await initialize(server.port);
    const connection = await openedStream(server.port, connectionId);
    const session = await openedStream(server.port, connectionId, { session: 's' });
    cleanup.add(() => connection.close());
    cleanup.add(() => session.close());
    const headers = { 'Acp-Connection-Id': connectionId };
    const ask = {
      jsonrpc: '2.0',
      id: 5,
      method: '_test/ask-client',
      params: { method: 'elicitation/create', params: { sessionId: 's', mode: 'form', message: 'm' } },
    };
    await post(server.port, ask, headers);
    // The agent's request names the session: it comes on that session's stream.
    const request = await session.next((message) => message.method === 'elicitation/create');
    const answer = { jsonrpc: '2.0', id: request.id, result: { action: 'decline' } };
    expect((await post(server.port, answer, headers)).status).toBe(202);
    expect(await connection.next((message) => message.id === 5)).toMatchObject({
      result: { result: { action: 'decline' } },
    });
  });

  it('replays what a reconnecting stream missed after its Last-Event-ID, then goes on live', async () => {
    const server = await echoServer();
    const { connectionId } = await initialize(server.port);
    const headers = { 'Acp-Connection-Id': connectionId };
    const first = await openedStream(server.port, connectionId);
    const notify = (id: number) =>
      post(
        server.port,
        { jsonrpc: '2.0', id, method: '_test/notify-client', params: { method: '_n', params: { id } } },
        headers,
      );
    await notify(1);
    await first.next((message) => message.id === 1);
    const seen = first.events.at(-1)!.id!;
    first.close();
    await first.ended;
    await notify(2);
    await notify(3);
    const second = await openedStream(server.port, connectionId, { lastEventId: seen });
    cleanup.add(() => second.close());
    await second.next((message) => message.id === 3);
    await notify(4);
    await second.next((message) => message.id === 4);
    // Everything after the last event the first stream got, exactly once (the agent may interleave its answers).
    expect(
      second.messages
        .map((message) => (message.params as { id?: number } | undefined)?.id ?? message.id)
        .sort(),
    ).toEqual([2, 2, 3, 3, 4, 4]);
    expect(second.events.map((event) => Number(event.id))).toEqual([3, 4, 5, 6, 7, 8]);
  });

  it('ends a connection on DELETE: 202, then 404 naming why for anything that names it', async () => {
    const server = await echoServer();
    const { connectionId } = await initialize(server.port);
    const stream = await openedStream(server.port, connectionId);
    const deleted = await rawRequest(
      server.port,
      '/acp',
      { 'Acp-Connection-Id': connectionId },
      { method: 'DELETE' },
    );
    expect(deleted.status).toBe(202);
    await stream.ended;
    expect(stream.comments.at(-1)).toBe('closed 1000 the client ended the connection (DELETE)');
    const late = await post(
      server.port,
      { jsonrpc: '2.0', id: 1, method: 'x' },
      { 'Acp-Connection-Id': connectionId },
    );
    expect(late).toMatchObject({ status: 404 });
    expect(late.body).toMatch(/the connection ended \(1000: the client ended the connection \(DELETE\)\)/);
  });

  it('ends the streams with the agent: the last events first, then the closing comment with 4000', async () => {
    const server = await echoServer();
    const { connectionId } = await initialize(server.port);
    const stream = await openedStream(server.port, connectionId);
    await post(
      server.port,
      { jsonrpc: '2.0', id: 1, method: '_test/exit', params: { code: 3 } },
      { 'Acp-Connection-Id': connectionId },
    );
    await stream.ended;
    expect(stream.messages.map((message) => message.id)).toEqual([1]);
    expect(stream.comments.at(-1)).toBe('closed 4000 agent process exited with code 3');
  });
});

describe('serveCommand: every refusal of the endpoint has its status', () => {
  it.each([
    ['a body that is not JSON', '{"jsonrpc":', {}, 400, /not JSON/],
    [
      'a batch',
      '[{"jsonrpc":"2.0","id":1,"method":"initialize"}]',
      {},
      501,
      /JSON-RPC batches are not supported/,
    ],
    ['a body that is no object', '42', {}, 400, /not a JSON object/],
    ['another content type', '{}', { 'Content-Type': 'text/plain' }, 415, /application\/json/],
    [
      'no Acp-Connection-Id on a message',
      '{"jsonrpc":"2.0","id":1,"method":"session/new"}',
      {},
      400,
      /Acp-Connection-Id is missing/,
    ],
    [
      'an unknown Acp-Connection-Id',
      '{"jsonrpc":"2.0","id":1,"method":"x"}',
      { 'Acp-Connection-Id': 'nope' },
      404,
      /unknown connection/,
    ],
    ['initialize without an id', '{"jsonrpc":"2.0","method":"initialize"}', {}, 400, /request with an id/],
    [
      'a body over maxMessageBytes',
      `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"${'x'.repeat(5000)}"}}`,
      {},
      413,
      /4096-byte limit/,
    ],
  ])('POST with %s → %s', async (_case, body, headers, status, text) => {
    const server = await serveCommand([process.execPath, ECHO_AGENT], {
      port: 0,
      logger: silent,
      maxMessageBytes: 4096,
    });
    cleanup.add(() => server.close());
    const response = await post(server.port, body, headers);
    expect(response.status).toBe(status);
    expect(response.body).toMatch(text);
  });

  it('refuses initialize on an existing connection and a session header that contradicts params.sessionId', async () => {
    const server = await serveCommand([process.execPath, ECHO_AGENT], { port: 0, logger: silent });
    cleanup.add(() => server.close());
    const { connectionId } = await initialize(server.port);
    const headers = { 'Acp-Connection-Id': connectionId };
    expect(
      (await post(server.port, { jsonrpc: '2.0', id: 9, method: 'initialize', params: {} }, headers)).status,
    ).toBe(400);
    const cancel = { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 'a' } };
    const mismatched = await post(server.port, cancel, { ...headers, 'Acp-Session-Id': 'b' });
    expect(mismatched).toMatchObject({ status: 400, body: expect.stringMatching(/another session/) });
  });

  it('answers GETs: 406 without an event-stream Accept, 400 without a connection, 404 unknown, the metadata otherwise', async () => {
    const server = await serveCommand([process.execPath, ECHO_AGENT], { port: 0, logger: silent });
    cleanup.add(() => server.close());
    const { connectionId } = await initialize(server.port);
    expect(
      (
        await rawRequest(server.port, '/acp', {
          'Acp-Connection-Id': connectionId,
          Accept: 'application/json',
        })
      ).status,
    ).toBe(406);
    expect((await rawRequest(server.port, '/acp', { Accept: 'text/event-stream' })).status).toBe(400);
    const unknown = await openStream(server.port, 'not-a-connection');
    expect(unknown).toMatchObject({ status: 404 });
    const metadata = await rawRequest(server.port, '/acp', {});
    expect(metadata.status).toBe(200);
    expect(JSON.parse(metadata.body)).toMatchObject({
      websocket_path: '/acp/ws',
      transport_kind: 'websocket',
    });
    const stream = await openStream(server.port, connectionId, { headers: { Accept: '*/*' } });
    expect(stream).toBeInstanceOf(TestEventStream);
    (stream as TestEventStream).close();
  });

  it('refuses a connection id presented with another token than the one that opened it, as unknown', async () => {
    const server = await serveCommand([process.execPath, ECHO_AGENT], {
      port: 0,
      logger: silent,
      allowedOrigins: ['https://one.example', 'https://two.example'],
    });
    cleanup.add(() => server.close());
    const { connectionId } = await initialize(server.port, { Origin: 'https://one.example' });
    const stolen = await openStream(server.port, connectionId, {
      headers: { Origin: 'https://two.example' },
    });
    expect(stolen).toMatchObject({ status: 404 });
  });
});

describe('connectAcp and runMirror over Streamable HTTP', () => {
  it('connectAcp(http://…/acp) runs a turn whose elicitation is answered, on serveAcp', async () => {
    const server = await serve();
    const remote = await connectAcp(server.endpoint, { logger: silent });
    cleanup.add(() => remote.close());
    expect(await turn(remote.stream)).toBe('end_turn choice=c0');
    expect(remote.resumable).toBe(true);
    await remote.close();
    expect(await remote.closed).toEqual({ code: 1000, reason: '' });
  });

  it('connectAcp with transport websocket turns an http:// URL into the RFD WebSocket at the same path', async () => {
    const server = await serve();
    const remote = await connectAcp(server.endpoint, { logger: silent, transport: 'websocket' });
    cleanup.add(() => remote.close());
    expect(await turn(remote.stream)).toBe('end_turn choice=c0');
  });

  it('runMirror(http://…/acp) relays an editor on stdio to serveCommand and exits 0 on EOF', async () => {
    const server = await serveCommand([process.execPath, ECHO_AGENT], { port: 0, logger: silent });
    cleanup.add(() => server.close());
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: Array<Record<string, unknown>> = [];
    output.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    });
    const exit = runMirror(server.endpoint, { input, output, logger: silent });
    input.write(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n',
    );
    input.write('{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}\n');
    input.write(
      '{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"session-1","prompt":[]}}\n',
    );
    input.end();
    expect(await exit).toBe(0);
    expect(lines.map((line) => line.id ?? line.method)).toEqual([
      1,
      2,
      'session/update',
      'session/update',
      3,
    ]);
    // host ownership still applies: the editor's fs and terminal capabilities never reach the agent.
    expect((lines[0] as { result: { _meta: { received: unknown } } }).result._meta.received).toMatchObject({
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
  });

  it.each([
    ['a missing token', {}, /requires a bearer token \(HTTP 401\); set bearerToken/, 'AUTHENTICATION_FAILED'],
    [
      'a wrong token',
      { bearerToken: 'wrong' },
      /refused the bearer token \(HTTP 401\)/,
      'AUTHENTICATION_FAILED',
    ],
  ])('says which transport refused and why: %s', async (_case, options, message, code) => {
    const server = await serveCommand([process.execPath, ECHO_AGENT], {
      port: 0,
      logger: silent,
      bearerToken: 'right',
    });
    cleanup.add(() => server.close());
    await expect(connectAcp(server.endpoint, { logger: silent, ...options })).rejects.toMatchObject({
      code,
      message: expect.stringMatching(message),
    });
  });

  it('says the path is wrong (404) and names the usual endpoint', async () => {
    const server = await serveCommand([process.execPath, ECHO_AGENT], { port: 0, logger: silent });
    cleanup.add(() => server.close());
    await expect(
      connectAcp(`http://127.0.0.1:${server.port}/nope`, { logger: silent }),
    ).rejects.toMatchObject({
      code: 'CONNECTION_FAILED',
      message: expect.stringMatching(
        /no ACP Streamable HTTP endpoint at \/nope \(HTTP 404\); the endpoint is usually \/acp/,
      ),
    });
  });

  it.each([
    [
      'answers with its metadata (an acpremote that only speaks WebSocket)',
      200,
      { transport_kind: 'websocket', websocket_path: '/acp/ws' },
      /connect to ws:\/\/127\.0\.0\.1:\d+\/acp\/ws instead/,
    ],
    [
      'allows GET and HEAD only (405)',
      405,
      'method not allowed',
      /HTTP 405, it allows GET, HEAD\).*connect with ws:\/\/127\.0\.0\.1:\d+\/acp instead/,
    ],
    ['refuses an event stream (406)', 406, 'Not Acceptable', /HTTP 406: Not Acceptable/],
  ])('tells a server that %s from an ACP Streamable HTTP endpoint', async (_case, status, body, message) => {
    const other = createServer((_request, response) => {
      response.writeHead(status, {
        'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json',
        Allow: 'GET, HEAD',
      });
      response.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    cleanup.add(() => new Promise((resolve) => other.close(resolve)));
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}/acp`;
    await expect(connectAcp(url, { logger: silent })).rejects.toMatchObject({
      code: 'CONNECTION_FAILED',
      message: expect.stringMatching(message),
    });
  });
});
