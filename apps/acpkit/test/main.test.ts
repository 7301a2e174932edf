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
const formAgent = fileURLToPath(new URL('./fixtures/form-agent.mjs', import.meta.url));
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

  it('offers resume to the server by default, and not with --no-resume', async () => {
    const opened: Array<Record<string, unknown> | undefined> = [];
    const server = await serveAcp(() => createEchoAgent(), {
      port: 0,
      logger: {
        ...silentLogger,
        info: (message, fields) => {
          if (message === 'connection opened') opened.push(fields);
        },
      },
    });
    cleanups.push(() => server.close());
    for (const flags of [[], ['--no-resume']]) {
      const io = createTestIo({ collectStdout: false });
      const exitCode = start(['run', '--addr', server.url, ...flags], io);
      expect(await promptOnce(editorStream(io), 'remote')).toBe('none: remote');
      io.stdin.end();
      expect(await exitCode).toBe(0);
    }
    expect(opened.map((fields) => fields?.resumable === true)).toEqual([true, false]);
  });

  it('mirrors with the token from --bearer-token too, like acpremote mirror', async () => {
    const server = await serveAcp(() => createEchoAgent(), {
      port: 0,
      bearerToken: 'abc',
      logger: silentLogger,
    });
    cleanups.push(() => server.close());
    const io = createTestIo({ collectStdout: false });
    const exitCode = start(['run', '--addr', server.url, '--bearer-token', 'abc'], io);
    expect(await promptOnce(editorStream(io), 'remote')).toBe('none: remote');
    io.stdin.end();
    expect(await exitCode).toBe(0);
  });

  it('takes the same token flags as acpremote mirror, one at a time', async () => {
    const io = createTestIo({ env: { REMOTE_TOKEN: 'abc' } });
    const argv = [
      'run',
      '--addr',
      'ws://127.0.0.1:1/acp/ws',
      '--bearer-token',
      'abc',
      '--token-env',
      'REMOTE_TOKEN',
    ];
    expect(await main(argv, io)).toBe(2);
    expect(io.stderrText()).toMatch(
      /option '--bearer-token <token>' cannot be used with option '--token-env <var>'/,
    );
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
  it.each([
    [['--no-resume']],
    [['--resume-buffer-bytes', '4096']],
    [['--transport', 'http']],
    [['--stall-timeout', '5']],
    [['--max-pending-requests', '8']],
    [['--bearer-token', 'abc']],
  ])('exits 2 for the mirror flag %j without --addr', async (flags) => {
    const io = createTestIo();
    expect(await main(['run', echoAgent, ...flags], io)).toBe(2);
    expect(io.stderrText()).toBe(`Error: ${flags[0]} applies only with --addr.\n`);
  });

  it.each([[['run']], [['run', echoAgent, '--addr', 'ws://127.0.0.1:1/acp/ws']]])(
    'exits 2 with "Provide exactly one of TARGET or --addr." for %j',
    async (argv) => {
      const io = createTestIo();
      expect(await main(argv, io)).toBe(2);
      expect(io.stderrText()).toBe('Error: Provide exactly one of TARGET or --addr.\n');
    },
  );
});

describe('acpkit run --addr with a URL that is neither WebSocket nor HTTP', () => {
  it.each([
    ['ftp://example.com/acp/ws?token=secret', 'not an ftp:// one'],
    ['127.0.0.1:1/acp/ws', 'it has no scheme'],
  ])('exits 2 naming --addr for %s, without repeating the URL', async (addr, problem) => {
    const io = createTestIo();
    expect(await main(['run', '--addr', addr], io)).toBe(2);
    expect(io.stderrText()).toBe(
      `Error: --addr must be a ws://, wss://, http:// or https:// URL, ${problem} (for example ws://127.0.0.1:8080/acp/ws, or http://127.0.0.1:8080/acp for ACP's Streamable HTTP).\n`,
    );
  });
});

