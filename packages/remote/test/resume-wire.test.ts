// The resume wire (`acpkit.resume.v1`, docs/remote-transport.md "Resume") spoken by hand against our servers: what
// another implementation of the client side sees and must do. Real sockets; drops are `terminate()` (no close frame).
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { CloseCode, type RemoteServer, type ServeOptions, serveAcp, serveCommand } from '../src/index.js';
import { RESUME_SUBPROTOCOL } from '../src/websocket/resume/resume-protocol.js';
import { echoApp } from './support/echo-app.js';
import { Cleanup, ECHO_AGENT, processExists, rawRequest, recordingLogger } from './support/helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

interface Frame {
  readonly binary: boolean;
  readonly text: string;
}

/** A raw client of the resume wire: every frame in arrival order, control frames parsed by the test itself. */
class WireClient {
  private readonly frames: Frame[] = [];
  private readonly waiters: Array<(frame: Frame) => void> = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly socket: WebSocket) {
    socket.on('error', () => {});
    socket.on('message', (data: Buffer, binary: boolean) => {
      const frame = { binary, text: data.toString('utf8') };
      const waiter = this.waiters.shift();
      if (waiter) waiter(frame);
      else this.frames.push(frame);
    });
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })),
    );
  }

  static async open(
    url: string,
    options: { protocols?: string[]; headers?: Record<string, string> } = {},
  ): Promise<WireClient> {
    const socket = new WebSocket(url, options.protocols ?? [RESUME_SUBPROTOCOL], {
      headers: options.headers,
    });
    const client = new WireClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`HTTP ${response.statusCode}`)),
      );
      socket.once('error', reject);
    });
    cleanup.add(() => socket.terminate());
    return client;
  }

  next(): Promise<Frame> {
    const frame = this.frames.shift();
    if (frame) return Promise.resolve(frame);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The next frame, which must be a control frame: its JSON. */
  async control(): Promise<Record<string, unknown>> {
    const frame = await this.next();
    expect(frame.binary).toBe(true);
    return JSON.parse(frame.text);
  }

  /** The next data frame (acks before it skipped: they come whenever 100 ms passed): its JSON-RPC message. */
  async data(): Promise<{ id?: number; method?: string; params?: unknown; result?: unknown }> {
    for (;;) {
      const frame = await this.next();
      if (frame.binary && JSON.parse(frame.text).type === 'ack') continue;
      expect(frame.binary).toBe(false);
      return JSON.parse(frame.text);
    }
  }

  request(id: number, method = '_test/echo', params: unknown = { id }): void {
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  }

  sendControl(frame: unknown): void {
    this.socket.send(Buffer.from(JSON.stringify(frame)), { binary: true });
  }
}

async function startServer(options: ServeOptions = {}) {
  const recorder = recordingLogger();
  const server = await serveAcp(echoApp, { port: 0, logger: recorder.logger, ...options });
  cleanup.add(() => server.close());
  return { server, recorder };
}

/** Waits for a condition on the server (polled each turn: a state the test cannot be told about otherwise). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

function resumeHeaders(token: unknown, received: number): Record<string, string> {
  return { 'Acpkit-Resume-Token': String(token), 'Acpkit-Resume-Received': String(received) };
}

/** A raw upgrade request offering the subprotocol, with resume headers: the server's verdict as HTTP. */
function resumeRequest(server: RemoteServer, headers: Record<string, string>) {
  return rawRequest(
    server.port,
    server.paths.websocket,
    { 'Sec-WebSocket-Protocol': RESUME_SUBPROTOCOL, ...headers },
    { upgrade: true },
  );
}

/**
 * Opens a resumable session, exchanges `requests` round trips (the first an `initialize`: a server keeps only a
 * session whose agent answered it), drops it, and waits until the server detached it.
 */
async function droppedSession(server: RemoteServer, requests = 3) {
  const client = await WireClient.open(server.url);
  const welcome = await client.control();
  for (let id = 1; id <= requests; id += 1) client.request(id, id === 1 ? 'initialize' : '_test/echo');
  for (let id = 1; id <= requests; id += 1) expect((await client.data()).id).toBe(id);
  client.socket.terminate();
  await until(() => server.detachedCount === 1);
  return welcome;
}

