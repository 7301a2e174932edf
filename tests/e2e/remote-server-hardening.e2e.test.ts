// Hardening of the servers, against the built `acpremote`/`acpkit` over real sockets and processes: duplicated
// security headers (400), refused connections logged with reason and address and rate-limited, a flood of idle TCP
// connections under a low file-descriptor limit, tokens no HTTP header can carry, a bracketed IPv6 bind, log lines
// that stay one line whatever the SDK prints, the token kept out of the server's environment (--token-file), and CLI
// errors that name CLI flags.
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INITIALIZE_WITH_FORMS, webSocketPeer } from './support/json-rpc-peer.js';
import { cliPaths, fixturePath } from './support/paths.js';
import {
  reapAll,
  runCliToExit,
  type SpawnedProcess,
  spawnCli,
  spawnProcess,
  waitForBanner,
} from './support/processes.js';
import { startExpose, startServe } from './support/remote-servers.js';
import { closeAllWebSockets, httpGet, openAcceptedWebSocket, openWebSocket } from './support/websocket.js';

const TOKEN = 'hardening-token-0123456789';
const TOKEN_VARIABLE = 'ACPKIT_E2E_HARDENING_TOKEN';
const probeAgent = fixturePath('remote-probe-agent.js');
const probeTarget = `${probeAgent}:createProbeAgent`;
const environProbe = fixturePath('remote-environ-probe-agent.js');

const openSockets = new Set<Socket>();

afterEach(async () => {
  for (const socket of openSockets) socket.destroy();
  openSockets.clear();
  closeAllWebSockets();
  await reapAll();
});

/** Sends raw request bytes and resolves with the response head (status line and headers). */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    openSockets.add(socket);
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\r\n\r\n');
      if (end !== -1) {
        socket.destroy();
        resolve(received.slice(0, end));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(request);
  });
}

function upgradeRequest(extraHeaders: readonly string[], path = '/acp/ws'): string {
  return [
    `GET ${path} HTTP/1.1`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    ...extraHeaders,
    '',
    '',
  ].join('\r\n');
}

/** Resolves with the exit of a server that must refuse to start; fails if it prints the banner instead. */
async function expectRefusedAtStart(
  server: SpawnedProcess,
): Promise<{ code: number | null; stderr: string }> {
  const outcome = await Promise.race([
    server.closed.then((exit) => ({ exit })),
    server.waitForStderr(/Serving ACP WebSocket at/).then(
      () => ({ exit: undefined }),
      // stderr closed without a banner: the exit decides.
      () => new Promise<never>(() => {}),
    ),
  ]);
  if (outcome.exit === undefined) throw new Error(`the server started:\n${server.stderr()}`);
  return { code: outcome.exit.code, stderr: server.stderr() };
}

