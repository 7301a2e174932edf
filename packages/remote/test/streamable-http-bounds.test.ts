// Issue 19's bounds on the Streamable HTTP ports, which run on the same relay core as the WebSocket: requests waiting
// for an answer, connections parked without a reader (one bound with the WebSocket's detached sessions), the events
// kept for Last-Event-ID (one message more than resumeBufferBytes), connections together under maxConnections, a
// command agent that does not speak ACP, and the client's stall guard.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { agent, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connectAcp,
  RelayErrorCode,
  type RemoteServer,
  runMirror,
  serveAcp,
  serveCommand,
} from '../src/index.js';
import { Cleanup, ECHO_AGENT, rawRequest, recordingLogger, startEchoServer } from './support/helpers.js';
import { parseMetrics, sampleValue } from './support/prometheus.js';
import { ResumeWireClient } from './support/resume-client.js';
import {
  initialize,
  openedStream,
  openStream,
  post,
  postInitialize,
  TestEventStream,
} from './support/streamable-http.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const silent = { info() {}, warn() {}, error() {} };

const echoServer = (options: Parameters<typeof startEchoServer>[1] = {}) => startEchoServer(cleanup, options);

async function scrape(server: RemoteServer) {
  const response = await rawRequest(server.port, '/metrics', {});
  return parseMetrics(response.body);
}

type Recorder = ReturnType<typeof recordingLogger>;
const KEPT = /session kept for resume/;

/**
 * Opens an HTTP connection, opens its connection stream and drops it: the connection waits for a reader, which the
 * server logs (the `kept`-th such line).
 */
async function parkHttpConnection(server: RemoteServer, recorder: Recorder, kept: number): Promise<string> {
  const { connectionId } = await initialize(server.port);
  const stream = await openedStream(server.port, connectionId);
  stream.close();
  const [line] = (await recorder.waitForCount(KEPT, kept)).slice(-1);
  expect(line?.fields).toMatchObject({ transport: 'streamable_http' });
  return connectionId;
}

describe('requests waiting for an answer (serveAcp over Streamable HTTP)', () => {
  it('answers each request past maxPendingRequests with a JSON-RPC error; the agent never sees it', async () => {
    let prompts = 0;
    const factory = () =>
      agent({ name: 'asking-agent' })
        .onRequest(methods.agent.initialize, () => ({
          protocolVersion: PROTOCOL_VERSION,
          agentCapabilities: {},
        }))
        .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
          prompts += 1;
          await client.request(methods.client.elicitation.create, {
            sessionId: params.sessionId,
            mode: 'form',
            message: 'Pick one',
            requestedSchema: { type: 'object', properties: { choice: { type: 'string' } } },
          });
          return { stopReason: 'end_turn' };
        });
    // biome-ignore lint/suspicious/noExplicitAny: the SDK's AgentApp satisfies ConnectableAgentApp
    const server = await serveAcp(factory as any, { port: 0, logger: silent, maxPendingRequests: 3 });
    cleanup.add(() => server.close());
    const { connectionId } = await initialize(server.port);
    const headers = { 'Acp-Connection-Id': connectionId, 'Acp-Session-Id': 's' };
    const stream = await openedStream(server.port, connectionId, { session: 's' });
    cleanup.add(() => stream.close());
    for (let id = 1; id <= 5; id += 1) {
      const posted = await post(
        server.port,
        { jsonrpc: '2.0', id, method: 'session/prompt', params: { sessionId: 's', prompt: [] } },
        headers,
      );
      expect(posted.status).toBe(202);
    }
    const refused = (id: number) => stream.next((message) => message.id === id && 'error' in message);
    for (const id of [4, 5]) {
      expect((await refused(id)).error).toMatchObject({
        code: RelayErrorCode.TooManyPendingRequests,
        data: { reason: 'too_many_pending_requests', maxPendingRequests: 3 },
      });
    }
    const questions = stream.messages.filter((message) => message.method === 'elicitation/create');
    expect(questions).toHaveLength(3);
    expect(prompts).toBe(3);
  });
});

