// `main()` in-process with real SDK apps over real streams and sockets: `run TARGET` (stdio), `run --addr`
// (mirror), `serve TARGET`, and the exactly-one-of rule.
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createTestIo, type TestIo } from '@acpkit/cli-support';
import { connectAcp, serveAcp, silentLogger } from '@acpkit/remote';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain JavaScript fixture without type declarations.
import { createEchoAgent } from '../../cli-support/test/support/echo-agent.js';
import { promptOnce } from '../../cli-support/test/support/prompt-client.js';
import { main } from '../src/index.js';

const echoAgent = fileURLToPath(new URL('../../cli-support/test/support/echo-agent.js', import.meta.url));
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function start(argv: string[], io: TestIo): Promise<number> {
  const exitCode = main(argv, io);
  cleanups.push(async () => {
    io.stdin.end();
    io.stop('SIGTERM');
    await exitCode;
  });
  return exitCode;
}

function editorStream(io: TestIo) {
  return ndJsonStream(
    Writable.toWeb(io.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(io.stdout) as ReadableStream<Uint8Array>,
  );
}

describe('acpkit run TARGET', () => {
  it('serves the agent over stdio and exits 0 on stdin EOF', async () => {
    const io = createTestIo({ collectStdout: false });
    const exitCode = start(['run', `${echoAgent}:createEchoAgent`], io);
    expect(await promptOnce(editorStream(io), 'local')).toBe('none: local');
    io.stdin.end();
    expect(await exitCode).toBe(0);
  });

  it('exits 130 on SIGINT', async () => {
    const io = createTestIo({ collectStdout: false });
    const exitCode = start(['run', `${echoAgent}:createEchoAgent`], io);
    expect(await promptOnce(editorStream(io), 'x')).toBe('none: x');
    io.stop('SIGINT');
    expect(await exitCode).toBe(130);
  });
});

describe('acpkit run --addr', () => {
  it('mirrors the remote endpoint with the token from --token-env', async () => {
    const server = await serveAcp(() => createEchoAgent(), {
      port: 0,
      bearerToken: 'abc',
      logger: silentLogger,
    });
    cleanups.push(() => server.close());
    const io = createTestIo({ collectStdout: false, env: { REMOTE_TOKEN: 'abc' } });
    const exitCode = start(
      ['run', '--addr', server.url, '--token-env', 'REMOTE_TOKEN', '--unstable-protocol'],
      io,
    );
    expect(await promptOnce(editorStream(io), 'remote')).toBe('none: remote');
    io.stdin.end();
    expect(await exitCode).toBe(0);
  });

  it('exits 1 with the reason when the remote refuses the token', async () => {
    const server = await serveAcp(() => createEchoAgent(), {
      port: 0,
      bearerToken: 'abc',
      logger: silentLogger,
    });
    cleanups.push(() => server.close());
    const io = createTestIo({ env: { REMOTE_TOKEN: 'wrong' } });
    expect(await main(['run', '--addr', server.url, '--token-env', 'REMOTE_TOKEN'], io)).toBe(1);
    expect(io.stderrText()).toMatch(/^Error: .*401/m);
    expect(io.stdoutText()).toBe('');
  });
});

describe('acpkit run argument rules', () => {
  it.each([[['run']], [['run', echoAgent, '--addr', 'ws://127.0.0.1:1/acp/ws']]])(
    'exits 2 with "Provide exactly one of TARGET or --addr." for %j',
    async (argv) => {
      const io = createTestIo();
      expect(await main(argv, io)).toBe(2);
      expect(io.stderrText()).toBe('Error: Provide exactly one of TARGET or --addr.\n');
    },
  );
});

describe('acpkit serve', () => {
  it('serves TARGET over WebSocket and exits 143 on SIGTERM', async () => {
    const io = createTestIo();
    const exitCode = start(['serve', `${echoAgent}:createEchoAgent`, '--port', '0'], io);
    const [, url] = await io.waitForStderr(/Serving ACP WebSocket at (ws:\/\/\S+)\n/);
    const connection = await connectAcp(url as string);
    cleanups.push(() => connection.close());
    expect(await promptOnce(connection.stream, 'served')).toBe('none: served');
    io.stop('SIGTERM');
    expect(await exitCode).toBe(143);
  });
});

describe('acpkit --help', () => {
  it('lists run, serve and the client command', async () => {
    const io = createTestIo();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.stdoutText()).toMatch(/run \[options\] \[target\]/);
    expect(io.stdoutText()).toMatch(/serve \[options\] <target>/);
    expect(io.stdoutText()).toMatch(/\bclient\b/);
  });
});
