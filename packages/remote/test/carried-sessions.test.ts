// Sessions carried across a lost server, in process: a real SDK client over connectAcp or the mirror, an SDK agent
// whose sessions outlive its server (a shared store), and the server closed and started again on the same port.
import { PassThrough, Readable, Writable } from 'node:stream';
import {
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type Stream,
} from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConnectionEvent,
  connectAcp,
  type MirrorOptions,
  RelayErrorCode,
  type RemoteServer,
  runMirror,
  serveAcp,
} from '../src/index.js';
import { Cleanup, recordingLogger } from './support/helpers.js';
import { type NotesAgentOptions, type NotesStore, notesAgent, notesReply } from './support/notes-agent.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** A server of the notes agent; `port` to start it again where it was. */
async function startServer(options: NotesAgentOptions, port = 0): Promise<RemoteServer> {
  const server = await serveAcp(() => notesAgent(options), {
    port,
    logger: recordingLogger().logger,
  });
  cleanup.add(() => server.close());
  return server;
}

/** An SDK client on `stream` that records each agent message chunk's text, by session. */
function editorOn(stream: Stream) {
  const texts: string[] = [];
  const connection = client({ name: 'editor' })
    .onNotification(methods.client.session.update, ({ params }) => {
      const { update } = params;
      if (
        (update.sessionUpdate === 'agent_message_chunk' || update.sessionUpdate === 'user_message_chunk') &&
        update.content.type === 'text'
      )
        texts.push(update.content.text);
    })
    .connect(stream);
  const prompt = (sessionId: string, text: string) =>
    connection.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text }],
    });
  const start = async () => {
    await connection.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await connection.agent.request(methods.agent.session.new, {
      cwd: '/work',
      mcpServers: [],
    });
    return sessionId;
  };
  return { connection, texts, prompt, start };
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

/** The mirror on in-memory stdio, with an SDK client on it as the editor. */
function startMirror(url: string, options: MirrorOptions) {
  const input = new PassThrough();
  const output = new PassThrough();
  const exitCode = runMirror(url, { input, output, ...options });
  const editor = editorOn(
    ndJsonStream(Writable.toWeb(input), Readable.toWeb(output) as ReadableStream<Uint8Array>),
  );
  cleanup.add(async () => {
    editor.connection.close();
    if (!input.writableEnded) input.end();
    await exitCode.catch(() => undefined);
  });
  return { editor, exitCode };
}

/** A server of the resuming notes agent, and an editor on `connectAcp` to it (its events recorded). */
async function editorOverConnectAcp(requiresAuthentication = false) {
  const store: NotesStore = new Map();
  const first = await startServer({ store, reopen: 'resume', requiresAuthentication });
  const recorder = eventRecorder();
  const logs = recordingLogger();
  const remote = await connectAcp(first.url, {
    logger: logs.logger,
    onConnectionEvent: recorder.onConnectionEvent,
  });
  cleanup.add(() => remote.close());
  return { store, first, recorder, logs, editor: editorOn(remote.stream) };
}

