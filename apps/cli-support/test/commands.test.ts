// The shared command implementations with real SDK apps over real streams.
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { connectAcp } from '@acpkit/remote';
import { agent, client, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { exposeCommand, serveAgentOverStdio, serveTarget } from '../src/commands.js';
import { CliError, CliErrorCode } from '../src/errors.js';
import { SERVE_DEFAULTS } from '../src/serve-flags.js';
import { createTestIo, type TestIo } from '../src/test-io.js';
import { promptOnce } from './support/prompt-client.js';

const echoAgent = fileURLToPath(new URL('./support/echo-agent.js', import.meta.url));

function initializeOnlyAgent() {
  return agent({ name: 'stdio-test' }).onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {},
  }));
}

async function initializeOver(io: TestIo): Promise<number> {
  const stream = ndJsonStream(
    Writable.toWeb(io.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(io.stdout) as ReadableStream<Uint8Array>,
  );
  const connection = client({ name: 'stdio-test-client' }).connect(stream);
  const response = await connection.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  return response.protocolVersion;
}

describe('serveAgentOverStdio', () => {
  it('serves the app over the given streams and returns 0 when the input ends', async () => {
    const io = createTestIo({ collectStdout: false });
    const exitCode = serveAgentOverStdio(initializeOnlyAgent(), io);
    expect(await initializeOver(io)).toBe(PROTOCOL_VERSION);
    io.stdin.end();
    expect(await exitCode).toBe(0);
  });

  it('returns 130 or 143 when stopped by a signal', async () => {
    for (const [signal, expected] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      const io = createTestIo({ collectStdout: false });
      const exitCode = serveAgentOverStdio(initializeOnlyAgent(), io);
      expect(await initializeOver(io)).toBe(PROTOCOL_VERSION);
      io.stop(signal);
      expect(await exitCode).toBe(expected);
    }
  });
});

describe('exposeCommand', () => {
  it('rejects an empty command with a USAGE CliError before binding', async () => {
    const io = createTestIo();
    for (const command of [[], ['  ']]) {
      const error = await exposeCommand(command, { host: '127.0.0.1', port: 0, mountPath: '/acp' }, io).catch(
        (caught: unknown) => caught,
      );
      expect(CliError.isInstance(error)).toBe(true);
      expect((error as CliError).code).toBe(CliErrorCode.Usage);
    }
    expect(io.stderrText()).toBe('');
  });
});

describe('serveTarget stop signals', () => {
  it('SIGINT closes an open session at once (1001) without draining, and returns 130', async () => {
    const io = createTestIo();
    const exitCode = serveTarget(`${echoAgent}:createEchoAgent`, { ...SERVE_DEFAULTS, port: 0 }, io);
    const [, url] = await io.waitForStderr(/Serving ACP WebSocket at (ws:\/\/\S+)\n/);
    // The server's own close is what this test reads: a client carrying its session elsewhere would not report it.
    const connection = await connectAcp(url as string, { carrySessions: false });
    expect(await promptOnce(connection.stream, 'hello')).toBe('none: hello');
    io.stop('SIGINT');
    expect(await exitCode).toBe(130);
    expect(await connection.closed).toEqual({ code: 1001, reason: 'server shutting down' });
    expect(io.stderrText()).toContain('Received SIGINT; closing connections and stopping child processes.');
    expect(io.stderrText()).not.toContain('draining');
  });

  it('SIGTERM with no open connection drains at once and returns 0', async () => {
    const io = createTestIo();
    const exitCode = serveTarget(`${echoAgent}:createEchoAgent`, { ...SERVE_DEFAULTS, port: 0 }, io);
    await io.waitForStderr(/Serving ACP WebSocket at/);
    io.stop('SIGTERM');
    expect(await exitCode).toBe(0);
    expect(io.stderrText()).toContain('Received SIGTERM; draining');
    expect(io.stderrText()).toContain('Drained: every connection ended; stopped.');
  });
});