describe('duplicated Host, Authorization and Origin headers (read from the raw headers)', () => {
  it.each([
    [
      'two Authorization headers, good then bad',
      [`Authorization: Bearer ${TOKEN}`, 'Authorization: Bearer wrong'],
    ],
    [
      'two Authorization headers, both good',
      [`Authorization: Bearer ${TOKEN}`, `Authorization: Bearer ${TOKEN}`],
    ],
    ['two Host headers', ['Host: 127.0.0.1', 'Host: evil.example', `Authorization: Bearer ${TOKEN}`]],
    [
      'two Origin headers',
      ['Origin: https://ok.example', 'Origin: https://evil.example', `Authorization: Bearer ${TOKEN}`],
    ],
  ])('refuses the upgrade with 400 for %s', async (_case, headers) => {
    const server = await startExpose(
      [process.execPath, probeAgent],
      ['--token-env', TOKEN_VARIABLE, '--allowed-origin', 'https://ok.example'],
      { env: { [TOKEN_VARIABLE]: TOKEN } },
    );
    const withHost = headers.some((header) => header.startsWith('Host:'))
      ? headers
      : [`Host: 127.0.0.1:${server.port}`, ...headers];
    const head = await rawExchange(server.port, upgradeRequest(withHost));
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    // A single good header is still accepted.
    const good = await rawExchange(
      server.port,
      upgradeRequest([`Host: 127.0.0.1:${server.port}`, `Authorization: Bearer ${TOKEN}`]),
    );
    expect(good.split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols');
  });

  it('refuses a plain request with two Host headers with 400, /healthz included', async () => {
    const server = await startExpose([process.execPath, probeAgent]);
    const head = await rawExchange(
      server.port,
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\n\r\n',
    );
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
  });
});

describe('refused connections are logged at info with the reason and the remote address', () => {
  it('logs 401, 403, 404, 400 and 503, each with its reason', async () => {
    const server = await startExpose(
      [process.execPath, probeAgent],
      ['--token-env', TOKEN_VARIABLE, '--max-connections', '1'],
      { env: { [TOKEN_VARIABLE]: TOKEN } },
    );
    const authorized = { Authorization: `Bearer ${TOKEN}` };
    const statusOf = async (url: string, headers: Record<string, string>) => {
      const outcome = await openWebSocket(url, headers);
      return 'refused' in outcome ? outcome.refused.status : 101;
    };
    expect(await statusOf(server.url, {})).toBe(401);
    expect(await statusOf(server.url, { ...authorized, Origin: 'https://evil.example' })).toBe(403);
    expect(await statusOf(`${server.url.replace('/acp/ws', '/elsewhere')}`, authorized)).toBe(404);
    const head = await rawExchange(
      server.port,
      upgradeRequest([
        `Host: 127.0.0.1:${server.port}`,
        `Authorization: Bearer ${TOKEN}`,
        `Authorization: Bearer ${TOKEN}`,
      ]),
    );
    expect(head).toMatch(/^HTTP\/1\.1 400/);
    await openAcceptedWebSocket(server.url, authorized);
    expect(await statusOf(server.url, authorized)).toBe(503);
    for (const [reason, status] of [
      ['auth', 401],
      ['origin', 403],
      ['path', 404],
      ['malformed', 400],
      ['limit', 503],
    ] as const) {
      await server.process.waitForStderr(
        new RegExp(
          `^acpremote info: connection refused reason="${reason}" status=${status} remoteAddress="127\\.0\\.0\\.1"`,
          'm',
        ),
      );
    }
    expect(server.process.stderr()).not.toContain(TOKEN);
  });

  it('rate-limits the lines so a flood cannot fill the disk, then says how many it suppressed', async () => {
    const server = await startExpose([process.execPath, probeAgent], ['--token-env', TOKEN_VARIABLE], {
      env: { [TOKEN_VARIABLE]: TOKEN },
    });
    for (let attempt = 0; attempt < 60; attempt += 1) {
      const outcome = await openWebSocket(server.url, { Authorization: 'Bearer wrong' });
      expect('refused' in outcome && outcome.refused.status).toBe(401);
    }
    const summary = await server.process.waitForStderr(
      /^acpremote info: connection refused suppressed=(\d+) windowMs=\d+ reason="auth".*$/m,
    );
    const logged = server.process
      .stderr()
      .split('\n')
      .filter((line) => /^acpremote info: connection refused reason="auth"/.test(line));
    expect(logged.length).toBeLessThanOrEqual(10);
    expect(logged.length + Number(summary[1])).toBe(60);
  });
});

describe('idle TCP connections are capped (plain HTTP, not upgraded)', () => {
  it('keeps /healthz reachable under a flood of idle sockets and a low file-descriptor limit', async () => {
    // 128 descriptors: about 20 for Node itself, so 200 idle sockets would exhaust them without the cap (64).
    const server = spawnProcess('bash', [
      '-c',
      'ulimit -n 128 && exec "$0" "$@"',
      process.execPath,
      cliPaths.acpremote,
      'expose',
      '--port',
      '0',
      '--max-connections',
      '5',
      '--',
      process.execPath,
      probeAgent,
    ]);
    const { port, origin } = await waitForBanner(server);
    let closedByServer = 0;
    const flood: Promise<void>[] = [];
    for (let index = 0; index < 200; index += 1) {
      const socket = connect(port, '127.0.0.1');
      openSockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        closedByServer += 1;
      });
      flood.push(new Promise((resolve) => socket.once('connect', () => resolve())));
    }
    await Promise.all(flood);
    const health = await httpGet(`${origin}/healthz`, { Host: `127.0.0.1:${port}` });
    expect(health.status).toBe(200);
    expect(health.body).toBe('ok\n');
    // The server made room by closing the oldest idle sockets: at most 64 of the 200 can still be open.
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (closedByServer >= 200 - 64) {
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    expect(closedByServer).toBeGreaterThanOrEqual(136);
  });
});