describe('requests waiting for an answer (runMirror over Streamable HTTP)', () => {
  it('answers an editor request past maxPendingRequests itself; the rest reach the remote', async () => {
    const server = await echoServer();
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: Array<Record<string, unknown>> = [];
    let seen: (line: Record<string, unknown>) => void = () => {};
    output.on('data', (chunk: Buffer) => {
      for (const text of chunk.toString().split('\n').filter(Boolean)) {
        const line = JSON.parse(text) as Record<string, unknown>;
        lines.push(line);
        seen(line);
      }
    });
    const waitFor = (predicate: (line: Record<string, unknown>) => boolean) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const found = lines.find(predicate);
        if (found) resolve(found);
        else seen = (line) => predicate(line) && resolve(line);
      });
    const answered = (id: number) => waitFor((line) => line.id === id && line.method === undefined);
    const exit = runMirror(server.endpoint, { input, output, logger: silent, maxPendingRequests: 2 });
    input.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n');
    await answered(1);
    // Two requests the agent answers only once the editor answered its question back.
    for (const id of [2, 3])
      input.write(`{"jsonrpc":"2.0","id":${id},"method":"_test/ask-client","params":{"method":"_q"}}\n`);
    const questions = [await waitFor((line) => line.method === '_q')];
    questions.push(await waitFor((line) => line.method === '_q' && line.id !== questions[0]!.id));
    input.write('{"jsonrpc":"2.0","id":4,"method":"_test/seen"}\n');
    expect((await answered(4)).error).toMatchObject({
      code: RelayErrorCode.TooManyPendingRequests,
      data: { reason: 'too_many_pending_requests', maxPendingRequests: 2 },
    });
    for (const question of questions)
      input.write(`{"jsonrpc":"2.0","id":${JSON.stringify(question.id)},"result":{}}\n`);
    // Each answer carries the durable-resume cursor of its SSE event (`result._meta["acp/cursor"]`).
    expect((await answered(2)).result).toMatchObject({
      _meta: { 'acp/cursor': expect.any(String) },
      result: {},
    });
    expect((await answered(3)).result).toMatchObject({
      _meta: { 'acp/cursor': expect.any(String) },
      result: {},
    });
    // With those answered, the next request reaches the remote again; the refused one never did.
    input.write('{"jsonrpc":"2.0","id":5,"method":"_test/seen"}\n');
    expect((await answered(5)).result).toMatchObject({
      seen: ['initialize', '_test/ask-client', '_test/ask-client', '_test/seen'],
    });
    input.end();
    expect(await exit).toBe(0);
  });
});

describe('connections without a reader (detached sessions)', () => {
  it('count against maxDetachedSessions together with the WebSocket’s: one more ends the oldest, whatever its transport', async () => {
    const recorder = recordingLogger();
    const server = await serveCommand([process.execPath, ECHO_AGENT], {
      port: 0,
      logger: recorder.logger,
      metrics: true,
      maxDetachedSessions: 1,
      terminateTimeoutMs: 1_000,
    });
    cleanup.add(() => server.close());
    const first = await parkHttpConnection(server, recorder, 1);
    expect(server.detachedCount).toBe(1);

    // A WebSocket session parked for a resume makes room by ending the HTTP connection.
    const client = await ResumeWireClient.open(server.url);
    const welcome = await client.welcome();
    client.request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
    await client.response(0);
    client.socket.terminate();
    await recorder.waitForCount(KEPT, 2);
    const ended = await recorder.waitFor(/detached session ended to make room/);
    expect(ended.fields).toMatchObject({ maxDetachedSessions: 1 });
    const late = await post(server.port, { jsonrpc: '2.0', method: '_n' }, { 'Acp-Connection-Id': first });
    expect(late).toMatchObject({
      status: 404,
      body: expect.stringMatching(/more than 1 detached sessions/),
    });

    // And an HTTP connection without a reader ends the WebSocket session in turn.
    await parkHttpConnection(server, recorder, 3);
    await recorder.waitForCount(/detached session ended to make room/, 2);
    const resume = await rawRequest(
      server.port,
      server.paths.websocket,
      {
        'Sec-WebSocket-Protocol': 'acpkit.resume.v1',
        'Acpkit-Resume-Token': String(welcome.token),
        'Acpkit-Resume-Received': '1',
      },
      { upgrade: true },
    );
    expect(resume.headers['acpkit-resume-refused']).toBe('ended');
    expect(server.detachedCount).toBe(1);
    const metrics = await scrape(server);
    expect(sampleValue(metrics, 'acpremote_sessions_detached')).toBe(1);
    expect(sampleValue(metrics, 'acpremote_limits_reached_total', { limit: 'detached_sessions' })).toBe(2);
  });

  it('leaves a connection whose reader came back alone', async () => {
    const recorder = recordingLogger();
    const server = await echoServer({ maxDetachedSessions: 1, logger: recorder.logger });
    const first = await parkHttpConnection(server, recorder, 1);
    const back = await openedStream(server.port, first);
    cleanup.add(() => back.close());
    await parkHttpConnection(server, recorder, 2);
    expect(server.detachedCount).toBe(1);
    expect(recorder.entries.some((entry) => /make room/.test(entry.message))).toBe(false);
    const posted = await post(
      server.port,
      { jsonrpc: '2.0', id: 1, method: '_test/seen' },
      { 'Acp-Connection-Id': first },
    );
    expect(posted.status).toBe(202);
    expect((await back.next((message) => message.id === 1)).result).toBeDefined();
  });
});

