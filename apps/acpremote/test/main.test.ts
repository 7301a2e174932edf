// `main()` in-process with real servers, real sockets and real SDK apps: argument wiring of every command, the
// banner, exit codes, and graceful stop.
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createTestIo, type TestIo } from '@acpkit/cli-support';
import { connectAcp, type RemoteConnection, type RemoteServer, serveAcp, silentLogger } from '@acpkit/remote';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain JavaScript fixture without type declarations.
import { createEchoAgent } from '../../cli-support/test/support/echo-agent.js';
import { promptOnce } from '../../cli-support/test/support/prompt-client.js';
import { main } from '../src/index.js';

const echoAgent = fileURLToPath(new URL('../../cli-support/test/support/echo-agent.js', import.meta.url));
const BANNER = /Serving ACP WebSocket at (ws:\/\/\S+)\n/;
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connect(url: string, bearerToken?: string): Promise<RemoteConnection> {
  const connection = await connectAcp(url, bearerToken ? { bearerToken } : {});
  cleanups.push(() => connection.close());
  return connection;
}

function start(argv: string[], io: TestIo): Promise<number> {
  const exitCode = main(argv, io);
  // If a test fails before stopping the command, stop it so its server and children are reaped.
  cleanups.push(async () => {
    io.stop('SIGTERM');
    await exitCode;
  });
  return exitCode;
}

describe('acpremote serve', () => {
  it('serves the TARGET factory, prints the banner with the real port, drains on SIGTERM and exits 0', async () => {
    const io = createTestIo({ env: { ACPREMOTE_TEST_TOKEN: 'token-1' } });
    const exitCode = start(
      ['serve', `${echoAgent}:createEchoAgent`, '--port', '0', '--token-env', 'ACPREMOTE_TEST_TOKEN'],
      io,
    );
    const [, url] = await io.waitForStderr(BANNER);
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/acp\/ws$/);
    expect(url).not.toContain(':0/');
    await io.waitForStderr(/Connect an editor with: .*\n/);
    expect(io.stderrText()).toContain(`acpremote mirror ${url} --token-env ACPREMOTE_TEST_TOKEN\n`);
    expect(io.stderrText()).not.toContain('token-1');

    const connection = await connect(url as string, 'token-1');
    expect(await promptOnce(connection.stream, 'hi')).toBe('none: hi');
    io.stop('SIGTERM');
    await io.waitForStderr(/Received SIGTERM; draining: .* up to 30 s for 1 open one/);
    // New connections are refused while the open session may go on; once it ends, the server stops with 0.
    await expect(connectAcp(url as string, { bearerToken: 'token-1' })).rejects.toThrow(/HTTP 503/);
    await connection.close();
    expect(await exitCode).toBe(0);
    expect(io.stderrText()).toContain('Drained: every connection ended; stopped.\n');
    expect(io.stdoutText()).toBe('');
  });

  it('honours --mount-path in the served URL', async () => {
    const io = createTestIo();
    const exitCode = start(
      ['serve', `${echoAgent}:createEchoAgent`, '--port', '0', '--mount-path', 'agents/'],
      io,
    );
    const [, url] = await io.waitForStderr(BANNER);
    expect(url).toMatch(/\/agents\/ws$/);
    io.stop('SIGINT');
    expect(await exitCode).toBe(130);
  });
});

describe('acpremote expose', () => {
  it('spawns the command per connection with --env and --cwd, and exits 130 on SIGINT', async () => {
    const io = createTestIo();
    const directory = realpathSync(tmpdir());
    const exitCode = start(
      [
        'expose',
        '--port',
        '0',
        '--env',
        'GREETING=hello',
        '--cwd',
        directory,
        '--',
        process.execPath,
        echoAgent,
      ],
      io,
    );
    const [, url] = await io.waitForStderr(BANNER);
    const connection = await connect(url as string);
    expect(connection.metadata?.remote_cwd).toBe(directory);
    expect(await promptOnce(connection.stream, 'there')).toBe('hello: there');
    io.stop('SIGINT');
    expect(await exitCode).toBe(130);
  });

  it('keeps the command’s own flags after the first operand', async () => {
    const io = createTestIo();
    const exitCode = start(['expose', '--port', '0', process.execPath, '--no-warnings', echoAgent], io);
    const [, url] = await io.waitForStderr(BANNER);
    const connection = await connect(url as string);
    expect(await promptOnce(connection.stream, 'flags')).toBe('none: flags');
    io.stop('SIGINT');
    expect(await exitCode).toBe(130);
  });

  it('exits 2 without a command', async () => {
    const io = createTestIo();
    expect(await main(['expose', '--port', '0'], io)).toBe(2);
    expect(io.stderrText()).toMatch(/^Error: missing required argument 'command'/);
  });
});

describe('acpremote mirror', () => {
  async function startServer(): Promise<RemoteServer> {
    const server = await serveAcp(() => createEchoAgent(), { port: 0, logger: silentLogger });
    cleanups.push(() => server.close());
    return server;
  }

  function editorStream(io: TestIo) {
    return ndJsonStream(
      Writable.toWeb(io.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(io.stdout) as ReadableStream<Uint8Array>,
    );
  }

  it('relays an SDK client over stdio and exits 0 on stdin EOF', async () => {
    const server = await startServer();
    const io = createTestIo({ collectStdout: false });
    const exitCode = start(['mirror', server.url, '--unstable-protocol'], io);
    expect(await promptOnce(editorStream(io), 'mirrored')).toBe('none: mirrored');
    io.stdin.end();
    expect(await exitCode).toBe(0);
  });

  it('exits 143 on SIGTERM while connected', async () => {
    const server = await startServer();
    const io = createTestIo({ collectStdout: false });
    const exitCode = start(['mirror', server.url], io);
    expect(await promptOnce(editorStream(io), 'x')).toBe('none: x');
    io.stop('SIGTERM');
    expect(await exitCode).toBe(143);
  });

  it('exits 2 for an unset --token-env variable before connecting', async () => {
    const io = createTestIo();
    expect(await main(['mirror', 'ws://127.0.0.1:1/acp/ws', '--token-env', 'NOT_SET'], io)).toBe(2);
    expect(io.stderrText()).toBe(
      'Error: Environment variable NOT_SET (from --token-env) is not set or is empty.\n',
    );
  });
});