async function startCommandServer(options: ServeOptions = {}) {
  const recorder = recordingLogger();
  const server = await serveCommand([process.execPath, ECHO_AGENT], {
    port: 0,
    logger: recorder.logger,
    terminateTimeoutMs: 1_000,
    ...options,
  });
  cleanup.add(() => server.close());
  return { server, recorder };
}

/** Initializes the session (id 0), then asks the agent its pid (id 1): two frames each way. */
async function agentPid(client: WireClient): Promise<number> {
  client.request(0, 'initialize', { protocolVersion: 1 });
  await client.data();
  client.request(1, '_vendor/pid', {});
  return ((await client.data()).result as { pid: number }).pid;
}

/** Opens a resumable session on a command server, drops it, and waits until it is detached: its agent's pid. */
async function detachedAgent(server: RemoteServer): Promise<number> {
  const client = await WireClient.open(server.url);
  await client.control();
  const pid = await agentPid(client);
  client.socket.terminate();
  await until(() => server.detachedCount === 1);
  return pid;
}

describe('resume wire: handshake and acknowledgements', () => {
  it('selects the subprotocol and sends welcome first, then JSON-RPC as plain text frames', async () => {
    const { server } = await startServer({ resumeWindowMs: 30_000, resumeBufferBytes: 65_536 });
    const client = await WireClient.open(server.url);
    expect(client.socket.protocol).toBe(RESUME_SUBPROTOCOL);
    const welcome = await client.control();
    expect(welcome).toEqual({
      type: 'welcome',
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      resumed: false,
      received: 0,
      windowMs: 30_000,
      bufferBytes: 65_536,
    });
    client.request(1, '_test/echo', { hello: 'world' });
    expect(await client.data()).toEqual({ jsonrpc: '2.0', id: 1, result: { hello: 'world' } });
  });

  it('acknowledges every 64 data frames at the latest, and 100 ms after a smaller batch', async () => {
    const { server } = await startServer();
    const client = await WireClient.open(server.url);
    await client.control();
    for (let id = 1; id <= 128; id += 1) client.request(id);
    // The invariant, whatever the machine's speed: no more than 64 frames between two acknowledgements (a loaded
    // machine may add a timer's acknowledgement of a smaller batch between them), and all 128 acknowledged.
    const acknowledged: number[] = [];
    while (acknowledged.at(-1) !== 128) {
      const frame = await client.next();
      if (frame.binary) acknowledged.push((JSON.parse(frame.text) as { received: number }).received);
    }
    let previous = 0;
    for (const received of acknowledged) {
      expect(received - previous).toBeGreaterThan(0);
      expect(received - previous).toBeLessThanOrEqual(64);
      previous = received;
    }
    // A smaller batch: its acknowledgement comes from the timer.
    client.request(129);
    for (;;) {
      const frame = await client.next();
      if (frame.binary) {
        expect(JSON.parse(frame.text)).toEqual({ type: 'ack', received: 129 });
        break;
      }
    }
  });

  it('takes acknowledgements from the client and closes 1002 for one counting frames never sent', async () => {
    const { server } = await startServer();
    const client = await WireClient.open(server.url);
    await client.control();
    client.request(1);
    await client.data();
    client.sendControl({ type: 'ack', received: 1 });
    client.sendControl({ type: 'later-version-frame', anything: true });
    client.request(2);
    expect((await client.data()).id).toBe(2);
    client.sendControl({ type: 'ack', received: 5 });
    expect(await client.closed).toEqual({
      code: CloseCode.ProtocolError,
      reason: 'an ack counts more frames than were sent',
    });
  });

  it('closes 1002 for a malformed control frame', async () => {
    const { server } = await startServer();
    const client = await WireClient.open(server.url);
    await client.control();
    client.socket.send(Buffer.from('not json'), { binary: true });
    expect((await client.closed).code).toBe(CloseCode.ProtocolError);
  });
});