describe('events kept for Last-Event-ID', () => {
  it('keep one message more than resumeBufferBytes: a reader that missed a large event gets it again', async () => {
    const server = await echoServer({ resumeBufferBytes: 1024 });
    const { connectionId } = await initialize(server.port);
    const stream = await openedStream(server.port, connectionId);
    const large = 'x'.repeat(16 * 1024);
    const posted = await post(
      server.port,
      {
        jsonrpc: '2.0',
        id: 1,
        method: '_test/notify-client',
        params: { method: '_large', params: { large } },
      },
      { 'Acp-Connection-Id': connectionId },
    );
    expect(posted.status).toBe(202);
    await stream.next((message) => message.id === 1);
    const largeEvent = stream.events.find((event) => event.data.includes('"_large"'))!;
    const before = String(Number(largeEvent.id) - 1);
    const again = await openStream(server.port, connectionId, { lastEventId: before });
    expect(again).toBeInstanceOf(TestEventStream);
    const replayed = again as TestEventStream;
    cleanup.add(() => replayed.close());
    expect(await replayed.next((message) => message.method === '_large')).toMatchObject({
      params: { large },
    });
  });
});

describe('maxConnections', () => {
  it('counts Streamable HTTP and WebSocket connections together', async () => {
    const server = await echoServer({ maxConnections: 1 });
    const { connectionId } = await initialize(server.port);
    const stream = await openedStream(server.port, connectionId);
    cleanup.add(() => stream.close());
    expect((await postInitialize(server.port)).status).toBe(503);
    const upgrade = await rawRequest(server.port, server.paths.websocket, {}, { upgrade: true });
    expect(upgrade.status).toBe(503);
  });
});

describe('a command agent that does not speak ACP, over Streamable HTTP', () => {
  it('answers initialize with the error within seconds and ends the connection (1011)', async () => {
    const script = 'console.log("Agent starting up, please wait…"); process.stdin.resume();';
    const server = await serveCommand([process.execPath, '-e', script], {
      port: 0,
      logger: silent,
      terminateTimeoutMs: 500,
    });
    cleanup.add(() => server.close());
    const answer = await postInitialize(server.port);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({
      id: 0,
      error: {
        code: RelayErrorCode.AgentNotSpeakingAcp,
        data: { reason: 'agent_not_speaking_acp', preview: 'Agent starting up, please wait…' },
      },
    });
    const connectionId = String(answer.headers['acp-connection-id']);
    const after = await openStream(server.port, connectionId);
    expect(after).toMatchObject({
      status: 404,
      body: expect.stringMatching(/1011: the agent is not speaking ACP/),
    });
  });
});

describe('the client’s stall guard over Streamable HTTP', () => {
  it('closes a connection whose server reads none of its POSTs for stallTimeoutMs (1008, logged)', async () => {
    // An endpoint that answers the probe and initialize, serves the connection stream, and then holds every POST.
    const held: ServerResponse[] = [];
    const endpoint = createServer((request: IncomingMessage, response: ServerResponse) => {
      const connection = request.headers['acp-connection-id'];
      if (request.method === 'GET' && connection === undefined) {
        response.writeHead(400).end('Acp-Connection-Id is missing');
      } else if (request.method === 'GET') {
        response.writeHead(200, { 'Content-Type': 'text/event-stream' });
        response.flushHeaders();
        held.push(response);
      } else if (request.method === 'POST' && connection === undefined) {
        request.resume();
        request.once('end', () => {
          response.writeHead(200, { 'Content-Type': 'application/json', 'Acp-Connection-Id': 'c-1' });
          response.end('{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}');
        });
      } else {
        request.pause();
        held.push(response);
      }
    });
    endpoint.listen(0, '127.0.0.1');
    await new Promise((resolve) => endpoint.once('listening', resolve));
    cleanup.add(
      () =>
        new Promise<void>((resolve) => {
          for (const response of held) response.destroy();
          endpoint.closeAllConnections();
          endpoint.close(() => resolve());
        }),
    );
    const recorder = recordingLogger();
    const remote = await connectAcp(`http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/acp`, {
      logger: recorder.logger,
      stallTimeoutMs: 300,
    });
    cleanup.add(() => remote.close());
    const writer = remote.stream.writable.getWriter();
    const reader = remote.stream.readable.getReader();
    await writer.write({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
    expect((await reader.read()).value).toMatchObject({ id: 0, result: { protocolVersion: 1 } });
    await writer.write({ jsonrpc: '2.0', method: '_test/hello', params: {} });
    expect(await remote.closed).toEqual({
      code: 1008,
      reason: expect.stringMatching(/^send stalled: the peer read nothing for \d+ ms$/),
    });
    expect((await recorder.waitFor(/send stalled/)).message).toBe(
      'connection closed: send stalled, the peer stopped reading',
    );
  });
});
