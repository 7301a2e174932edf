// Our client against our server on the durable-resume draft, with the network cut under them: a resume the server
// cannot honour (another instance), one it does not offer (no retention, the RFD WebSocket), and the turn-state
// advisory after a resume. Every refusal arrives through one seam: `resume-failed` with a ResumeRefusedError.
import type { AnyMessage } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AcpRemoteError,
  type ConnectionEvent,
  connectAcp,
  type RemoteConnection,
  ResumeRefusedError,
  serveAcp,
  silentLogger,
} from '../src/index.js';
import { echoApp } from './support/echo-app.js';
import { Cleanup } from './support/helpers.js';
import { startProxy } from './support/tcp-proxy.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** Serves `app` on an OS-chosen port, closed after the test. */
async function serve(app: Parameters<typeof serveAcp>[0], options: Parameters<typeof serveAcp>[1] = {}) {
  const server = await serveAcp(app, { port: 0, logger: silentLogger, ...options });
  cleanup.add(() => server.close());
  return server;
}

/** A client through a cuttable proxy, recording what it tells. */
async function client(url: string) {
  const events: ConnectionEvent[] = [];
  const waiters: Array<() => void> = [];
  const remote = await connectAcp(url, {
    logger: silentLogger,
    onConnectionEvent: (event) => {
      events.push(event);
      for (const waiter of waiters.splice(0)) waiter();
    },
  });
  cleanup.add(() => remote.close());
  const writer = remote.stream.writable.getWriter();
  const reader = remote.stream.readable.getReader();
  const eventOf = async <Type extends ConnectionEvent['type']>(type: Type) => {
    for (;;) {
      const found = events.find((event) => event.type === type);
      if (found !== undefined) return found as Extract<ConnectionEvent, { type: Type }>;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const request = async (id: number | string, method: string, params: object = {}) => {
    await writer.write({ jsonrpc: '2.0', id, method, params } as AnyMessage);
  };
  const next = async () => (await reader.read()).value as Record<string, unknown>;
  return { remote: remote as RemoteConnection, events, eventOf, request, next };
}

describe('durable resume: our client against our server', () => {
  it('a resume another instance cannot honour (409) arrives as resume-failed with a ResumeRefusedError', async () => {
    const first = await serve(() => echoApp());
    const proxy = await startProxy(first.port);
    cleanup.add(() => proxy.close());
    const peer = await client(`http://127.0.0.1:${proxy.port}/acp`);
    await peer.request(0, 'initialize', { protocolVersion: 1 });
    expect((await peer.next()).id).toBe(0);
    await peer.request(1, '_test/echo', { n: 1 });
    expect(await peer.next()).toMatchObject({
      id: 1,
      result: { n: 1, _meta: { 'acp/cursor': expect.any(String) } },
    });
    // The server is gone (a crash, a redeploy): the next attempt reaches an instance that never held the connection.
    const second = await serve(() => echoApp());
    proxy.retarget(second.port);
    // Cut once the POST is answered (a POST cut in flight is a resume failure of its own: `unreachable`).
    await proxy.responsesPassed(202, 1);
    proxy.cut();
    const failed = await peer.eventOf('resume-failed');
    expect(failed.reason).toBe('unknown');
    expect(failed.error).toBeInstanceOf(ResumeRefusedError);
    expect(AcpRemoteError.isInstance(failed.error)).toBe(true);
    expect(failed.error).toMatchObject({ code: 'RESUME_REFUSED', reason: 'unknown', wire: 'durable-resume' });
    expect(failed.message).toMatch(/HTTP 409.*resume refused \(unknown\)/);
    expect(await peer.remote.closed).toMatchObject({
      reason: expect.stringMatching(/^resume failed \(unknown\)/),
    });
    expect(peer.events.map((event) => event.type)).toEqual(['interrupted', 'resume-failed']);
  });

  it('a server that advertises no retention: resume-failed (unsupported) at once, no silent fresh stream', async () => {
    const server = await serve(() => echoApp(), { resumeWindowMs: 0 });
    const proxy = await startProxy(server.port);
    cleanup.add(() => proxy.close());
    const peer = await client(`http://127.0.0.1:${proxy.port}/acp`);
    await peer.request(0, 'initialize', { protocolVersion: 1 });
    const answer = (await peer.next()) as { result: { agentCapabilities?: { _meta?: unknown } } };
    expect(answer.result.agentCapabilities?._meta).toBeUndefined();
    // An answer on the stream: it is open (and read) when the network goes.
    await peer.request(1, '_test/echo', {});
    expect((await peer.next()).id).toBe(1);
    await proxy.responsesPassed(202, 1);
    proxy.cut();
    const failed = await peer.eventOf('resume-failed');
    expect(failed.error).toMatchObject({ code: 'RESUME_REFUSED', reason: 'unsupported' });
    await peer.remote.closed;
  });

  it('a WebSocket without transport resume (resume off): a drop is resume-failed (unsupported) too', async () => {
    // With resume on, our client resumes a WebSocket with acpkit.resume.v1, at <mount>/ws and <mount> alike.
    const server = await serve(() => echoApp(), { resumeWindowMs: 0 });
    const proxy = await startProxy(server.port);
    cleanup.add(() => proxy.close());
    const peer = await client(`ws://127.0.0.1:${proxy.port}/acp`);
    await peer.request(0, 'initialize', { protocolVersion: 1 });
    expect((await peer.next()).id).toBe(0);
    proxy.cut();
    const failed = await peer.eventOf('resume-failed');
    expect(failed.error).toMatchObject({
      code: 'RESUME_REFUSED',
      reason: 'unsupported',
      wire: 'durable-resume',
    });
  });

  it('a resumed session stream starts with the turn-state advisory: running, with the prompt in progress', async () => {
    const server = await serve(() => sessionApp());
    const proxy = await startProxy(server.port);
    cleanup.add(() => proxy.close());
    const peer = await client(`http://127.0.0.1:${proxy.port}/acp`);
    await peer.request(0, 'initialize', { protocolVersion: 1 });
    await peer.next();
    await peer.request(1, 'session/new', { cwd: '/', mcpServers: [] });
    expect(await peer.next()).toMatchObject({ id: 1, result: { sessionId: 's1' } });
    // The prompt's first update proves the session stream is open; the agent holds the turn.
    await peer.request(7, 'session/prompt', { sessionId: 's1', prompt: [] });
    expect(await peer.next()).toMatchObject({ method: 'session/update', params: { sessionId: 's1' } });
    // Cut once the POSTs are answered (a POST cut in flight is a resume failure of its own: `unreachable`).
    await proxy.responsesPassed(202, 2);
    proxy.cut();
    const advisory = await peer.eventOf('turn-state');
    expect(advisory).toEqual({
      type: 'turn-state',
      sessionId: 's1',
      turnState: { state: 'running', promptRequestId: 7 },
    });
    expect(peer.events.some((event) => event.type === 'resume-failed')).toBe(false);
  });
});

/** An app with one session, `s1`, whose prompts send one update and are never answered (a long turn). */
function sessionApp() {
  return {
    connect(stream: { readable: ReadableStream<AnyMessage>; writable: WritableStream<AnyMessage> }) {
      const reader = stream.readable.getReader();
      const writer = stream.writable.getWriter();
      const closed = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          const message = value as { id?: number; method?: string };
          if (message.method === 'initialize')
            await writer.write({
              jsonrpc: '2.0',
              id: message.id!,
              result: { protocolVersion: 1 },
            } as AnyMessage);
          else if (message.method === 'session/new')
            await writer.write({
              jsonrpc: '2.0',
              id: message.id!,
              result: { sessionId: 's1' },
            } as AnyMessage);
          else if (message.method === 'session/prompt')
            await writer.write({
              jsonrpc: '2.0',
              method: 'session/update',
              params: {
                sessionId: 's1',
                update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '…' } },
              },
            } as AnyMessage);
        }
      })();
      return { closed, close: () => void reader.cancel().catch(() => {}) };
    },
  };
}
