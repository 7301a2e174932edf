// The server's connections over real sockets: what it keeps of the sockets a resumable session moved between.
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Cleanup, collectGarbage, rawRequest, recordingLogger } from '../../test/support/helpers.js';
import { ResumeWireClient } from '../../test/support/resume-client.js';
import { postInitialize } from '../../test/support/streamable-http.js';
import { resolveServeOptions } from '../options/validation.js';
import { RemoteProtocol } from '../shared/constants.js';
import { WebSocketPort } from '../websocket/websocket-port.js';
import { RemoteServerHost } from './remote-server.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('RemoteServerHost', () => {
  it("keeps nothing of a session's first socket once it resumed on another", async () => {
    // A closed `ws` socket still holds whatever it was receiving when it dropped (up to one message, 16 MiB), so one
    // kept for the session's life is a message's worth of memory no bound or metric counts.
    const { logger, waitFor } = recordingLogger();
    let first: WeakRef<WebSocket> | undefined;
    const server = await RemoteServerHost.start(resolveServeOptions({ port: 0, logger }), (port) => {
      // An agent that answers every request, worth a resume from its first message.
      port.markEstablished();
      port.receive((frame) => {
        const { id } = JSON.parse(frame.toString('utf8')) as { id: number };
        port.send(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
      });
      // This test's connections are WebSockets (the acpremote wire, where resume lives).
      if (port instanceof WebSocketPort) first = new WeakRef(port.socket);
      return {
        done: port.closed.then(() => undefined),
        shutdown: (reason) => port.goAway(reason, Promise.resolve()),
      };
    });
    cleanup.add(() => server.close());
    const client = await ResumeWireClient.open(server.url);
    const welcome = await client.welcome();
    client.request(1, '_test/echo');
    await client.response(1);
    expect(first?.deref()).toBeDefined();
    client.socket.terminate();
    await waitFor(/session kept for resume/);
    const resumed = await ResumeWireClient.open(server.url, {
      'Acpkit-Resume-Token': String(welcome.token),
      'Acpkit-Resume-Received': String(client.received),
    });
    cleanup.add(() => resumed.socket.terminate());
    resumed.request(2, '_test/echo');
    await resumed.response(2);
    await waitFor(/connection resumed/);
    await collectGarbage();
    expect(first?.deref() === undefined, "the session's first socket is still reachable").toBe(true);
  });

  it('ends a connection whose handler throws the same way on both transports', async () => {
    // Both acceptors open a connection through one path: a handler that throws is logged with its transport, its
    // client hears 1011 `connection setup failed`, and nothing of the connection is left in the server.
    const { logger, waitForCount } = recordingLogger();
    const server = await RemoteServerHost.start(resolveServeOptions({ port: 0, logger }), () => {
      throw new Error('no agent today');
    });
    cleanup.add(() => server.close());
    const socket = new WebSocket(server.url);
    const closed = await new Promise<{ code: number; reason: string }>((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') })),
    );
    expect(closed).toEqual({ code: 1011, reason: 'connection setup failed' });
    const answer = await postInitialize(server.port);
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { data: 'connection setup failed' } });
    const failures = await waitForCount(/connection handler failed/, 2);
    expect(failures.map((entry) => entry.fields?.transport)).toEqual(['websocket', 'streamable_http']);
    expect(server.connectionCount).toBe(0);
  });

  it('counts a refused Streamable HTTP initialize as a refused connection of its transport, not a request', async () => {
    const { logger, waitFor } = recordingLogger();
    const server = await RemoteServerHost.start(
      resolveServeOptions({ port: 0, logger, metrics: true }),
      (port) => ({
        done: port.closed.then(() => undefined),
        shutdown: (reason) => port.goAway(reason, Promise.resolve()),
      }),
    );
    cleanup.add(() => server.close());
    void server.drain({ graceMs: 60_000 });
    expect((await postInitialize(server.port)).status).toBe(503);
    const refused = await waitFor(/connection refused/);
    expect(refused.fields).toMatchObject({ reason: 'draining', transport: 'streamable_http' });
    const text = (await rawRequest(server.port, RemoteProtocol.metricsPath, {})).body;
    expect(text).toContain('acpremote_connections_total{outcome="draining",transport="streamable_http"} 1');
    expect(text).toContain('acpremote_connections_total{outcome="draining",transport="websocket"} 0');
    expect(text).not.toMatch(/acpremote_http_requests_refused_total\{reason="draining"\}/);
  });
});
