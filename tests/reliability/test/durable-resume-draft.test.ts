// ACP's durable-resume draft against the built `acpremote expose`, spoken by a client written from the draft alone
// (raw fetch and ws, nothing from our packages): retention advertised in initialize, cursors on every event (SSE
// `id:` and `_meta["acp/cursor"]`), Last-Event-ID replay byte-identical, 409 for unknown, malformed and expired
// cursors and for a dropped connection, never a live stream after a refusal; on the RFD WebSocket, the same cursors
// in `_meta`, `stream/resume` after a drop replaying identically, and `stream/resume_failed` for what it cannot honour.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  fixturePath,
  killStartedProcesses,
  type RunningServer,
  startAcpremote,
} from './support/processes.js';

/** One SSE event as the draft describes it. */
interface DraftEvent {
  readonly id: string | undefined;
  readonly event: string | undefined;
  readonly data: string;
  /** The event's bytes as received, from its first field to its blank line. */
  readonly raw: string;
}

/** A streaming SSE GET read with fetch: events as they come, and a way to cut it (an abort: the socket is gone). */
class DraftStream {
  readonly events: DraftEvent[] = [];
  private buffer = '';
  private waiters: Array<() => void> = [];
  private done = false;

  constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    void this.pump();
  }

  private async pump(): Promise<void> {
    const reader = this.response.body!.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.buffer += decoder.decode(value, { stream: true });
        for (let end = this.buffer.indexOf('\n\n'); end !== -1; end = this.buffer.indexOf('\n\n')) {
          const raw = this.buffer.slice(0, end + 2);
          this.buffer = this.buffer.slice(end + 2);
          let id: string | undefined;
          let event: string | undefined;
          const data: string[] = [];
          for (const line of raw.slice(0, -2).split('\n')) {
            if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length > 0) this.events.push({ id, event, data: data.join('\n'), raw });
        }
        this.wake();
      }
    } catch {
      // aborted
    }
    this.done = true;
    this.wake();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Waits until at least `count` events arrived. */
  async waitForEvents(count: number): Promise<void> {
    while (this.events.length < count) {
      if (this.done) throw new Error(`the stream ended after ${this.events.length} events`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  cut(): void {
    this.abort.abort();
  }
}

/** One message received on an RFD WebSocket: its text, parsed, and the cursor the draft puts in its `_meta`. */
interface DraftMessage {
  readonly raw: string;
  readonly message: Record<string, unknown> & {
    params?: Record<string, unknown>;
    result?: Record<string, unknown>;
  };
  readonly cursor: string | undefined;
}

/** An RFD WebSocket as the draft describes it, read by hand: every message kept in arrival order. */
class DraftSocket {
  readonly received: DraftMessage[] = [];
  private waiters: Array<() => void> = [];

  constructor(
    readonly socket: WebSocket,
    readonly connectionId: string,
  ) {
    socket.on('message', (data) => {
      const raw = String(data);
      const message = JSON.parse(raw) as DraftMessage['message'];
      const body = (message.params ?? message.result) as { _meta?: Record<string, unknown> } | undefined;
      const cursor = body?._meta?.['acp/cursor'];
      this.received.push({ raw, message, cursor: typeof cursor === 'string' ? cursor : undefined });
      for (const waiter of this.waiters.splice(0)) waiter();
    });
  }

  send(message: object): void {
    this.socket.send(JSON.stringify({ jsonrpc: '2.0', ...message }));
  }

  async count(count: number): Promise<void> {
    while (this.received.length < count) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Sends a request and waits for its answer. */
  async request(id: number, method: string, params: object): Promise<DraftMessage> {
    this.send({ id, method, params });
    for (;;) {
      const found = this.received.find((received) => received.message.id === id);
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}

describe('the durable-resume draft, from a client written from the draft alone', () => {
  let server: RunningServer;
  let endpoint: string;
  beforeAll(async () => {
    // A small retention bound (4 KiB messages, 2 KiB beyond one): a flood evicts the first events deterministically.
    server = await startAcpremote([
      'expose',
      '--metrics',
      '--max-message-bytes',
      '4096',
      '--resume-buffer-bytes',
      '2048',
      '--',
      process.execPath,
      fixturePath('hold-agent.mjs'),
    ]);
    endpoint = `http://127.0.0.1:${server.port}/acp`;
  });
  afterAll(async () => {
    await server.stop();
    await killStartedProcesses();
  });

  async function initialize(): Promise<{ connectionId: string; result: Record<string, unknown> }> {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: 1, clientCapabilities: {} },
      }),
    });
    expect(response.status).toBe(200);
    const connectionId = response.headers.get('acp-connection-id')!;
    const body = (await response.json()) as { result: Record<string, unknown> };
    return { connectionId, result: body.result };
  }

  async function post(connectionId: string, message: object): Promise<void> {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Acp-Connection-Id': connectionId },
      body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    });
    expect(response.status).toBe(202);
  }

  function get(
    connectionId: string,
    lastEventId?: string,
  ): Promise<{ response: Response; abort: AbortController }> {
    const abort = new AbortController();
    return fetch(endpoint, {
      headers: {
        Accept: 'text/event-stream',
        'Acp-Connection-Id': connectionId,
        ...(lastEventId !== undefined ? { 'Last-Event-ID': lastEventId } : {}),
      },
      signal: abort.signal,
    }).then((response) => ({ response, abort }));
  }

  /** `acpremote_durable_resumes_total` of the server now, by `transport` label and outcome. */
  async function durableResumes(transport: string): Promise<Record<string, number>> {
    const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
    const counts: Record<string, number> = {};
    const pattern = new RegExp(
      `^acpremote_durable_resumes_total\\{transport="${transport}",outcome="(\\w+)"\\} (\\d+)$`,
      'gm',
    );
    for (const [, outcome, value] of text.matchAll(pattern)) counts[outcome!] = Number(value);
    return counts;
  }

  async function open(connectionId: string, lastEventId?: string): Promise<DraftStream> {
    const { response, abort } = await get(connectionId, lastEventId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    return new DraftStream(response, abort);
  }

  it('advertises retention in initialize, where this server says (agentCapabilities._meta["acp/transport"])', async () => {
    const { result } = await initialize();
    const capabilities = result.agentCapabilities as {
      _meta: Record<string, { resumable: Record<string, number> }>;
    };
    const resumable = capabilities._meta['acp/transport']!.resumable;
    expect(resumable.retentionSeconds).toBe(60);
    expect(resumable.retentionMessages).toBeGreaterThanOrEqual(1);
    expect(resumable.retentionBytes).toBeGreaterThan(2048);
    expect(resumable.keepaliveIntervalMs).toBeGreaterThan(0);
    // The agent's own answer is all there besides.
    expect(result.agentInfo).toMatchObject({ name: 'hold-agent' });
  });

  it('stamps every event with its cursor (id: and _meta["acp/cursor"]) and replays identically after Last-Event-ID', async () => {
    const before = await durableResumes('streamable_http');
    const { connectionId } = await initialize();
    const first = await open(connectionId);
    // 3 requests, each answered after 2 notifications: 9 events.
    for (const seq of [1, 2, 3])
      await post(connectionId, { id: seq, method: '_test/echo', params: { seq, ticks: 2 } });
    await first.waitForEvents(9);
    for (const event of first.events) {
      expect(event.id).toMatch(/^\S+$/);
      const message = JSON.parse(event.data) as { params?: { _meta?: object }; result?: { _meta?: object } };
      expect((message.params ?? message.result)?._meta).toEqual({ 'acp/cursor': event.id });
    }
    expect(new Set(first.events.map((event) => event.id)).size).toBe(9);
    // The client processed 4 events, then the socket went.
    const processed = first.events[3]!.id!;
    first.cut();
    for (const seq of [4, 5])
      await post(connectionId, { id: seq, method: '_test/echo', params: { seq, ticks: 1 } });
    const resumed = await open(connectionId, processed);
    await resumed.waitForEvents(5 + 4);
    // Everything after the cursor, in order, byte for byte as first sent (cursors included), then the live ones.
    expect(resumed.events.slice(0, 5).map((event) => event.raw)).toEqual(
      first.events.slice(4).map((event) => event.raw),
    );
    const live = resumed.events
      .slice(5)
      .map((event) => JSON.parse(event.data) as { method?: string; id?: number });
    expect(live.map((message) => message.id ?? message.method)).toEqual(['_test/tick', 4, '_test/tick', 5]);
    resumed.cut();
    expect((await durableResumes('streamable_http')).accepted! - before.accepted!).toBe(1);
  });

  it('refuses with 409, never a live stream: an unknown cursor, a malformed one, a dropped connection', async () => {
    const before = await durableResumes('streamable_http');
    const { connectionId } = await initialize();
    const stream = await open(connectionId);
    await post(connectionId, { id: 1, method: '_test/echo', params: { seq: 1 } });
    await stream.waitForEvents(1);
    stream.cut();
    for (const cursor of ['999999', 'not-a-cursor-of-this-server']) {
      const { response } = await get(connectionId, cursor);
      expect(response.status).toBe(409);
      expect(response.headers.get('content-type')).not.toContain('text/event-stream');
      expect(response.headers.get('acpkit-resume-refused')).toBe('unknown');
      expect(await response.text()).toMatch(/resume refused \(unknown\)/);
    }
    const { response: unknownConnection } = await get('00000000-0000-4000-8000-000000000000', '1');
    expect(unknownConnection.status).toBe(409);
    expect(unknownConnection.headers.get('acpkit-resume-refused')).toBe('unknown');
    // DELETE ends the connection: a resume of it is refused as ended.
    const deleted = await fetch(endpoint, {
      method: 'DELETE',
      headers: { 'Acp-Connection-Id': connectionId },
    });
    expect(deleted.status).toBe(202);
    const { response: ended } = await get(connectionId, stream.events[0]!.id);
    expect(ended.status).toBe(409);
    expect(ended.headers.get('acpkit-resume-refused')).toBe('ended');
    // Without Last-Event-ID an unknown connection is still a plain 404.
    expect((await get(connectionId)).response.status).toBe(404);
    // An operator sees each refusal by its reason.
    const after = await durableResumes('streamable_http');
    expect(after.unknown! - before.unknown!).toBe(3);
    expect(after.ended! - before.ended!).toBe(1);
    expect(after.accepted! - before.accepted!).toBe(0);
  });

  it('refuses a cursor past retention with 409 expired (the bound counts bytes, overhead included)', async () => {
    const { connectionId } = await initialize();
    const stream = await open(connectionId);
    const padding = 'x'.repeat(1_500);
    for (let seq = 1; seq <= 8; seq += 1)
      await post(connectionId, { id: seq, method: '_test/echo', params: { seq, padding } });
    await stream.waitForEvents(8);
    const firstCursor = stream.events[0]!.id!;
    const lastCursor = stream.events[7]!.id!;
    stream.cut();
    const { response } = await get(connectionId, firstCursor);
    expect(response.status).toBe(409);
    expect(response.headers.get('acpkit-resume-refused')).toBe('expired');
    // The newest cursor is still within retention: nothing to replay, and live again.
    const resumed = await open(connectionId, lastCursor);
    await post(connectionId, { id: 9, method: '_test/echo', params: { seq: 9 } });
    await resumed.waitForEvents(1);
    expect(JSON.parse(resumed.events[0]!.data)).toMatchObject({ id: 9 });
    resumed.cut();
  });

  /** Opens an RFD WebSocket on the endpoint: the socket and the `Acp-Connection-Id` of its 101. */
  async function openSocket(): Promise<DraftSocket> {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/acp`);
    let connectionId = '';
    // The 101 comes before 'open'.
    socket.once('upgrade', (response) => {
      connectionId = String(response.headers['acp-connection-id']);
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    expect(connectionId).not.toBe('');
    return new DraftSocket(socket, connectionId);
  }

  /** A new socket's `stream/resume` of `connectionId` from `cursor`, which must be refused: the refusal's params. */
  async function refusalOf(connectionId: string, cursor: unknown): Promise<unknown> {
    const socket = await openSocket();
    socket.send({ id: 'r', method: 'stream/resume', params: { connectionId, cursor } });
    await socket.count(2);
    socket.socket.close();
    return socket.received[0]!.message.params;
  }

  it('on the RFD WebSocket: retention advertised, a cursor on every message, stream/resume replays identically', async () => {
    const before = await durableResumes('websocket');
    const first = await openSocket();
    const init = await first.request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
    const transport = (init.message.result as { agentCapabilities: { _meta: Record<string, unknown> } })
      .agentCapabilities._meta['acp/transport'] as { resumable: Record<string, number> };
    expect(transport.resumable.retentionSeconds).toBe(60);
    // 3 requests, each answered after 2 notifications: 9 messages after the answer to initialize.
    for (const seq of [1, 2, 3]) first.send({ id: seq, method: '_test/echo', params: { seq, ticks: 2 } });
    await first.count(10);
    for (const received of first.received) {
      const body = (received.message.params ?? received.message.result) as { _meta?: object };
      expect(body._meta).toMatchObject({ 'acp/cursor': received.cursor });
      expect(received.cursor).toMatch(/^\S+$/);
    }
    expect(new Set(first.received.map((received) => received.cursor)).size).toBe(10);
    // The client processed 5 messages, then the network went (no close frame).
    const processed = first.received[4]!.cursor!;
    first.socket.terminate();
    const second = await openSocket();
    second.send({
      id: 'resume',
      method: 'stream/resume',
      params: { connectionId: first.connectionId, cursor: processed },
    });
    await second.count(1 + 5);
    // The answer (the turn-state advisory in its _meta), then every later message byte for byte, then live.
    expect(second.received[0]!.message).toMatchObject({
      id: 'resume',
      result: { _meta: { 'acp/turnState': { state: 'idle' } } },
    });
    expect(second.received.slice(1).map((received) => received.raw)).toEqual(
      first.received.slice(5).map((received) => received.raw),
    );
    const live = await second.request(4, '_test/echo', { seq: 4 });
    expect(Number(live.cursor)).toBeGreaterThan(Number(first.received[9]!.cursor));
    second.socket.close();
    expect((await durableResumes('websocket')).accepted! - before.accepted!).toBe(1);
  });

  it('on the RFD WebSocket: refusals are stream/resume_failed, never a live stream; the socket is a new connection', async () => {
    const before = await durableResumes('websocket');
    // Unknown: a connection this server never held. The socket then takes initialize: a new connection.
    const unknown = await openSocket();
    unknown.send({
      id: 'r',
      method: 'stream/resume',
      params: { connectionId: '00000000-0000-4000-8000-000000000000', cursor: '5' },
    });
    await unknown.count(2);
    expect(unknown.received[0]!.message).toEqual({
      jsonrpc: '2.0',
      method: 'stream/resume_failed',
      params: { reason: 'unknown', message: expect.stringMatching(/initialize/) },
    });
    expect(unknown.received[1]!.message).toMatchObject({
      id: 'r',
      error: { code: -32050, data: { reason: 'unknown' } },
    });
    const fresh = await unknown.request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(fresh.cursor).toBe('1');
    unknown.socket.close();

    // Expired: the messages after the cursor no longer fit the retention bound.
    const flooded = await openSocket();
    await flooded.request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
    const padding = 'x'.repeat(1_500);
    for (let seq = 1; seq <= 8; seq += 1)
      flooded.send({ id: seq, method: '_test/echo', params: { seq, padding } });
    await flooded.count(9);
    flooded.socket.terminate();
    expect(await refusalOf(flooded.connectionId, flooded.received[0]!.cursor)).toMatchObject({
      reason: 'expired',
    });

    // Ended: a connection its client closed (a close frame is the WebSocket's DELETE).
    const closed = await openSocket();
    await closed.request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
    closed.socket.close(1000);
    await new Promise((resolve) => closed.socket.once('close', resolve));
    expect(await refusalOf(closed.connectionId, closed.received[0]!.cursor)).toMatchObject({
      reason: 'ended',
    });
    const after = await durableResumes('websocket');
    expect(['unknown', 'expired', 'ended'].map((reason) => after[reason]! - before[reason]!)).toEqual([
      1, 1, 1,
    ]);
  });
});
