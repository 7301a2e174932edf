import type { IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import {
  AcpRemoteError,
  AcpRemoteErrorCode,
  AcpRemoteOptionError,
  CloseCode,
  connectAcp,
  runMirror,
  serveCommand,
} from '../src/index.js';
import { Cleanup, ECHO_AGENT, recordingLogger } from './support/helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('connectAcp', () => {
  it('sends custom headers and the bearer token on the upgrade request', async () => {
    const upstream = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    cleanup.add(() => new Promise((resolve) => upstream.close(resolve)));
    await new Promise((resolve) => upstream.once('listening', resolve));
    const received = new Promise<IncomingHttpHeaders>((resolve) => {
      upstream.once('connection', (socket, request) => {
        cleanup.add(() => socket.terminate());
        resolve(request.headers);
      });
    });
    const { port } = upstream.address() as { port: number };
    const remote = await connectAcp(`ws://127.0.0.1:${port}/acp/ws`, {
      headers: { 'X-Trace-Id': 'trace-1', Authorization: 'Bearer replaced' },
      bearerToken: 'real-token',
      logger: recordingLogger().logger,
    });
    cleanup.add(() => remote.close());
    const headers = await received;
    expect(headers['x-trace-id']).toBe('trace-1');
    expect(headers.authorization).toBe('Bearer real-token');
    // This bare server serves no metadata document.
    expect(remote.metadata).toBeUndefined();
  });

  it('reports the close code and reason the server sent', async () => {
    const server = await serveCommand([process.execPath, ECHO_AGENT], {
      port: 0,
      logger: recordingLogger().logger,
    });
    cleanup.add(() => server.close());
    const remote = await connectAcp(server.url, { logger: recordingLogger().logger });
    const writer = remote.stream.writable.getWriter();
    await writer.write({ jsonrpc: '2.0', id: 1, method: '_test/exit', params: { code: 7 } });
    expect(await remote.closed).toEqual({
      code: CloseCode.AgentExited,
      reason: 'agent process exited with code 7',
    });
  });

  it('rejects the mirror-only options with an INVALID_OPTION error naming the option', async () => {
    const error = await connectAcp('ws://127.0.0.1:1/acp/ws', {
      emitLatencyMeta: true,
    } as never).catch((caught: unknown) => caught);
    expect(AcpRemoteOptionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: AcpRemoteErrorCode.InvalidOption, option: 'emitLatencyMeta' });
    expect((error as Error).message).toContain('runMirror only');
  });

  it('rejects invalid URLs and options with INVALID_OPTION', async () => {
    for (const attempt of [
      () => connectAcp('ftp://127.0.0.1:1/acp/ws'),
      () => connectAcp('ws://127.0.0.1:1/acp/ws', { transport: 'grpc' as never }),
      () => connectAcp('not a url'),
      () => connectAcp('ws://127.0.0.1:1/acp/ws', { bearerToken: ' ' }),
      () => connectAcp('ws://127.0.0.1:1/acp/ws', { maxMessageBytes: 0 }),
      () => runMirror('ws://127.0.0.1:1/acp/ws', { hostOwnership: 'nobody' as never }),
    ]) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(AcpRemoteError.isInstance(error) && error.code).toBe(AcpRemoteErrorCode.InvalidOption);
    }
  });
});