describe('resume wire: resuming', () => {
  it('keeps the session after a drop and replays exactly the frames after the count the client sends', async () => {
    const { server, recorder } = await startServer();
    const welcome = await droppedSession(server);
    expect((await recorder.waitFor(/session kept for resume/)).fields).toMatchObject({ code: 1006 });
    // The client claims it received only 1 of the 3 answers: frames 2 and 3 come again, after the welcome.
    const resumed = await WireClient.open(server.url, { headers: resumeHeaders(welcome.token, 1) });
    expect(await resumed.control()).toEqual({ ...welcome, resumed: true, received: 3 });
    expect((await resumed.data()).id).toBe(2);
    expect((await resumed.data()).id).toBe(3);
    resumed.request(4);
    expect((await resumed.data()).id).toBe(4);
    expect(server.detachedCount).toBe(0);
    expect(server.connectionCount).toBe(1);
    expect((await recorder.waitFor(/connection resumed/)).fields).toMatchObject({
      replayedFrames: 2,
      takeover: false,
    });
  });

  it('lets a resume take over a connection the server still thinks is open', async () => {
    const { server } = await startServer();
    const first = await WireClient.open(server.url);
    const welcome = await first.control();
    first.request(1);
    await first.data();
    const second = await WireClient.open(server.url, { headers: resumeHeaders(welcome.token, 1) });
    expect(await second.control()).toMatchObject({ resumed: true, received: 1 });
    expect((await first.closed).code).toBe(1006);
    second.request(2);
    expect((await second.data()).id).toBe(2);
  });

  it('counts a detached session against maxConnections, and lets its resume in at the cap', async () => {
    const { server } = await startServer({ maxConnections: 1 });
    const welcome = await droppedSession(server, 1);
    expect((await rawRequest(server.port, server.paths.websocket, {}, { upgrade: true })).status).toBe(503);
    const resumed = await WireClient.open(server.url, { headers: resumeHeaders(welcome.token, 1) });
    expect(await resumed.control()).toMatchObject({ resumed: true });
  });
});