describe('acpkit serve', () => {
  it('serves TARGET over WebSocket; on SIGTERM a session still open after --drain-timeout is closed (1001), exit 143', async () => {
    const io = createTestIo();
    const exitCode = start(
      ['serve', `${echoAgent}:createEchoAgent`, '--port', '0', '--drain-timeout', '0.2'],
      io,
    );
    const [, url] = await io.waitForStderr(/Serving ACP WebSocket at (ws:\/\/\S+)\n/);
    // The server's own close is what this test reads: a client carrying its session elsewhere would not report it.
    const connection = await connectAcp(url as string, { carrySessions: false });
    cleanups.push(() => connection.close());
    expect(await promptOnce(connection.stream, 'served')).toBe('none: served');
    io.stop('SIGTERM');
    expect(await exitCode).toBe(143);
    expect(await connection.closed).toEqual({
      code: 1001,
      reason: 'server shutting down: drain grace period ended',
    });
    expect(io.stderrText()).toContain('Drain timeout reached; closed 1 connection(s) with 1001');
  });

  it('suggests its own mirror command, acpkit run --addr, and logs as acpkit', async () => {
    const io = createTestIo();
    const exitCode = start(['serve', `${echoAgent}:createEchoAgent`, '--port', '0'], io);
    const [, url] = await io.waitForStderr(/Serving ACP WebSocket at (ws:\/\/\S+)\n/);
    expect(io.stderrText()).toContain(`Connect an editor with: acpkit run --addr ${url}\n`);
    const missing = await fetch(new URL('/not-here', (url as string).replace(/^ws/, 'http')));
    expect(missing.status).toBe(404);
    await io.waitForStderr(/\n(\S+) info: request refused/);
    expect(io.stderrText()).not.toContain('acpremote');
    expect(io.stderrText()).toMatch(/\nacpkit info: request refused/);
    // No connection is open: the SIGTERM drain ends at once, and the command exits 0.
    io.stop('SIGTERM');
    expect(await exitCode).toBe(0);
    expect(io.stderrText()).toMatch(/\nacpkit info: drain started/);
  });
});

describe('acpkit client in-process', () => {
  // The agent inherits io.env: give it the real environment (createTestIo's default is empty).
  const clientIo = () => createTestIo({ env: process.env });

  /** `acpkit client --answer ANSWER --prompt Deploy -- node form-agent.mjs`, with stdin at its end. */
  async function answered(answer: string) {
    const io = clientIo();
    io.stdin.end();
    const args = ['--answer', answer, '--prompt', 'Deploy', '--', process.execPath, formAgent];
    return { io, exitCode: await main(['client', ...args], io) };
  }

  it('runs through the given streams and answers from --answer, without touching the process', async () => {
    const { io, exitCode } = await answered('Target=Preview');
    expect(io.stderrText()).toBe('');
    expect(io.stdoutText()).toContain('  Target: Preview [--answer]\n  Answered from --answer: accept\n');
    expect(io.stdoutText()).toContain('Selected: preview');
    expect(exitCode).toBe(0);
  });

  it('exits 2 naming the form and field when a scripted answer fits no option', async () => {
    const { io, exitCode } = await answered('Target=Staging');
    expect(io.stderrText()).toBe(
      'Error: The answer for the field "Target" of the form "Choose a deployment target" does not fit: ' +
        '"Staging" is not one of its options ("Preview", "Production")\n',
    );
    expect(exitCode).toBe(2);
  });

  it('cancels the turn on the first SIGINT from io and exits 130 on the second', async () => {
    const io = clientIo();
    const exitCode = main(['client', '--', process.execPath, formAgent, 'slow'], io);
    io.stdin.write('the release\n');
    await waitForStdout(io, 'Working…');
    io.stop('SIGINT');
    await waitForStdout(io, '(turn ended: cancelled)');
    expect(io.stdoutText()).toContain(
      'Cancelling the turn… (press Ctrl+C again to quit)\nStopped on request.',
    );
    io.stop('SIGINT');
    expect(await exitCode).toBe(130);
  });

  it('ends on SIGTERM from io with 143, and on a piped /exit with 0 without sending it', async () => {
    const terminated = clientIo();
    const terminatedCode = main(['client', '--', process.execPath, formAgent, 'slow'], terminated);
    terminated.stdin.write('go\n');
    await waitForStdout(terminated, 'Working…');
    terminated.stop('SIGTERM');
    expect(await terminatedCode).toBe(143);

    const exited = clientIo();
    exited.stdin.end('/exit\nnever sent\n');
    expect(await main(['client', '--', process.execPath, formAgent], exited)).toBe(0);
    expect(exited.stdoutText()).not.toContain('> /exit');
    expect(exited.stdoutText()).not.toContain('never sent');
  });
});

/** Resolves once `text` has been written to the io's stdout. */
function waitForStdout(io: TestIo, text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!io.stdoutText().includes(text)) return;
      io.stdout.off('data', onData);
      resolve();
    };
    const onData = () => setImmediate(check);
    io.stdout.on('data', onData);
    check();
  });
}

describe('acpkit --help', () => {
  it('lists run, serve and the client command', async () => {
    const io = createTestIo();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.stdoutText()).toMatch(/run \[options\] \[target\]/);
    expect(io.stdoutText()).toMatch(/serve \[options\] <target>/);
    expect(io.stdoutText()).toMatch(/\bclient\b/);
  });
});
