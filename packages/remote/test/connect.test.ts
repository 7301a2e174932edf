import type { IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketServer } from 'ws';
import {
  AcpRemoteError,
  AcpRemoteErrorCode,
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

  it('still accepts the mirror-only options it used to ignore, with one DeprecationWarning (ACPKIT_DEP006)', async () => {
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const server = await serveCommand(['node', ECHO_AGENT], { port: 0, logger: recordingLogger().logger });
    cleanup.add(() => server.close());
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const options = { useUnstableProtocol: true, logger: recordingLogger().logger };
      const remote = await connectAcp(server.url, options);
      await remote.close();
    }
    expect(emitWarning.mock.calls).toEqual([
      [
        'connectAcp ignores useUnstableProtocol: they apply to runMirror only. Remove them from the connectAcp ' +
          'call; from @acpkit/remote 0.3.0 they are an INVALID_OPTION error.',
        { type: 'DeprecationWarning', code: 'ACPKIT_DEP006' },
      ],
    ]);
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