describe('resume wire: refusals', () => {
  it.each([
    ['an unknown token', 410, 'unknown', () => resumeHeaders('x'.repeat(43), 0)],
    ['a malformed token', 400, 'invalid', () => resumeHeaders('short', 0)],
    ['a token without a count', 400, 'invalid', () => ({ 'Acpkit-Resume-Token': 'x'.repeat(43) })],
  ])('answers %s with HTTP %i and the reason header %s', async (_name, status, reason, headers) => {
    const { server, recorder } = await startServer();
    const response = await resumeRequest(server, headers());
    expect(response.status).toBe(status);
    expect(response.headers['acpkit-resume-refused']).toBe(reason);
    expect(response.body).toMatch(new RegExp(`^resume refused: ${reason}: `));
    expect((await recorder.waitFor(/connection refused/)).fields).toMatchObject({
      reason: 'resume',
      resume: reason,
      status,
    });
  });

  it('refuses resume headers without the subprotocol (400)', async () => {
    const { server } = await startServer();
    const response = await rawRequest(server.port, server.paths.websocket, resumeHeaders('x'.repeat(43), 0), {
      upgrade: true,
    });
    expect(response.status).toBe(400);
    expect(response.headers['acpkit-resume-refused']).toBe('invalid');
  });

  it('refuses a resume once the window has passed (expired) and after a clean close (ended)', async () => {
    const { server, recorder } = await startServer({ resumeWindowMs: 100 });
    const welcome = await droppedSession(server, 1);
    await recorder.waitFor(/resume window expired/);
    await until(() => server.connectionCount === 0);
    const expired = await resumeRequest(server, resumeHeaders(welcome.token, 1));
    expect([expired.status, expired.headers['acpkit-resume-refused']]).toEqual([410, 'expired']);

    const client = await WireClient.open(server.url);
    const second = await client.control();
    client.socket.close(CloseCode.Normal);
    await client.closed;
    await until(() => server.connectionCount === 0);
    const ended = await resumeRequest(server, resumeHeaders(second.token, 0));
    expect([ended.status, ended.headers['acpkit-resume-refused']]).toEqual([410, 'ended']);
  });

  it('refuses as ended a resume of a session the server is closing, before its client answered the close frame', async () => {
    const { server } = await startCommandServer();
    const client = await WireClient.open(server.url);
    const welcome = await client.control();
    await agentPid(client);
    // This client never answers a close frame (ws would answer at once): the server's close handshake stays open.
    const closeFrame = new Promise<number>((resolve) => {
      client.socket.close = (code?: number) => resolve(code ?? 0);
    });
    client.request(2, '_test/exit', {});
    expect(await closeFrame).toBe(CloseCode.AgentExited);
    const response = await resumeRequest(server, resumeHeaders(welcome.token, 2));
    expect([response.status, response.headers['acpkit-resume-refused']]).toEqual([410, 'ended']);
    client.socket.terminate();
    await until(() => server.connectionCount === 0);
  });

  it('refuses a count above what the server sent (invalid) and keeps the session', async () => {
    const { server } = await startServer();
    const welcome = await droppedSession(server, 1);
    const response = await resumeRequest(server, resumeHeaders(welcome.token, 2));
    expect([response.status, response.headers['acpkit-resume-refused']]).toEqual([400, 'invalid']);
    const resumed = await WireClient.open(server.url, { headers: resumeHeaders(welcome.token, 1) });
    expect(await resumed.control()).toMatchObject({ resumed: true });
  });

  it('binds the token to the bearer token and Origin of the session', async () => {
    const origins = ['https://one.example', 'https://two.example'];
    const { server } = await startServer({ bearerToken: 'secret-1', allowedOrigins: origins });
    const first = await WireClient.open(server.url, {
      headers: { Authorization: 'Bearer secret-1', Origin: origins[0]! },
    });
    const welcome = await first.control();
    first.request(1, 'initialize');
    await first.data();
    first.socket.terminate();
    await until(() => server.detachedCount === 1);
    const headers = resumeHeaders(welcome.token, 1);
    expect((await resumeRequest(server, headers)).status).toBe(401);
    expect((await resumeRequest(server, { ...headers, Authorization: 'Bearer secret-2' })).status).toBe(401);
    const otherOrigin = await resumeRequest(server, {
      ...headers,
      Authorization: 'Bearer secret-1',
      Origin: origins[1]!,
    });
    // Another peer's session is not told apart from no session at all.
    expect([otherOrigin.status, otherOrigin.headers['acpkit-resume-refused']]).toEqual([410, 'unknown']);
    const resumed = await WireClient.open(server.url, {
      headers: { ...headers, Authorization: 'Bearer secret-1', Origin: origins[0]! },
    });
    expect(await resumed.control()).toMatchObject({ resumed: true });
  });

  it('offers no resume with resumeWindowMs 0: no subprotocol, no welcome, and resumes refused as unknown', async () => {
    const { server } = await startServer({ resumeWindowMs: 0 });
    const client = await WireClient.open(server.url, { protocols: [] });
    client.request(1);
    expect(await client.next()).toEqual({
      binary: false,
      text: '{"jsonrpc":"2.0","id":1,"result":{"id":1}}',
    });
    const upgrade = await rawRequest(
      server.port,
      server.paths.websocket,
      { 'Sec-WebSocket-Protocol': RESUME_SUBPROTOCOL },
      { upgrade: true },
    );
    expect(upgrade.status).toBe(101);
    expect(upgrade.headers['sec-websocket-protocol']).toBeUndefined();
    const resume = await resumeRequest(server, resumeHeaders('x'.repeat(43), 0));
    expect([resume.status, resume.headers['acpkit-resume-refused']]).toEqual([410, 'unknown']);
  });
});