describe('tokens no HTTP header can carry are refused at start', () => {
  it.each([
    ['--bearer-token', ['--bearer-token', 'tök€n'], {}, 'The bearer token from --bearer-token'],
    [
      '--token-env',
      ['--token-env', TOKEN_VARIABLE],
      { [TOKEN_VARIABLE]: 'abc\u20acdef' },
      `The bearer token from --token-env ${TOKEN_VARIABLE}`,
    ],
  ])('with %s: exit 2 and a clear error that does not echo the token', async (_flag, flags, env, source) => {
    const server = spawnCli(
      'acpremote',
      ['expose', '--port', '0', ...flags, '--', process.execPath, probeAgent],
      {
        env,
      },
    );
    const { code, stderr } = await expectRefusedAtStart(server);
    expect(code, stderr).toBe(2);
    expect(stderr).toMatch(/^Error: /);
    expect(stderr.split('\n')[0]).toMatch(
      new RegExp(
        `^Error: ${source} must be a non-blank string of visible ASCII characters \\(no spaces or control characters: what an HTTP header can carry\\), got a non-ASCII character at position \\d of \\d+$`,
      ),
    );
    expect(stderr).not.toMatch(/tök|abc.def/);
  });
});

describe('a bracketed IPv6 bind host', () => {
  it('serves on --host [::1] and prints a bracketed URL', async () => {
    const server = spawnCli('acpremote', [
      'expose',
      '--host',
      '[::1]',
      '--port',
      '0',
      '--',
      process.execPath,
      probeAgent,
    ]);
    const match = await server.waitForStderr(/Serving ACP WebSocket at (ws:\/\/\[::1\]:(\d+)\/acp\/ws)\n/);
    const url = match[1] as string;
    const socket = await openAcceptedWebSocket(url);
    const peer = webSocketPeer(socket);
    expect((await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS)).result).toBeDefined();
    expect((await httpGet(`http://[::1]:${match[2]}/healthz`)).status).toBe(200);
  });
});

describe('every log line is one line, whoever wrote it', () => {
  it('escapes what the SDK prints in `serve` when a client sends an id with newlines', async () => {
    const server = await startServe(probeTarget);
    const socket = await openAcceptedWebSocket(server.url);
    const peer = webSocketPeer(socket);
    expect((await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS)).result).toBeDefined();
    // A response to a request the agent never sent: the SDK logs its id with console.error.
    peer.send({
      jsonrpc: '2.0',
      id: '7\nacpremote info: forged line\r\nacpremote error: another',
      result: {},
    });
    await server.process.waitForStderr(/unknown request/);
    const lines = server.process.stderr().split('\n');
    expect(lines.filter((line) => line.startsWith('acpremote info: forged'))).toEqual([]);
    expect(lines.filter((line) => line.startsWith('acpremote error: another'))).toEqual([]);
    expect(server.process.stderr()).toContain(
      '7\\nacpremote info: forged line\\r\\nacpremote error: another',
    );
  });
});

