// /metrics over real sockets: scraped and parsed after known traffic, the counts match what was sent.
import { agent, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type RemoteServer, serveAcp, serveCommand } from '../src/index.js';
import { RESUME_SUBPROTOCOL } from '../src/websocket/resume/resume-protocol.js';
import { Cleanup, ECHO_AGENT, RawClient, rawRequest, recordingLogger } from './support/helpers.js';
import { type Family, parseMetrics, sampleValue } from './support/prometheus.js';

const TOKEN = 'metrics-test-token';
const AUTH = { Authorization: `Bearer ${TOKEN}` };
const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function scrape(server: RemoteServer): Promise<Map<string, Family>> {
  const response = await rawRequest(server.port, '/metrics', AUTH);
  expect(response.status, response.body).toBe(200);
  expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseMetrics(response.body);
}

/** A raw client that also records the byte length of every frame it receives. */
async function openCounting(server: RemoteServer) {
  const raw = await RawClient.open(server.url, AUTH);
  cleanup.add(() => raw.close());
  const received: number[] = [];
  raw.socket.on('message', (data: Buffer) => received.push(data.length));
  return { raw, received };
}

/** A `serveCommand` echo server with metrics on and the test token. */
async function startCommandServer() {
  const recorder = recordingLogger();
  const server = await serveCommand([process.execPath, ECHO_AGENT], {
    port: 0,
    bearerToken: TOKEN,
    metrics: true,
    logger: recorder.logger,
  });
  cleanup.add(() => server.close());
  return { server, recorder };
}

