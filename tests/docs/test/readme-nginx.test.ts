// The root README's "Behind nginx" configuration, run for real: a real nginx with the README's server block (TLS
// swapped for plain HTTP on a free loopback port, the upstream pointed at the real port) in front of the built
// `acpremote expose` running the deploy-target example with the README's flags. A client that reaches it through
// nginx with the public Host completes an elicitation round trip; without `--allowed-host` that Host would be refused.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { AcpRemoteError, AcpRemoteErrorCode, connectAcp, type RemoteConnection } from '@acpkit/remote';
import { client, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { extractFencedCode } from '../src/code-blocks.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const acpremoteCli = join(repositoryRoot, 'apps/acpremote/dist/cli.js');
const exampleAgent = join(repositoryRoot, 'examples/deploy-target');
const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
const PUBLIC_HOST = 'acp.example.com';
const TOKEN_VARIABLE = 'DOCS_TEST_ACPREMOTE_TOKEN';
const token = 'docs-test-token-0123456789abcdef';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const escalation = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(escalation);
}

async function reserveFreePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no TCP address');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

/** Resolves once nginx accepts TCP connections (it prints nothing when ready); fails if it exits first. */
async function waitUntilListening(port: number, child: ChildProcess, errorLog: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}:\n${errorLog()}`);
    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (connected) return;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port}:\n${errorLog()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The README's `acpremote expose` behind-nginx line, on a free port, with the token in the environment. */
async function startAcpremote(extraFlags: readonly string[]): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      acpremoteCli,
      'expose',
      '--port',
      '0',
      '--token-env',
      TOKEN_VARIABLE,
      ...extraFlags,
      '--',
      process.execPath,
      exampleAgent,
    ],
    { env: { ...process.env, [TOKEN_VARIABLE]: token }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  cleanups.push(() => stopProcess(child));
  const lines = createInterface({ input: child.stderr! });
  for await (const line of lines) {
    const match = /Serving ACP WebSocket at ws:\/\/127\.0\.0\.1:(\d+)\//.exec(line);
    if (match) {
      // Keep draining stderr so the server never blocks on a full pipe.
      child.stderr!.resume();
      return Number(match[1]);
    }
  }
  throw new Error(`acpremote exited before its banner (code ${child.exitCode})`);
}

/**
 * nginx in the foreground with the README's `map` and `server` blocks, plain HTTP on a free port. With
 * `useUpstreamBlock`, the README's second block (the `upstream` for several instances) is added, its `server` lines
 * pointed at the real port, and the `location` proxies to it.
 */
async function startNginx(upstreamPort: number, { useUpstreamBlock = false } = {}): Promise<number> {
  const [documented, upstream] = extractFencedCode(readme, 'nginx');
  if (documented === undefined) throw new Error('README.md has no ```nginx block');
  const port = await reserveFreePort();
  const upstreamBlock = useUpstreamBlock ? instancesUpstream(upstream, upstreamPort) : '';
  const serverBlock = documented
    .replace('listen 443 ssl;', `listen 127.0.0.1:${port};`)
    .replace(/^\s*ssl_certificate(_key)?\s.*$/gm, '')
    .replace(
      'proxy_pass http://127.0.0.1:8080;',
      useUpstreamBlock
        ? 'proxy_pass http://acpremote;\n    proxy_next_upstream error timeout http_503;'
        : `proxy_pass http://127.0.0.1:${upstreamPort};`,
    );
  const directory = mkdtempSync(join(tmpdir(), 'acpkit-docs-nginx-'));
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  for (const name of ['client-body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(directory, name));
  const errorLogPath = join(directory, 'error.log');
  const configuration = `daemon off;
worker_processes 1;
pid ${join(directory, 'nginx.pid')};
error_log ${errorLogPath} info;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${join(directory, 'client-body')};
  proxy_temp_path ${join(directory, 'proxy')};
  fastcgi_temp_path ${join(directory, 'fastcgi')};
  uwsgi_temp_path ${join(directory, 'uwsgi')};
  scgi_temp_path ${join(directory, 'scgi')};
${upstreamBlock}
${serverBlock}
}
`;
  const configurationPath = join(directory, 'nginx.conf');
  writeFileSync(configurationPath, configuration);
  const child = spawn('nginx', ['-p', directory, '-e', errorLogPath, '-c', configurationPath], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  cleanups.push(() => stopProcess(child));
  const errorLog = () => {
    try {
      return readFileSync(errorLogPath, 'utf8');
    } catch {
      return '';
    }
  };
  await waitUntilListening(port, child, errorLog);
  return port;
}

/** The README's `upstream` block with each documented `server` address replaced by the real one (same parameters). */
function instancesUpstream(documented: string | undefined, upstreamPort: number): string {
  if (documented === undefined) throw new Error('README.md has no second ```nginx block (the upstream)');
  return documented.replace(/server \S+:8080/g, `server 127.0.0.1:${upstreamPort}`);
}

async function connectThroughNginx(port: number, host: string): Promise<RemoteConnection> {
  const remote = await connectAcp(`ws://127.0.0.1:${port}/acp/ws`, {
    bearerToken: token,
    headers: { Host: host },
    openTimeoutMs: 15_000,
  });
  cleanups.push(() => remote.close());
  return remote;
}

describe('README "Behind nginx"', () => {
  it('documents the WebSocket headers, the read timeout and the loopback upstream it relies on', () => {
    const [documented = ''] = extractFencedCode(readme, 'nginx');
    expect(documented).toContain('map $http_upgrade $connection_upgrade');
    expect(documented).toContain('proxy_http_version 1.1;');
    expect(documented).toContain('proxy_set_header Upgrade $http_upgrade;');
    expect(documented).toContain('proxy_set_header Connection $connection_upgrade;');
    expect(documented).toMatch(/proxy_read_timeout \d+s;/);
    expect(documented).toContain('listen 443 ssl;');
    expect(documented).toContain('proxy_pass http://127.0.0.1:8080;');
    expect(readme).toContain(`--allowed-host ${PUBLIC_HOST}`);
    const [, upstream = ''] = extractFencedCode(readme, 'nginx');
    expect(upstream).toContain('hash $remote_addr consistent;');
    const servers = upstream.match(/^\s*server .*$/gm) ?? [];
    expect(servers.length).toBeGreaterThan(1);
    for (const server of servers) expect(server).toContain('max_fails=0');
    expect(readme).toContain('proxy_next_upstream error timeout http_503;');
  });

  it.each([
    ['the single-instance block', false],
    ['the several-instances upstream block', true],
  ])(
    'carries an elicitation round trip through nginx (%s) to acpremote expose with --allowed-host',
    async (_name, useUpstreamBlock) => {
      const upstreamPort = await startAcpremote(['--allowed-host', PUBLIC_HOST]);
      const nginxPort = await startNginx(upstreamPort, { useUpstreamBlock });
      const remote = await connectThroughNginx(nginxPort, PUBLIC_HOST);

      const texts: string[] = [];
      const questions: string[] = [];
      const connection = client({ name: 'docs-nginx-test' })
        .onRequest(methods.client.elicitation.create, ({ params }) => {
          questions.push(params.message);
          return { action: 'accept', content: { choice: 'choice_1' } };
        })
        .onNotification(methods.client.session.update, ({ params }) => {
          const { update } = params;
          if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') {
            texts.push(update.content.text);
          }
        })
        .connect(remote.stream);
      cleanups.push(() => connection.close());

      await connection.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { elicitation: { form: {} } },
      });
      const { sessionId } = await connection.agent.request(methods.agent.session.new, {
        cwd: repositoryRoot,
        mcpServers: [],
      });
      const response = await connection.agent.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'Deploy the app' }],
      });

      expect(response.stopReason).toBe('end_turn');
      expect(questions).toEqual(['Choose a deployment target']);
      expect(texts.join('')).toBe('Selected: production');
    },
  );

  it('is refused with 403 through nginx when the public Host is not allowed', async () => {
    const upstreamPort = await startAcpremote([]);
    const nginxPort = await startNginx(upstreamPort);
    const failure = await connectThroughNginx(nginxPort, PUBLIC_HOST).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(AcpRemoteError.isInstance(failure) && failure.code).toBe(AcpRemoteErrorCode.AuthenticationFailed);
  });
});