describe('sessions carried across a lost server', () => {
  it('connectAcp (WebSocket): session/resume on the restarted server; the prompt in flight gets the carried error', async () => {
    const { store, first, recorder, logs, editor } = await editorOverConnectAcp();
    const sessionId = await editor.start();
    await editor.prompt(sessionId, 'one');
    const held = editor.prompt(sessionId, 'hold');
    const heldError = held.then(
      () => undefined,
      (error: unknown) => error,
    );
    await new Promise((resolve) => setImmediate(resolve));
    await first.close();
    await startServer({ store, reopen: 'resume' }, first.port);
    const carried = await recorder.waitFor('sessions-carried');
    expect(carried).toMatchObject({ carried: [sessionId], lost: [] });
    const error = (await heldError) as RequestError;
    expect(error).toBeInstanceOf(RequestError);
    expect(error.code).toBe(RelayErrorCode.TransportLost);
    expect(error.message).toMatch(/the session was carried to a new connection and continues/);
    expect(error.data).toMatchObject({ reason: 'session_carried', transport: 'websocket' });
    const turn = await editor.prompt(sessionId, 'two');
    expect(turn.stopReason).toBe('end_turn');
    expect(editor.texts.at(-1)).toBe(notesReply(['one', 'two']));
    expect(recorder.events.map((event) => event.type)).toContain('server-lost');
    const told = logs.entries.filter((entry) => /carr/.test(entry.message));
    expect(told.map((entry) => entry.message)).toEqual([
      'remote server lost; carrying the sessions to a new connection',
      'sessions carried to a new connection; requests in flight were answered with an error',
    ]);
    expect(told[1]!.fields).toMatchObject({ carried: 1, lost: 0, method: 'session/resume' });
  });

  it('runMirror (Streamable HTTP): session/load on the restarted server, its replay withheld from the editor', async () => {
    const store: NotesStore = new Map();
    const first = await startServer({ store, reopen: 'load' });
    const recorder = eventRecorder();
    const { editor } = startMirror(first.endpoint, {
      logger: recordingLogger().logger,
      onConnectionEvent: recorder.onConnectionEvent,
    });
    const sessionId = await editor.start();
    await editor.prompt(sessionId, 'one');
    await editor.prompt(sessionId, 'two');
    const shown = [...editor.texts];
    expect(shown).toEqual([notesReply(['one']), notesReply(['one', 'two'])]);
    await first.close();
    await startServer({ store, reopen: 'load' }, first.port);
    await recorder.waitFor('sessions-carried');
    await editor.prompt(sessionId, 'three');
    // Nothing of the replayed history reached the editor: only the new turn's reply.
    expect(editor.texts).toEqual([...shown, notesReply(['one', 'two', 'three'])]);
  });

  it('an agent that requires authenticate: the carry authenticates as the editor did, then resumes', async () => {
    const { store, first, recorder, editor } = await editorOverConnectAcp(true);
    await editor.connection.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    await editor.connection.agent.request(methods.agent.authenticate, { methodId: 'token' });
    const { sessionId } = await editor.connection.agent.request(methods.agent.session.new, {
      cwd: '/work',
      mcpServers: [],
    });
    await editor.prompt(sessionId, 'one');
    await first.close();
    await startServer({ store, reopen: 'resume', requiresAuthentication: true }, first.port);
    // Without authenticating again the carry fails (`session/resume failed: Authentication required`).
    const outcome = await Promise.race([
      recorder.waitFor('sessions-carried'),
      recorder.waitFor('carry-failed'),
    ]);
    expect(outcome).toMatchObject({ type: 'sessions-carried', carried: [sessionId], lost: [] });
    await editor.prompt(sessionId, 'two');
    expect(editor.texts.at(-1)).toBe(notesReply(['one', 'two']));
  });

  it('a second session the new server does not know is lost; the other carries on', async () => {
    const { store, first, recorder, editor } = await editorOverConnectAcp();
    const kept = await editor.start();
    const { sessionId: gone } = await editor.connection.agent.request(methods.agent.session.new, {
      cwd: '/work',
      mcpServers: [],
    });
    await first.close();
    store.delete(gone);
    await startServer({ store, reopen: 'resume' }, first.port);
    const carried = await recorder.waitFor('sessions-carried');
    expect(carried.carried).toEqual([kept]);
    expect(carried.lost).toEqual([
      { sessionId: gone, message: expect.stringMatching(/session\/resume failed/) },
    ]);
    await editor.prompt(kept, 'after');
    expect(editor.texts.at(-1)).toBe(notesReply(['after']));
  });

  it('an agent that offers neither resume nor load: the connection ends as before (mirror exit 1, transport lost)', async () => {
    const store: NotesStore = new Map();
    const first = await startServer({ store, reopen: 'none' });
    const recorder = eventRecorder();
    const { editor, exitCode } = startMirror(first.url, {
      logger: recordingLogger().logger,
      onConnectionEvent: recorder.onConnectionEvent,
    });
    const sessionId = await editor.start();
    const held = editor.prompt(sessionId, 'hold').then(
      () => undefined,
      (error: unknown) => error,
    );
    await new Promise((resolve) => setImmediate(resolve));
    await first.close();
    await startServer({ store, reopen: 'none' }, first.port);
    const failed = await recorder.waitFor('carry-failed');
    expect(failed.message).toMatch(
      /no session could be carried: the agent offers neither session\/resume nor session\/load/,
    );
    const error = (await held) as RequestError;
    expect(error.message).toMatch(/ACP remote transport lost: .*sessions not carried/);
    expect(await exitCode).toBe(1);
  });

  it('carrySessions: false ends the mirror at the loss, as before', async () => {
    const store: NotesStore = new Map();
    const first = await startServer({ store, reopen: 'resume' });
    const recorder = eventRecorder();
    const { editor, exitCode } = startMirror(first.url, {
      logger: recordingLogger().logger,
      carrySessions: false,
      onConnectionEvent: recorder.onConnectionEvent,
    });
    await editor.start();
    await first.close();
    expect(await exitCode).toBe(1);
    expect(recorder.events.map((event) => event.type)).not.toContain('server-lost');
  });

  it('gives up after reconnectTimeoutMs when the server stays away', async () => {
    const store: NotesStore = new Map();
    const first = await startServer({ store, reopen: 'resume' });
    const recorder = eventRecorder();
    const { editor, exitCode } = startMirror(first.endpoint, {
      logger: recordingLogger().logger,
      reconnectTimeoutMs: 300,
      onConnectionEvent: recorder.onConnectionEvent,
    });
    await editor.start();
    await first.close();
    const failed = await recorder.waitFor('carry-failed');
    expect(failed.attempts).toBeGreaterThanOrEqual(1);
    expect(await exitCode).toBe(1);
  });

  it('what the editor sends while the sessions are carried waits and then reaches the new server', async () => {
    const { store, first, recorder, editor } = await editorOverConnectAcp();
    const sessionId = await editor.start();
    await first.close();
    await recorder.waitFor('server-lost');
    const waiting = editor.prompt(sessionId, 'queued');
    await startServer({ store, reopen: 'resume' }, first.port);
    expect((await waiting).stopReason).toBe('end_turn');
    expect(editor.texts.at(-1)).toBe(notesReply(['queued']));
  });
});

describe('instanceId', () => {
  it('prefixes the connection ids of both transports, so a proxy can route by them', async () => {
    const server = await serveAcp(() => notesAgent({ store: new Map(), reopen: 'none' }), {
      port: 0,
      instanceId: 'pod-a',
      logger: recordingLogger().logger,
    });
    cleanup.add(() => server.close());
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } }),
    });
    expect(response.status).toBe(200);
    await response.body?.cancel();
    expect(response.headers.get('acp-connection-id')).toMatch(/^pod-a\.[0-9a-f-]{36}$/);
    const { WebSocket } = await import('ws');
    const socket = new WebSocket(server.endpoint.replace(/^http/, 'ws'));
    const upgraded = await new Promise<string | undefined>((resolve, reject) => {
      socket.once('upgrade', (answer) => resolve(answer.headers['acp-connection-id'] as string | undefined));
      socket.once('error', reject);
    });
    socket.terminate();
    expect(upgraded).toMatch(/^pod-a\.[0-9a-f-]{36}$/);
  });
});
