// Our client dialling the durable-resume draft on the RFD WebSocket (`resumeWire: 'durable-resume'`), over real
// sockets against `serveAcp` through a TCP proxy the test cuts: a stream dropped mid-turn resumed with
// `stream/resume` (every update once, in order; the turn state told), a refusal carried over to a new connection
// with `session/resume`, and the option's validation.
import { type AnyMessage, client, methods, PROTOCOL_VERSION, type Stream } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AcpRemoteOptionError,
  type ConnectionEvent,
  connectAcp,
  RelayErrorCode,
  type RemoteServer,
  ResumeRefusedError,
  serveAcp,
  silentLogger,
} from '../src/index.js';
import { DraftServer } from './support/draft-server.js';
import { Cleanup, recordingLogger } from './support/helpers.js';
import { type NotesStore, notesAgent, notesReply } from './support/notes-agent.js';
import { startProxy } from './support/tcp-proxy.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/**
 * An agent with one session, `s1`, whose `session/prompt {count}` streams `count` updates (`n` = 1..count, yielding
 * to the event loop between them) and answers once the client sends `_test/finish`.
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
      const prompt = async (id: number, count: number) => {
        for (let n = 1; n <= count; n += 1) {
          await write({
            method: 'session/update',
            params: {
              sessionId: 's1',
              update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${n}` } },
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
          const message = value as { id?: number; method?: string; params?: { count?: number } };
          if (message.method === 'initialize')
            await write({ id: message.id, result: { protocolVersion: 1, agentCapabilities: {} } });
          else if (message.method === 'session/new')
            await write({ id: message.id, result: { sessionId: 's1' } });
          else if (message.method === 'session/prompt') void prompt(message.id!, message.params?.count ?? 0);
          else if (message.method === '_test/finish') finish?.();
        }
      })();
      return { closed, close: () => void reader.cancel().catch(() => {}) };
    },
  };
}

/** Records the connection events and resolves `waitFor(type)` once one of that type arrived. */
function eventRecorder() {
  const events: ConnectionEvent[] = [];
  const waiters: Array<() => void> = [];
  return {
    events,
    onConnectionEvent(event: ConnectionEvent) {
      events.push(event);
      for (const waiter of waiters.splice(0)) waiter();
    },
    async waitFor<T extends ConnectionEvent['type']>(
      type: T,
    ): Promise<Extract<ConnectionEvent, { type: T }>> {
      for (;;) {
        const found = events.find((event) => event.type === type);
        if (found !== undefined) return found as Extract<ConnectionEvent, { type: T }>;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

/** The RFD WebSocket (`<mount>`) of `server` through `port` (a proxy's). */
const rfdUrl = (port: number) => `ws://127.0.0.1:${port}/acp`;

describe('connectAcp dialling the durable-resume draft (stream/resume)', () => {
  it('resumes a socket dropped mid-turn: every update exactly once and in order, the turn state told', async () => {
    const server = await serveAcp(streamingApp, { port: 0, logger: recordingLogger().logger });
    cleanup.add(() => server.close());
    const proxy = await startProxy(server.port);
    cleanup.add(() => proxy.close());
    const recorder = eventRecorder();
    const logs = recordingLogger();
    const remote = await connectAcp(rfdUrl(proxy.port), {
      resumeWire: 'durable-resume',
      logger: logs.logger,
      onConnectionEvent: recorder.onConnectionEvent,
    });
    cleanup.add(() => remote.close());
    const writer = remote.stream.writable.getWriter();
    const reader = remote.stream.readable.getReader();
    // biome-ignore lint/suspicious/noExplicitAny: tests inspect loosely typed JSON-RPC
    const next = async (): Promise<any> => {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended: ${JSON.stringify(await remote.closed)}`);
      return value;
    };
    await writer.write({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
    const initialized = await next();
    expect(initialized.result._meta['acp/cursor']).toBe('1');
    expect(remote.resumable).toBe(true);
    await writer.write({
      jsonrpc: '2.0',
      id: 1,
      method: 'session/new',
      params: { cwd: '/', mcpServers: [] },
    });
    expect((await next()).result.sessionId).toBe('s1');
    await writer.write({
      jsonrpc: '2.0',
      id: 7,
      method: 'session/prompt',
      params: { sessionId: 's1', prompt: [], count: 200 },
    });
    const texts: string[] = [];
    for (;;) {
      const message = await next();
      texts.push(message.params.update.content.text);
      // The network goes while the agent keeps streaming.
      if (texts.length === 50) proxy.cut();
      if (texts.length === 200) break;
    }
    expect(texts).toEqual(Array.from({ length: 200 }, (_, index) => `${index + 1}`));
    await writer.write({ jsonrpc: '2.0', method: '_test/finish', params: {} });
    const answer = await next();
    expect(answer).toMatchObject({ id: 7, result: { stopReason: 'end_turn' } });
    expect(recorder.events.map((event) => event.type)).toEqual(['interrupted', 'resumed', 'turn-state']);
    expect(recorder.events[2]).toMatchObject({ sessionId: 's1', turnState: { state: 'running' } });
    const resumed = await logs.waitFor(/^connection resumed$/);
    expect(resumed.fields).toMatchObject({ attempts: 1, wire: 'durable-resume' });
    expect(logs.entries.map((entry) => entry.message)).not.toContain('resume failed');
  });

  it('a refused stream/resume (another server) falls back to carrying the sessions with session/resume', async () => {
    const store: NotesStore = new Map();
    const start = async (): Promise<RemoteServer> => {
      const server = await serveAcp(() => notesAgent({ store, reopen: 'resume' }), {
        port: 0,
        logger: recordingLogger().logger,
      });
      cleanup.add(() => server.close());
      return server;
    };
    const first = await start();
    const second = await start();
    const proxy = await startProxy(first.port);
    cleanup.add(() => proxy.close());
    const recorder = eventRecorder();
    const remote = await connectAcp(rfdUrl(proxy.port), {
      resumeWire: 'durable-resume',
      logger: recordingLogger().logger,
      onConnectionEvent: recorder.onConnectionEvent,
    });
    cleanup.add(() => remote.close());
    const texts: string[] = [];
    const editor = client({ name: 'editor' })
      .onNotification(methods.client.session.update, ({ params }) => {
        if (params.update.sessionUpdate === 'agent_message_chunk' && params.update.content.type === 'text')
          texts.push(params.update.content.text);
      })
      .connect(remote.stream);
    await editor.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await editor.agent.request(methods.agent.session.new, { cwd: '/', mcpServers: [] });
    const prompt = (text: string) =>
      editor.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
    await prompt('one');
    // The next socket reaches a server that never held this connection: it refuses the cursor resume.
    proxy.retarget(second.port);
    proxy.cut();
    const failed = await recorder.waitFor('resume-failed');
    expect(failed.reason).toBe('unknown');
    expect(ResumeRefusedError.isInstance(failed.error)).toBe(true);
    expect(failed.error.wire).toBe('durable-resume');
    const carried = await recorder.waitFor('sessions-carried');
    expect(carried).toMatchObject({ carried: [sessionId], lost: [] });
    expect((await prompt('two')).stopReason).toBe('end_turn');
    expect(texts.at(-1)).toBe(notesReply(['one', 'two']));
    expect(recorder.events.map((event) => event.type)).toEqual([
      'interrupted',
      'resume-failed',
      'server-lost',
      'sessions-carried',
    ]);
  });

  it('a server that advertises no retention (resume window 0) is the plain wire: a drop is resume-failed (unsupported)', async () => {
    const server = await serveAcp(streamingApp, { port: 0, logger: silentLogger, resumeWindowMs: 0 });
    cleanup.add(() => server.close());
    const proxy = await startProxy(server.port);
    cleanup.add(() => proxy.close());
    const recorder = eventRecorder();
    const remote = await connectAcp(rfdUrl(proxy.port), {
      logger: recordingLogger().logger,
      onConnectionEvent: recorder.onConnectionEvent,
    });
    cleanup.add(() => remote.close());
    const writer = remote.stream.writable.getWriter();
    await writer.write({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
    const { value } = await remote.stream.readable.getReader().read();
    expect((value as { id?: unknown }).id).toBe(0);
    expect(remote.resumable).toBe(false);
    proxy.cut();
    const failed = await recorder.waitFor('resume-failed');
    expect(failed.reason).toBe('unsupported');
    expect(await remote.closed).toMatchObject({ code: 1006 });
    expect(recorder.events.map((event) => event.type)).toEqual(['resume-failed']);
  });

  it('rejects a resumeWire it does not know, naming the option', async () => {
    const error = await connectAcp('ws://127.0.0.1:1/acp', {
      resumeWire: 'stream' as never,
    }).catch((caught: unknown) => caught);
    expect(AcpRemoteOptionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'INVALID_OPTION', option: 'resumeWire' });
  });
});

/** `connectAcp` with its defaults (`resumeWire: 'auto'`) to a server of the draft alone; its stream read by `next`. */
async function dialDraftServer(pong: boolean) {
  const server = await DraftServer.start({ pong });
  cleanup.add(() => server.close());
  const recorder = eventRecorder();
  const logs = recordingLogger();
  const remote = await connectAcp(server.url, {
    logger: logs.logger,
    onConnectionEvent: recorder.onConnectionEvent,
  });
  cleanup.add(() => remote.close());
  const writer = remote.stream.writable.getWriter();
  const reader = remote.stream.readable.getReader();
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect loosely typed JSON-RPC
  const next = async (): Promise<any> => {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended: ${JSON.stringify(await remote.closed)}`);
    return value;
  };
  const write = (message: object) => writer.write({ jsonrpc: '2.0', ...message } as AnyMessage);
  await write({ id: 0, method: 'initialize', params: { protocolVersion: 1 } });
  expect((await next()).id).toBe(0);
  return { server, recorder, logs, remote, next, write };
}

describe('connectAcp against a server of the draft alone (resumeWire auto)', () => {
  it('dials stream/resume with the last cursor once initialize advertised retention; repeats are dropped', async () => {
    const { server, recorder, remote, next, write } = await dialDraftServer(true);
    expect(remote.resumable).toBe(true);
    await write({ id: 1, method: '_test/ask', params: {} });
    await server.receivedCount(2);
    server.send({ method: '_test/tick', params: { n: 1 } });
    // An error answer carries no cursor, but keeps its place in the stream: the replay sends it again.
    server.send({ id: 1, error: { code: -32601, message: 'no such method' } }, false);
    expect((await next()).params.n).toBe(1);
    expect((await next()).error.code).toBe(-32601);
    server.drop();
    await recorder.waitFor('resumed');
    const resume = server.received.find((entry) => entry.message.method === 'stream/resume')!;
    expect(resume).toMatchObject({ socket: 2, message: { params: { connectionId: 'c1', cursor: '2' } } });
    // The replay (the error answer again) is skipped; what follows is handed on once.
    server.send({ method: '_test/tick', params: { n: 2 } });
    expect((await next()).params.n).toBe(2);
    // Answered (confirmed by its answer): nothing the client sent goes again.
    expect(
      server.received.filter((entry) => entry.socket === 2).map((entry) => entry.message.method),
    ).toEqual(['stream/resume']);
  });

  it('answers a request the server never confirmed with cut_in_flight, drops its late answer, sends notifications again', async () => {
    const { server, recorder, logs, next, write } = await dialDraftServer(false);
    await write({ id: 5, method: 'session/prompt', params: { sessionId: 's1', prompt: [] } });
    await write({ method: 'session/cancel', params: { sessionId: 's1' } });
    await server.receivedCount(3);
    server.drop();
    const answer = await next();
    expect(answer).toMatchObject({
      id: 5,
      error: {
        code: RelayErrorCode.TransportLost,
        data: { reason: 'cut_in_flight', transport: 'websocket' },
      },
    });
    expect(recorder.events.map((event) => event.type)).toEqual(['interrupted', 'resumed']);
    expect(recorder.events[1]).toMatchObject({ replayedFrames: 1 });
    await server.receivedCount(5);
    expect(
      server.received.filter((entry) => entry.socket === 2).map((entry) => entry.message.method),
    ).toEqual(['stream/resume', 'session/cancel']);
    // The prompt did reach the agent: its answer comes late and is not handed on (the request was answered).
    server.send({ id: 5, result: { stopReason: 'end_turn' } });
    server.send({ method: '_test/tick', params: { n: 1 } });
    expect((await next()).method).toBe('_test/tick');
    const warned = logs.entries.find((entry) => /cut in flight/.test(entry.message));
    expect(warned?.fields).toMatchObject({ requests: 1, wire: 'durable-resume' });
  });

  it('resumeWire acpkit never dials it: a drop is resume-failed (unsupported)', async () => {
    const server = await DraftServer.start({ pong: true });
    cleanup.add(() => server.close());
    const recorder = eventRecorder();
    const remote = await connectAcp(server.url, {
      resumeWire: 'acpkit',
      logger: recordingLogger().logger,
      onConnectionEvent: recorder.onConnectionEvent,
    });
    cleanup.add(() => remote.close());
    const writer = remote.stream.writable.getWriter();
    await writer.write({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
    await remote.stream.readable.getReader().read();
    expect(remote.resumable).toBe(false);
    server.drop();
    const failed = await recorder.waitFor('resume-failed');
    expect(failed.reason).toBe('unsupported');
  });
});
