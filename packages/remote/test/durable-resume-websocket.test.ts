// The durable-resume draft's `stream/resume` on the RFD WebSocket (`<mount>`), over real sockets against `serveAcp`,
// spoken by a raw client: cursors on every message, retention advertised, a socket dropped mid-stream and resumed
// with every update exactly once and in order, an identical replay, a takeover of a half-open socket, and the
// refusals (unknown, expired, ended, invalid) after which the socket is a new connection.
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { serveAcp, silentLogger } from '../src/index.js';
import { DraftSocket } from './support/draft-socket.js';
import { Cleanup, recordingLogger } from './support/helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/**
 * An agent with one session, `s1`, whose `session/prompt {count}` streams `count` updates (`n` = 1..count, yielding
 * to the event loop between them) and answers once the client sends `_test/finish`: a turn that is still running
 * when the client comes back.
 */
function streamingApp() {
  return {
    connect(stream: Stream) {
      const reader = stream.readable.getReader();
      const writer = stream.writable.getWriter();
      let finish: (() => void) | undefined;
      const finished = new Promise<void>((resolve) => {
        finish = resolve;
      });
      const write = (message: object) => writer.write({ jsonrpc: '2.0', ...message } as AnyMessage);
      const prompt = async (id: number, count: number, pad: number) => {
        for (let n = 1; n <= count; n += 1) {
          await write({
            method: 'session/update',
            params: {
              sessionId: 's1',
              update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${n}` } },
              ...(pad > 0 ? { padding: 'x'.repeat(pad) } : {}),
            },
          });
          await new Promise((resolve) => setImmediate(resolve));
        }
        await finished;
        await write({ id, result: { stopReason: 'end_turn' } });
      };
      const closed = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          const message = value as {
            id?: number;
            method?: string;
            params?: { count?: number; pad?: number };
          };
          if (message.method === 'initialize')
            await write({ id: message.id, result: { protocolVersion: 1, agentCapabilities: {} } });
          else if (message.method === 'session/new')
            await write({ id: message.id, result: { sessionId: 's1' } });
          else if (message.method === 'session/prompt')
            void prompt(message.id!, message.params?.count ?? 0, message.params?.pad ?? 0);
          else if (message.method === '_test/finish') finish?.();
          else if (message.id !== undefined) await write({ id: message.id, result: message.params ?? {} });
        }
      })();
      return { closed, close: () => void reader.cancel().catch(() => {}) };
    },
  };
}

async function serve(options: Parameters<typeof serveAcp>[1] = {}) {
  const server = await serveAcp(streamingApp, { port: 0, logger: silentLogger, ...options });
  cleanup.add(() => server.close());
  return server;
}

async function open(url: string): Promise<DraftSocket> {
  const socket = await DraftSocket.open(url);
  cleanup.add(() => socket.drop());
  return socket;
}

/** A socket with an initialized connection and session `s1`. */
async function started(url: string): Promise<DraftSocket> {
  const socket = await open(url);
  await socket.initialize();
  socket.send({ id: 1, method: 'session/new', params: { cwd: '/', mcpServers: [] } });
  await socket.until((message) => message.id === 1);
  return socket;
}

/**
 * Drops `first` without a close frame, resumes its connection on a new socket from the cursor of its message at
 * `cut`, and expects the answer then every message after it, byte for byte. Returns the new socket.
 */
async function dropAndResume(url: string, first: DraftSocket, cut: number): Promise<DraftSocket> {
  first.drop();
  await first.closed;
  const second = await open(url);
  second.resume(first.connectionId, first.messages[cut]!.cursor);
  const expected = first.messages.slice(cut + 1).map((entry) => entry.raw);
  await second.count(1 + expected.length);
  expect(second.messages.slice(1).map((entry) => entry.raw)).toEqual(expected);
  return second;
}

/** The texts of the updates among `messages`. */
const updateTexts = (messages: DraftSocket['messages']) =>
  messages
    .filter((entry) => entry.message.method === 'session/update')
    .map((entry) => entry.message.params.update.content.text as string);

describe('stream/resume on the RFD WebSocket', () => {
  it('stamps every message with a cursor and advertises retention in initialize', async () => {
    const server = await serve();
    const socket = await open(server.endpoint.replace(/^http/, 'ws'));
    const answer = await socket.initialize();
    expect(answer.result.agentCapabilities._meta['acp/transport'].resumable).toMatchObject({
      retentionSeconds: 60,
      retentionMessages: expect.any(Number),
    });
    socket.send({ id: 1, method: 'session/new', params: {} });
    socket.send({ id: 2, method: '_test/echo', params: { a: 1, _meta: { keep: true } } });
    await socket.until((message) => message.id === 2);
    expect(socket.messages.map((entry) => entry.cursor)).toEqual(['1', '2', '3']);
    // Spliced into the message's own _meta, which keeps what it had.
    expect(socket.messages[2]!.message.result).toEqual({ a: 1, _meta: { 'acp/cursor': '3', keep: true } });
  });

  it('resumes a socket dropped mid-stream: every update exactly once, in order, then live again', async () => {
    const server = await serve();
    const url = server.endpoint.replace(/^http/, 'ws');
    const first = await started(url);
    first.send({ id: 7, method: 'session/prompt', params: { sessionId: 's1', prompt: [], count: 200 } });
    // The client processes 50 updates, and the network goes while the agent keeps streaming.
    await first.until((message) => message.params?.update?.content?.text === '50');
    const processed = first.messages.slice(
      0,
      first.messages.findIndex((m) => m.message.params?.update?.content?.text === '50') + 1,
    );
    const lastCursor = processed.at(-1)!.cursor!;
    first.drop();
    await first.closed;

    const second = await open(url);
    second.resume(first.connectionId, lastCursor);
    const answer = await second.until((message) => message.id === 'resume');
    // The draft's v1 advisory: the turn survived the drop.
    expect(answer.message.result._meta['acp/turnState']).toEqual({
      sessionId: 's1',
      state: 'running',
      promptRequestId: 7,
    });
    expect(answer.message.result._meta['acp/turnStates']).toEqual({
      s1: { state: 'running', promptRequestId: 7 },
    });
    expect(answer.cursor).toBeUndefined();
    await second.until((message) => message.params?.update?.content?.text === '200');
    second.send({ method: '_test/finish' });
    await second.until((message) => message.id === 7);
    const texts = [...updateTexts(processed), ...updateTexts(second.messages)];
    expect(texts).toEqual(Array.from({ length: 200 }, (_, index) => `${index + 1}`));
    // Cursors go on rising across the resume: one stream.
    const cursors = [...processed, ...second.messages.slice(1)].map((entry) => Number(entry.cursor));
    expect(cursors).toEqual([...cursors].sort((a, b) => a - b));
    expect(new Set(cursors).size).toBe(cursors.length);
    // Live again: a request after the resume is answered on the new socket.
    second.send({ id: 8, method: '_test/echo', params: { after: true } });
    expect((await second.until((message) => message.id === 8)).message.result.after).toBe(true);
  });

  it('replays byte for byte what followed the cursor, cursors included', async () => {
    const server = await serve();
    const url = server.endpoint.replace(/^http/, 'ws');
    const first = await started(url);
    first.send({ id: 7, method: 'session/prompt', params: { sessionId: 's1', prompt: [], count: 10 } });
    await first.until((message) => message.params?.update?.content?.text === '10');
    first.send({ method: '_test/finish' });
    await first.until((message) => message.id === 7);
    // Received everything, processed only through the third update.
    const cut = first.messages.findIndex((entry) => entry.message.params?.update?.content?.text === '3');
    const second = await dropAndResume(url, first, cut);
    // The turn ended while the client was away: idle, with how it ended.
    expect(second.messages[0]!.message.result._meta['acp/turnState']).toEqual({
      sessionId: 's1',
      state: 'idle',
      stopReason: 'end_turn',
    });
  });

  it('replays large messages byte for byte too (2 KiB and 100 KiB: a fragmented one among them)', async () => {
    const server = await serve();
    const url = server.endpoint.replace(/^http/, 'ws');
    const first = await started(url);
    for (const [id, pad] of [
      [7, 2_048],
      [8, 100_000],
    ] as const) {
      first.send({ id, method: 'session/prompt', params: { sessionId: 's1', prompt: [], count: 3, pad } });
      await first.until(
        (message) => message.params?.update?.content?.text === '3' && message.params.padding?.length === pad,
      );
      first.send({ method: '_test/finish' });
      await first.until((message) => message.id === id);
    }
    const cut = first.messages.findIndex((entry) => entry.message.params?.update?.content?.text === '1');
    await dropAndResume(url, first, cut);
  });

  it('takes over a socket the server still thinks open (half-open), the old one closed', async () => {
    const server = await serve();
    const url = server.endpoint.replace(/^http/, 'ws');
    const first = await started(url);
    const second = await open(url);
    second.resume(first.connectionId, first.messages[0]!.cursor);
    await second.count(2);
    // The answer, then session/new's answer again (it followed the cursor).
    expect(second.messages[1]!.raw).toBe(first.messages[1]!.raw);
    await first.closed;
    second.send({ id: 3, method: '_test/echo', params: {} });
    await second.until((message) => message.id === 3);
  });

  it('keeps a dropped connection for the window, then refuses it as expired', async () => {
    const { logger, waitFor } = recordingLogger();
    const server = await serve({ resumeWindowMs: 200, logger });
    const url = server.endpoint.replace(/^http/, 'ws');
    const first = await started(url);
    first.drop();
    await waitFor(/connection interrupted; session kept for resume/);
    await waitFor(/resume window expired/);
    const second = await open(url);
    second.resume(first.connectionId, first.messages[1]!.cursor);
    await second.count(2);
    expect(second.messages[0]!.message).toEqual({
      jsonrpc: '2.0',
      method: 'stream/resume_failed',
      params: { reason: 'expired', message: expect.stringMatching(/initialize/) },
    });
    expect(second.messages[1]!.message).toMatchObject({
      id: 'resume',
      error: { code: -32050, data: { reason: 'expired' } },
    });
    // Never a live stream after a refusal: the socket is a new connection, which initialize opens.
    const answer = await second.initialize(0);
    expect(answer.result.protocolVersion).toBe(1);
    expect(second.messages.at(-1)!.cursor).toBe('1');
  });

  it('refuses a cursor past retention as expired, and ends that connection', async () => {
    const server = await serve({ maxMessageBytes: 4096, resumeBufferBytes: 2048 });
    const url = server.endpoint.replace(/^http/, 'ws');
    const first = await started(url);
    const padding = 'x'.repeat(1_500);
    for (let id = 10; id < 18; id += 1) first.send({ id, method: '_test/echo', params: { padding } });
    await first.until((message) => message.id === 17);
    first.drop();
    await first.closed;
    const second = await open(url);
    second.resume(first.connectionId, first.messages[0]!.cursor);
    await second.count(2);
    expect(second.messages[0]!.message.params.reason).toBe('expired');
    // The connection ended: the newest cursor is refused too now.
    const third = await open(url);
    third.resume(first.connectionId, first.messages.at(-1)!.cursor);
    await third.count(1);
    expect(third.messages[0]!.message.params.reason).toBe('expired');
  });

  it('refuses unknown connections, cursors never sent, another client and malformed params', async () => {
    const server = await serve({ bearerToken: 'token-of-a-and-b', allowedOrigins: ['http://b.example'] });
    const url = server.endpoint.replace(/^http/, 'ws');
    const headers = { Authorization: 'Bearer token-of-a-and-b' };
    const first = await DraftSocket.open(url, headers);
    cleanup.add(() => first.drop());
    await first.initialize();
    const reasons: unknown[] = [];
    const attempts: Array<[Record<string, string>, object]> = [
      [headers, { connectionId: '00000000-0000-4000-8000-000000000000', cursor: '1' }],
      [headers, { connectionId: first.connectionId, cursor: '99' }],
      [headers, { connectionId: first.connectionId, cursor: 'not-ours' }],
      [
        { ...headers, Origin: 'http://b.example' },
        { connectionId: first.connectionId, cursor: '1' },
      ],
      [headers, { cursor: '1' }],
    ];
    for (const [attemptHeaders, params] of attempts) {
      const socket = await DraftSocket.open(url, attemptHeaders);
      cleanup.add(() => socket.drop());
      socket.send({ id: 'r', method: 'stream/resume', params });
      await socket.count(2);
      reasons.push(socket.messages[0]!.message.params.reason);
      expect(socket.messages[1]!.message.error.data.reason).toBe(socket.messages[0]!.message.params.reason);
    }
    expect(reasons).toEqual(['unknown', 'unknown', 'unknown', 'unknown', 'invalid']);
    // None of them touched the connection: it is live on its own socket.
    first.send({ id: 5, method: '_test/echo', params: {} });
    await first.until((message) => message.id === 5);
  });

  it('refuses a connection its client closed (a close frame ends it) as ended', async () => {
    const server = await serve();
    const url = server.endpoint.replace(/^http/, 'ws');
    const first = await started(url);
    first.socket.close(1000);
    await first.closed;
    const second = await open(url);
    // Its end is recorded once the server has torn it down: a resume before might still find it closing (ended too).
    second.resume(first.connectionId, first.messages[0]!.cursor);
    await second.count(1);
    expect(second.messages[0]!.message.params.reason).toBe('ended');
  });

  it('lets a socket that names its connection resume at maxConnections and during a drain, and nothing else', async () => {
    const server = await serve({ maxConnections: 1 });
    const url = server.endpoint.replace(/^http/, 'ws');
    const first = await started(url);
    first.drop();
    await first.closed;
    // At the cap (the waiting connection counts), a new socket is refused at the upgrade.
    await expect(DraftSocket.open(url)).rejects.toThrow(/HTTP 503/);
    // One that names its connection is let in; if it then opens a new connection instead, the cap applies after all.
    const named = { 'Acp-Connection-Id': first.connectionId };
    const sneaky = await DraftSocket.open(url, named);
    cleanup.add(() => sneaky.drop());
    sneaky.send({ id: 0, method: 'initialize', params: {} });
    expect(await sneaky.closed).toEqual({ code: 1001, reason: 'too many connections' });
    const second = await DraftSocket.open(url, named);
    cleanup.add(() => second.drop());
    second.resume(first.connectionId, first.messages.at(-1)!.cursor);
    await second.until((message) => message.id === 'resume');
    second.drop();
    await second.closed;
    // Draining: new connections go elsewhere, the connection this instance holds is still resumed here.
    void server.drain({ graceMs: 5_000 });
    await expect(DraftSocket.open(url)).rejects.toThrow(/HTTP 503/);
    const third = await DraftSocket.open(url, named);
    cleanup.add(() => third.drop());
    third.resume(first.connectionId, first.messages.at(-1)!.cursor);
    expect((await third.until((message) => message.id === 'resume')).message.result).toBeDefined();
  });

  it('keeps an idle connection whose kept messages nobody acknowledges (the draft has no acknowledgements)', async () => {
    const server = await serve({ stallTimeoutMs: 200, pingIntervalMs: 100 });
    const socket = await started(server.endpoint.replace(/^http/, 'ws'));
    // The heartbeat as a clock: 8 pings are 800 ms, four stall timeouts, with messages kept all along.
    await socket.pinged(8);
    socket.send({ id: 9, method: '_test/echo', params: {} });
    expect((await socket.until((message) => message.id === 9)).cursor).toBe('3');
  });
});