describe('--token-file keeps the token out of the server environment', () => {
  const tokenFile = join(tmpdir(), `acpkit-e2e-token-${process.pid}`);

  async function findInParent(url: string): Promise<Record<string, unknown>> {
    const socket = await openAcceptedWebSocket(url, { Authorization: `Bearer ${TOKEN}` });
    const peer = webSocketPeer(socket);
    await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS);
    return (await peer.request(1, '_vendor/find-in-parent', { needle: TOKEN })).result as Record<
      string,
      unknown
    >;
  }

  it('with --token-env the agent can read the token from /proc/<server>/environ (the documented limit)', async () => {
    const server = await startExpose([process.execPath, environProbe], ['--token-env', TOKEN_VARIABLE], {
      env: { [TOKEN_VARIABLE]: TOKEN },
    });
    const found = await findInParent(server.url);
    expect(found).toMatchObject({
      parentPid: server.process.pid,
      environReadable: true,
      inOwnEnvironment: false,
    });
    expect(found.inEnviron).toBe(true);
  });

  it('with --token-file the server environment and command line hold no token', async () => {
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const server = await startExpose([process.execPath, environProbe], ['--token-file', tokenFile]);
    await server.process.waitForStderr(/Connect an editor with: .*\n/);
    expect(server.process.stderr()).toContain(`acpremote mirror ${server.url} --token-file ${tokenFile}`);
    expect(await findInParent(server.url)).toEqual({
      parentPid: server.process.pid,
      environReadable: true,
      inEnviron: false,
      inCmdline: false,
      inOwnEnvironment: false,
    });
    const outcome = await openWebSocket(server.url, { Authorization: 'Bearer wrong' });
    expect('refused' in outcome && outcome.refused.status).toBe(401);
  });

  it.each(['-', '/dev/stdin'])(
    'reads the token from stdin (--token-file %s), so it is in no file either',
    async (file) => {
      const server = spawnCli('acpremote', [
        'expose',
        '--port',
        '0',
        '--token-file',
        file,
        '--',
        process.execPath,
        environProbe,
      ]);
      server.child.stdin?.end(`${TOKEN}\n`);
      const { url } = await waitForBanner(server);
      expect(await findInParent(url)).toMatchObject({ inEnviron: false, inCmdline: false });
    },
  );

  it('refuses an unreadable or empty token file (exit 2)', async () => {
    const missing = await runCliToExit('acpremote', [
      'expose',
      '--token-file',
      '/nonexistent/token',
      '--',
      'node',
      probeAgent,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^Error: Cannot read --token-file \/nonexistent\/token: ENOENT/m);
    writeFileSync(tokenFile, '  \n', { mode: 0o600 });
    const empty = await runCliToExit('acpremote', [
      'expose',
      '--token-file',
      tokenFile,
      '--',
      'node',
      probeAgent,
    ]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain(`Error: The token file ${tokenFile} (from --token-file) is empty.`);
  });
});

describe('CLI errors name the CLI flags', () => {
  it('a busy port suggests another --port or --port 0', async () => {
    const first = await startServe(probeTarget);
    const run = await runCliToExit('acpremote', ['serve', probeTarget, '--port', String(first.port)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `Error: cannot listen on 127.0.0.1:${first.port}: the port is already in use. Choose another --port, or --port 0 to take any free port.\n`,
    );
  });

  const publicBind = ['--host', '0.0.0.0', '--port', '0'];
  it.each([
    ['acpremote serve', 'acpremote', ['serve', probeTarget, ...publicBind]],
    ['acpremote expose', 'acpremote', ['expose', ...publicBind, '--', 'node', probeAgent]],
    ['acpkit serve', 'acpkit', ['serve', probeTarget, ...publicBind]],
  ] as const)('%s refuses a public bind without a token naming the token flags', async (_name, cli, args) => {
    const run = await runCliToExit(cli, args);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'Error: refusing to serve on non-loopback host "0.0.0.0" without a bearer token. Pass --token-env VAR ' +
        '(or --token-file FILE, or --bearer-token TOKEN), or --dangerously-allow-unauthenticated if something ' +
        'else guards access.\n',
    );
  });
});