describe('/metrics', () => {
  it('serveCommand: counts connections, messages, bytes, sizes, refusals and child exits exactly', async () => {
    const { server, recorder } = await startCommandServer();

    const sentFrames: string[] = [];
    const { raw, received } = await openCounting(server);
    const send = (message: object | string) => {
      const text = typeof message === 'string' ? message : JSON.stringify(message);
      sentFrames.push(text);
      raw.send(text);
    };
    for (let id = 1; id <= 5; id += 1) {
      send({ jsonrpc: '2.0', id, method: '_vendor/echo', params: { padding: 'x'.repeat(id * 100) } });
      await raw.response(id);
    }
    send({ jsonrpc: '2.0', id: 6, method: '_test/big', params: { bytes: 300_000 } });
    await raw.response(6);
    // Refused frames: garbage from the client (answered with -32700), a non-JSON line from the agent (dropped).
    send('not json');
    await raw.next((message) => message.error?.code === -32700);
    send({ jsonrpc: '2.0', id: 7, method: '_test/garbage', params: {} });
    await raw.response(7);

    // A second connection closed for a binary frame (1003).
    const binary = await RawClient.open(server.url, AUTH);
    binary.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    expect((await binary.closed).code).toBe(1003);
    // Its teardown (the agent reaped) has finished once the server logs the close.
    expect((await recorder.waitFor(/^connection closed$/)).fields).toEqual({
      connection: 2,
      transport: 'websocket',
    });
    // Refused upgrades: no token, a foreign Origin.
    expect((await rawRequest(server.port, '/acp/ws', {}, { upgrade: true })).status).toBe(401);
    expect(
      (
        await rawRequest(
          server.port,
          '/acp/ws',
          { ...AUTH, Origin: 'https://evil.example' },
          { upgrade: true },
        )
      ).status,
    ).toBe(403);
    expect((await rawRequest(server.port, '/acp', {})).status).toBe(401);

    let families = await scrape(server);
    expect(sampleValue(families, 'acpremote_connections_open')).toBe(1);
    expect(sampleValue(families, 'acpremote_connections_total', { outcome: 'accepted' })).toBe(2);
    expect(sampleValue(families, 'acpremote_connections_total', { outcome: 'auth' })).toBe(1);
    expect(sampleValue(families, 'acpremote_connections_total', { outcome: 'origin' })).toBe(1);
    expect(sampleValue(families, 'acpremote_http_requests_refused_total', { reason: 'auth' })).toBe(1);

    // Every text frame the first client sent, and every frame it got (the binary one is no message).
    const bytesSent = sentFrames.reduce((total, text) => total + Buffer.byteLength(text), 0);
    expect(sampleValue(families, 'acpremote_messages_total', { direction: 'received' })).toBe(
      sentFrames.length,
    );
    expect(sampleValue(families, 'acpremote_message_bytes_total', { direction: 'received' })).toBe(bytesSent);
    expect(sampleValue(families, 'acpremote_messages_total', { direction: 'sent' })).toBe(received.length);
    const bytesReceived = received.reduce((total, length) => total + length, 0);
    expect(sampleValue(families, 'acpremote_message_bytes_total', { direction: 'sent' })).toBe(bytesReceived);
    const size = (direction: string, le: string) =>
      sampleValue(families, 'acpremote_message_size_bytes', { direction, le });
    expect(size('sent', '+Inf')).toBe(received.length);
    expect(size('sent', '262144')).toBe(received.length - 1); // the 300 kB answer
    expect(size('sent', '1048576')).toBe(received.length);
    const small = sentFrames.filter((text) => Buffer.byteLength(text) <= 64).length;
    expect(small).toBe(2); // 'not json' and the _test/garbage request
    expect(size('received', '64')).toBe(small);
    expect(sampleValue(families, 'acpremote_message_size_bytes', { direction: 'sent', sample: 'sum' })).toBe(
      bytesReceived,
    );

    const refusedFrames = (sender: string, reason: string) =>
      sampleValue(families, 'acpremote_frames_refused_total', { sender, reason });
    expect(refusedFrames('client', 'not_json_rpc')).toBe(1);
    expect(refusedFrames('client', 'binary')).toBe(1);
    expect(refusedFrames('agent', 'not_json_rpc')).toBe(1);
    expect(sampleValue(families, 'acpremote_child_processes_started_total')).toBe(2);

    // Both agents end on stdin EOF when their sockets close: two exits with code 0.
    raw.close();
    await server.drain({ graceMs: 60_000 });
    families = await scrape(server);
    expect(sampleValue(families, 'acpremote_connections_open')).toBe(0);
    expect(sampleValue(families, 'acpremote_draining')).toBe(1);
    expect(sampleValue(families, 'acpremote_child_process_exits_total', { code: '0', signal: '' })).toBe(2);
    expect((await rawRequest(server.port, '/acp/ws', AUTH, { upgrade: true })).status).toBe(503);
    families = await scrape(server);
    expect(sampleValue(families, 'acpremote_connections_total', { outcome: 'draining' })).toBe(1);
  });

  it('needs the bearer token, follows the Host and Origin rules, answers HEAD, and is 404 when off', async () => {
    const server = await serveCommand([process.execPath, ECHO_AGENT], {
      port: 0,
      bearerToken: TOKEN,
      metrics: true,
      logger: recordingLogger().logger,
    });
    cleanup.add(() => server.close());
    const unauthorised = await rawRequest(server.port, '/metrics', {});
    expect(unauthorised.status).toBe(401);
    expect(unauthorised.body).not.toContain('acpremote_');
    expect((await rawRequest(server.port, '/metrics', { ...AUTH, Host: 'evil.example' })).status).toBe(403);
    expect(
      (await rawRequest(server.port, '/metrics', { ...AUTH, Origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect((await rawRequest(server.port, '/metrics', AUTH, { method: 'POST' })).status).toBe(405);
    const head = await rawRequest(server.port, '/metrics', AUTH, { method: 'HEAD' });
    expect(head).toMatchObject({ status: 200, body: '' });
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    // The refused scrapes were counted (read by a later scrape).
    expect(
      sampleValue(await scrape(server), 'acpremote_http_requests_refused_total', { reason: 'host' }),
    ).toBe(1);

    const off = await serveCommand([process.execPath, ECHO_AGENT], {
      port: 0,
      logger: recordingLogger().logger,
    });
    cleanup.add(() => off.close());
    expect((await rawRequest(off.port, '/metrics', {})).status).toBe(404);
  });

  it('serveAcp: counts the in-process agent’s messages, and two servers in one process keep their own counts', async () => {
    const makeAgent = () =>
      agent({ name: 'metrics-agent' }).onRequest(methods.agent.initialize, () => ({
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {},
      }));
    const first = await serveAcp(makeAgent, {
      port: 0,
      metrics: true,
      bearerToken: TOKEN,
      logger: recordingLogger().logger,
    });
    const second = await serveAcp(makeAgent, {
      port: 0,
      metrics: true,
      bearerToken: TOKEN,
      logger: recordingLogger().logger,
    });
    cleanup.add(() => first.close());
    cleanup.add(() => second.close());
    const { raw, received } = await openCounting(first);
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} },
    });
    raw.send(initialize);
    await raw.response(1);
    raw.send('[]');
    await raw.next((message) => message.error?.code === -32600);

    const families = await scrape(first);
    expect(sampleValue(families, 'acpremote_messages_total', { direction: 'received' })).toBe(2);
    expect(sampleValue(families, 'acpremote_message_bytes_total', { direction: 'received' })).toBe(
      Buffer.byteLength(initialize) + 2,
    );
    expect(sampleValue(families, 'acpremote_messages_total', { direction: 'sent' })).toBe(received.length);
    expect(
      sampleValue(families, 'acpremote_frames_refused_total', { sender: 'client', reason: 'not_json_rpc' }),
    ).toBe(1);
    const other = await scrape(second);
    expect(sampleValue(other, 'acpremote_messages_total', { direction: 'received' })).toBe(0);
    expect(sampleValue(other, 'acpremote_connections_total', { outcome: 'accepted' })).toBe(0);
  });

  it('counts resumable sessions, drops, accepted and refused resumes, and detached sessions', async () => {
    const { server, recorder } = await startCommandServer();
    /** Opens a resumable connection and resolves its welcome control frame. */
    const openResumable = async (headers: Record<string, string> = {}) => {
      const socket = new WebSocket(server.url, [RESUME_SUBPROTOCOL], { headers: { ...AUTH, ...headers } });
      cleanup.add(() => socket.terminate());
      socket.on('error', () => {});
      const welcome = await new Promise<{ token: string }>((resolve) =>
        socket.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8')))),
      );
      return { socket, welcome };
    };
    const first = await openResumable();
    // Only a session whose agent answered `initialize` is kept for a resume.
    first.socket.send(
      JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } }),
    );
    await new Promise<void>((resolve) =>
      first.socket.on('message', (_data: Buffer, binary: boolean) => {
        if (!binary) resolve();
      }),
    );
    first.socket.terminate();
    await recorder.waitFor(/session kept for resume/);
    const detached = await scrape(server);
    expect(sampleValue(detached, 'acpremote_sessions_detached')).toBe(1);
    expect(sampleValue(detached, 'acpremote_session_drops_total')).toBe(1);
    expect(sampleValue(detached, 'acpremote_resumable_sessions_total')).toBe(1);
    expect(sampleValue(detached, 'acpremote_connections_open')).toBe(1);

    const resumeHeaders = { 'Acpkit-Resume-Token': first.welcome.token, 'Acpkit-Resume-Received': '1' };
    await openResumable(resumeHeaders);
    const refused = await rawRequest(
      server.port,
      server.paths.websocket,
      {
        ...AUTH,
        'Sec-WebSocket-Protocol': RESUME_SUBPROTOCOL,
        'Acpkit-Resume-Token': 'x'.repeat(43),
        'Acpkit-Resume-Received': '0',
      },
      { upgrade: true },
    );
    expect(refused.status).toBe(410);
    const families = await scrape(server);
    expect(sampleValue(families, 'acpremote_resumes_total', { outcome: 'accepted' })).toBe(1);
    expect(sampleValue(families, 'acpremote_resumes_total', { outcome: 'unknown' })).toBe(1);
    expect(sampleValue(families, 'acpremote_resumes_total', { outcome: 'expired' })).toBe(0);
    expect(sampleValue(families, 'acpremote_connections_total', { outcome: 'resume' })).toBe(1);
    expect(sampleValue(families, 'acpremote_connections_total', { outcome: 'accepted' })).toBe(1);
    expect(sampleValue(families, 'acpremote_sessions_detached')).toBe(0);
    expect(sampleValue(families, 'acpremote_resume_windows_expired_total')).toBe(0);
    expect(
      sampleValue(families, 'acpremote_frames_refused_total', { sender: 'client', reason: 'protocol_error' }),
    ).toBe(0);

    // A malformed control frame is a resume protocol violation: closed with 1002 and counted.
    const violating = await openResumable();
    const closed = new Promise<number>((resolve) => violating.socket.once('close', resolve));
    violating.socket.send(Buffer.from('not json'), { binary: true });
    expect(await closed).toBe(1002);
    const after = await scrape(server);
    expect(
      sampleValue(after, 'acpremote_frames_refused_total', { sender: 'client', reason: 'protocol_error' }),
    ).toBe(1);
  });
});
