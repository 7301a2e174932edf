// A client connection's reconnect loop over real sockets, against a real server: what it keeps between drops.
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, collectGarbage, ECHO_AGENT } from '../../test/support/helpers.js';
import type { ConnectionEvent } from '../options/connection-events.js';
import { resolveConnectOptions } from '../options/validation.js';
import { serveCommand } from '../server/serve-command.js';
import { silentLogger } from '../shared/logger.js';
import type { WebSocketPort } from '../websocket/websocket-port.js';
import { openClientConnection } from './client-connection.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('openClientConnection', () => {
  it('keeps nothing of the sockets it resumed from: no growth per drop on a long-lived connection', async () => {
    const server = await serveCommand([process.execPath, ECHO_AGENT], { port: 0, logger: silentLogger });
    cleanup.add(() => server.close());
    const events: Array<(event: ConnectionEvent) => void> = [];
    const resolved = resolveConnectOptions(server.url, {
      logger: silentLogger,
      onConnectionEvent: (event) => {
        for (const listener of events) listener(event);
      },
    });
    const connection = await openClientConnection(resolved, 'peer');
    const port = connection.port as WebSocketPort;
    cleanup.add(() => port.terminate());
    // The answer to initialize comes after the server's welcome, and the server keeps a session for a resume once its
    // agent answered initialize: the connection is resumable from then on.
    const answered = new Promise<void>((resolve) => port.receive(() => resolve()));
    port.send('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}');
    await answered;
    expect(connection.resumable).toBe(true);
    /** Drops the socket under the port without a close frame (a network drop) and waits for the resume. */
    const dropAndResume = async () => {
      const resumed = new Promise<void>((resolve) =>
        events.push((event) => {
          if (event.type === 'resumed') resolve();
        }),
      );
      port.socket.terminate();
      await resumed;
      events.length = 0;
    };
    await dropAndResume();
    const earlier = new WeakRef(port.socket);
    await dropAndResume();
    expect(port.socket).not.toBe(earlier.deref());
    await collectGarbage();
    expect(earlier.deref() === undefined, 'the earlier socket is still reachable').toBe(true);
  });
});
