// The server's connections over real sockets: what it keeps of the sockets a resumable session moved between.
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { Cleanup, collectGarbage, recordingLogger } from '../../test/support/helpers.js';
import { ResumeWireClient } from '../../test/support/resume-client.js';
import { resolveServeOptions } from '../options/validation.js';
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
});