describe('resume wire: a command agent behind a detached session', () => {
  it('keeps the agent while its client is away, and delivers its exit after the resume', async () => {
    const { server } = await startCommandServer();
    const client = await WireClient.open(server.url);
    const welcome = await client.control();
    const pid = await agentPid(client);
    client.socket.terminate();
    await until(() => server.detachedCount === 1);
    expect(processExists(pid)).toBe(true);
    // The agent ends while nobody is connected: its close waits for the client, which learns it after the resume.
    process.kill(pid, 'SIGTERM');
    await until(() => !processExists(pid));
    const resumed = await WireClient.open(server.url, { headers: resumeHeaders(welcome.token, 2) });
    expect(await resumed.control()).toMatchObject({ resumed: true, received: 2 });
    expect(await resumed.closed).toEqual({
      code: CloseCode.AgentExited,
      reason: 'agent process killed by signal SIGTERM',
    });
    await until(() => server.connectionCount === 0);
  });

  it('ends detached sessions and reaps their agents at close()', async () => {
    const { server } = await startCommandServer();
    const pid = await detachedAgent(server);
    await server.close();
    expect(server.detachedCount).toBe(0);
    expect(server.connectionCount).toBe(0);
    expect(processExists(pid)).toBe(false);
  });
});

describe('resume wire: during a drain', () => {
  it('lets a session dropped during the drain resume and finish while new connections get 503', async () => {
    const { server } = await startServer();
    const client = await WireClient.open(server.url);
    const welcome = await client.control();
    client.request(1, 'initialize');
    expect((await client.data()).id).toBe(1);
    const drained = server.drain({ graceMs: 60_000 });
    client.socket.terminate();
    await until(() => server.detachedCount === 1);
    const fresh = await rawRequest(server.port, server.paths.websocket, {}, { upgrade: true });
    expect([fresh.status, fresh.headers['retry-after']]).toEqual([503, '1']);
    const resumed = await WireClient.open(server.url, { headers: resumeHeaders(welcome.token, 1) });
    expect(await resumed.control()).toMatchObject({ resumed: true, received: 1 });
    resumed.request(2);
    expect((await resumed.data()).id).toBe(2);
    resumed.socket.close(CloseCode.Normal);
    expect(await drained).toEqual({ endedWithinGrace: true, closedConnections: 0 });
  });

  it('ends a detached session when its window passes within the grace: the drain ends by itself', async () => {
    const { server, recorder } = await startServer({ resumeWindowMs: 200 });
    await droppedSession(server, 1);
    const result = await server.drain({ graceMs: 60_000 });
    expect(result).toEqual({ endedWithinGrace: true, closedConnections: 0 });
    await recorder.waitFor(/resume window expired/);
    expect(server.connectionCount).toBe(0);
  });

  it('ends a detached session and reaps its agent when the grace runs out first', async () => {
    const { server } = await startCommandServer();
    const pid = await detachedAgent(server);
    expect(await server.drain({ graceMs: 50 })).toEqual({ endedWithinGrace: false, closedConnections: 1 });
    expect(server.connectionCount).toBe(0);
    expect(processExists(pid)).toBe(false);
  });
});

describe('resume wire: peers without the subprotocol', () => {
  it('keeps the plain wire: no subprotocol header, no control frame, and a drop ends the session at once', async () => {
    const { server } = await startServer();
    const client = await WireClient.open(server.url, { protocols: [] });
    expect(client.socket.protocol).toBe('');
    client.request(1);
    expect(await client.next()).toEqual({
      binary: false,
      text: '{"jsonrpc":"2.0","id":1,"result":{"id":1}}',
    });
    client.socket.terminate();
    await until(() => server.connectionCount === 0);
    expect(server.detachedCount).toBe(0);
    const plain = await rawRequest(server.port, server.paths.websocket, {}, { upgrade: true });
    expect([plain.status, plain.headers['sec-websocket-protocol']]).toEqual([101, undefined]);
  });

  it('echoes another subprotocol as before, and picks resume when it is offered among others', async () => {
    const { server } = await startServer();
    const offer = (protocols: string) =>
      rawRequest(
        server.port,
        server.paths.websocket,
        { 'Sec-WebSocket-Protocol': protocols },
        { upgrade: true },
      );
    expect((await offer('chat')).headers['sec-websocket-protocol']).toBe('chat');
    expect((await offer('chat, acpkit.resume.v1')).headers['sec-websocket-protocol']).toBe(
      RESUME_SUBPROTOCOL,
    );
  });
});
