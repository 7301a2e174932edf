// Two `acpremote serve` instances sharing one Postgres session store behind a real proxy that routes by connection
// id, running each configuration docs/remote-transport.md ("Several instances behind a load balancer") gives operators
// (its ```nginx and ```haproxy blocks, with the real addresses and the test's certificate):
//
//   editor (SDK-free raw JSON-RPC) → `acpkit run --addr https://proxy/acp` → nginx | HAProxy → instance a | b → Postgres
//
// Every connection id an instance issues starts with its `--instance-id`, and the proxy sends each request naming a
// connection to the instance holding it; new connections go round robin. A rolling restart: the instance
// holding the editor's session drains (SIGTERM) and comes back, then the other, now holding it, is killed with
// SIGKILL. Each time the mirror carries the session to the other instance and the editor's next prompt continues
// the same conversation (the agent's scripted model answers with every prompt the session was given).

import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';
import { startPostgres, type TestPostgres } from '@acpkit/test-support/postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDrain } from './support/drain.js';
import { type FaultProxy, startFaultProxy } from './support/fault-proxy.js';
import { startHaproxyTlsProxy } from './support/haproxy.js';
import { startNginxTlsProxy } from './support/nginx.js';
import {
  ACPKIT_CLI,
  killStartedProcesses,
  type RunningServer,
  spawnStdioPeer,
  startAcpremote,
  waitFor,
} from './support/processes.js';

/** The e2e suite's sessions agent: an AI SDK agent over the store its environment names. */
const SESSIONS_AGENT = fileURLToPath(new URL('../../e2e/fixtures/sessions-agent.mjs', import.meta.url));
/** A documented proxy configuration: the ```<language> block of the docs' section on several instances. */
function documentedBlock(language: 'nginx' | 'haproxy'): string {
  const page = readFileSync(
    fileURLToPath(new URL('../../../docs/remote-transport.md', import.meta.url)),
    'utf8',
  );
  const section = page.slice(page.indexOf('### Several instances behind a load balancer'));
  const block = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1];
  if (block === undefined)
    throw new Error(`docs/remote-transport.md has no ${language} block for several instances`);
  return block;
}

/** A documented block with the instances at `ports` (a, b) in place of the docs' addresses. */
function withInstances(block: string, ports: ReadonlyMap<string, number>): string {
  return block
    .replaceAll('10.0.0.1:8080', `127.0.0.1:${ports.get('a')}`)
    .replaceAll('10.0.0.2:8080', `127.0.0.1:${ports.get('b')}`);
}

/** A real proxy running a documented configuration, as the test sees it. */
interface RoutingProxy {
  readonly port: number;
  readonly certificatePath: string;
  /** Every finished request that named a connection: the instance it reached and the instance its id names. */
  routed(): Array<{ readonly upstream: string; readonly instanceId: string }>;
  /** What the proxy logged (for failure messages). */
  log(): string;
  close(): Promise<void>;
}

/**
 * The requests of a proxy's log that named a connection: `line` captures the upstream that answered, then the
 * instance the connection id names.
 */
function routedRequests(log: string, line: RegExp): ReturnType<RoutingProxy['routed']> {
  return log
    .split('\n')
    .map((text) => line.exec(text))
    .filter((match) => match !== null)
    .map(([, upstream, instanceId]) => ({ upstream: upstream!, instanceId: instanceId! }));
}

/** The docs' nginx block, run by a real nginx. */
async function documentedNginx(ports: ReadonlyMap<string, number>): Promise<RoutingProxy> {
  const nginx = await startNginxTlsProxy({
    upstreams: [...ports.values()].map((port) => `127.0.0.1:${port}`),
    readTimeoutSeconds: 60,
    configuration: ({ listen, tls }) => {
      const replaced = withInstances(documentedBlock('nginx'), ports)
        .replace('listen 443 ssl;', `listen ${listen};`)
        .replace(/# ssl_certificate .*\n/, `${tls}\n`);
      // The docs' addresses and port are gone (an OS-chosen port may well contain 443).
      expect(replaced).not.toMatch(/10\.0\.0\.|\b443 ssl|\/etc\/haproxy/);
      return replaced;
    },
  });
  return {
    port: nginx.port,
    certificatePath: nginx.certificatePath,
    routed: () =>
      routedRequests(nginx.accessLog(), /upstreams="([^"]*)" statuses="[^"]*" connection="([ab])\.[^"]+"$/),
    log: () => nginx.errorLog(),
    close: () => nginx.close(),
  };
}

/** The docs' HAProxy block, run by a real HAProxy. */
async function documentedHaproxy(ports: ReadonlyMap<string, number>): Promise<RoutingProxy> {
  const haproxy = await startHaproxyTlsProxy(({ bind }) => {
    const replaced = withInstances(documentedBlock('haproxy'), ports).replace(
      'bind :443 ssl crt /etc/haproxy/acp.pem',
      `bind ${bind}`,
    );
    // The docs' addresses and port are gone (an OS-chosen port may well contain 443).
    expect(replaced).not.toMatch(/10\.0\.0\.|\b443 ssl|\/etc\/haproxy/);
    return replaced;
  });
  return {
    port: haproxy.port,
    certificatePath: haproxy.certificatePath,
    routed: () => routedRequests(haproxy.log(), /server=([\d.]+:\d+) connection=([ab])\.\S+$/),
    log: () => haproxy.log(),
    close: () => haproxy.close(),
  };
}

/** Failure bound for what the processes log on a loaded machine. */
const EVENT_DEADLINE_MS = 30_000;

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(() => postgres?.stop());

/** POSTs a fresh `initialize` through the proxy and returns the `Acp-Connection-Id` it was given (then DELETEs it). */
function newConnectionId(proxy: RoutingProxy): Promise<string> {
  const ca = readFileSync(proxy.certificatePath);
  const send = (method: 'POST' | 'DELETE', headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; connectionId: string | undefined }>((resolve, reject) => {
      const request = httpsRequest(
        { host: '127.0.0.1', port: proxy.port, path: '/acp', method, ca, servername: 'localhost', headers },
        (response) => {
          response.resume();
          response.once('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              connectionId: response.headers['acp-connection-id'] as string | undefined,
            }),
          );
        },
      );
      request.once('error', reject);
      request.end(body);
    });
  return (async () => {
    const opened = await send(
      'POST',
      { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: 1, clientCapabilities: {} },
      }),
    );
    expect(opened.status).toBe(200);
    const deleted = await send('DELETE', { 'Acp-Connection-Id': opened.connectionId! });
    expect(deleted.status).toBe(202);
    return opened.connectionId!;
  })();
}

/** `connection opened` lines an instance logged so far. */
function connectionsOpened(instance: RunningServer): number {
  return (instance.stderr().match(/connection opened/g) ?? []).length;
}

/** A prompt through the editor's mirror: the text of the agent's first message chunk for it. */
async function promptThrough(
  editor: ReturnType<typeof spawnStdioPeer>,
  sessionId: string,
  text: string,
): Promise<string> {
  const answer = await editor.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  expect(answer.error).toBeUndefined();
  const chunk = await editor.next(
    (message) =>
      message.method === 'session/update' &&
      (message.params as { update: { sessionUpdate: string } }).update.sessionUpdate ===
        'agent_message_chunk',
  );
  return (chunk.params as { update: { content: { text: string } } }).update.content.text;
}

describe.each([
  ['nginx', documentedNginx],
  ['HAProxy', documentedHaproxy],
] as const)('two instances behind %s, as documented', (name, startProxy) => {
  let proxy: RoutingProxy | undefined;
  let fault: FaultProxy | undefined;
  afterEach(async () => {
    await fault?.close();
    fault = undefined;
    await proxy?.close();
    proxy = undefined;
    await killStartedProcesses();
  });

  /** Instance `instanceId` of the agent over the shared Postgres store (each test its own schema). */
  const serve = (schema: string, instanceId: string, port?: number) =>
    startAcpremote(
      [
        'serve',
        `${SESSIONS_AGENT}:createAgent`,
        '--instance-id',
        instanceId,
        '--drain-timeout',
        '1',
        ...(port === undefined ? [] : ['--port', String(port)]),
      ],
      {
        env: {
          ACPKIT_SESSIONS_STORE: `postgres:${postgres.connectionString}`,
          ACPKIT_SESSIONS_SCHEMA: `${schema}_${name.toLowerCase()}`,
        },
      },
    );

  it("routes each connection's requests to its instance, spreads new ones, and carries the session through a drain and a kill -9", async () => {
    const serveCarried = (instanceId: string, port?: number) => serve('carried_sessions', instanceId, port);
    const instances = new Map<string, RunningServer>([
      ['a', await serveCarried('a')],
      ['b', await serveCarried('b')],
    ]);
    const ports = new Map([...instances].map(([instanceId, instance]) => [instanceId, instance.port]));
    proxy = await startProxy(ports);

    // New connections spread: two in a row land on both instances.
    const spread = [await newConnectionId(proxy), await newConnectionId(proxy)].map((id) => id.split('.')[0]);
    expect(spread.sort()).toEqual(['a', 'b']);

    const editor = spawnStdioPeer(
      process.execPath,
      [ACPKIT_CLI, 'run', '--addr', `https://127.0.0.1:${proxy.port}/acp`],
      { env: { NODE_EXTRA_CA_CERTS: proxy.certificatePath } },
    );
    const opened = (instanceId: string) => connectionsOpened(instances.get(instanceId)!);
    const openedBefore = new Map([...instances.keys()].map((instanceId) => [instanceId, opened(instanceId)]));
    const initialized = await editor.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(initialized.error).toBeUndefined();
    const created = await editor.request('session/new', { cwd: '/', mcpServers: [] });
    const sessionId = (created.result as { sessionId: string }).sessionId;
    const turn = (text: string) => promptThrough(editor, sessionId, text);
    expect(await turn('one')).toBe('Seen 1 prompts: one.');
    const holder = [...instances.keys()].find(
      (instanceId) => opened(instanceId) > openedBefore.get(instanceId)!,
    )!;
    const other = holder === 'a' ? 'b' : 'a';
    const carriedLines = () => (editor.stderr().match(/sessions carried to a new connection/g) ?? []).length;
    const waitForCarry = (count: number) =>
      waitFor(
        () => carriedLines() >= count,
        EVENT_DEADLINE_MS,
        () => `editor: ${editor.stderr()}\n${name}: ${proxy!.log()}`,
      );

    // Step 1 of the rolling restart: the holder drains; after its 1 s grace it closes the connection, the mirror
    // carries the session to the other instance (the draining one refuses new connections: nginx moves on).
    const drain = await startDrain(instances.get(holder)!);
    await waitForCarry(1);
    // The grace period ended with the connection still open (its client moved on only then): 143, as documented.
    expect(await drain.exited).toBe(143);
    const otherOpened = opened(other);
    expect(await turn('two')).toBe('Seen 2 prompts: one | two.');
    expect(opened(other)).toBe(otherOpened);
    instances.set(holder, await serveCarried(holder, ports.get(holder)));

    // Step 2: the other instance, holding the session now, dies with SIGKILL; the mirror's next request for its
    // connection gets the proxy's 502 or 503, and the session is carried back to the restarted instance.
    const killed = instances.get(other)!;
    killed.child.kill('SIGKILL');
    await waitForCarry(2);
    expect(await turn('three')).toBe('Seen 3 prompts: one | two | three.');
    expect(opened(holder)).toBe(1);

    // The proxy sent every request naming a connection to the instance whose id prefixes it.
    const routed = proxy.routed();
    expect(routed.length, proxy.log()).toBeGreaterThan(4);
    for (const { upstream, instanceId } of routed)
      expect(upstream).toBe(`127.0.0.1:${ports.get(instanceId)}`);
    expect(editor.stderr()).toMatch(
      /remote server lost; carrying the sessions to a new connection .*sessions=1/,
    );
    editor.child.stdin.end();
    expect(await editor.exited).toBe(0);
  });

  it('resumes a dropped WebSocket on the instance that holds it: its acpkit.resume.v1 token names that instance', async () => {
    const instances = new Map<string, RunningServer>([
      ['a', await serve('resumed_sessions', 'a')],
      ['b', await serve('resumed_sessions', 'b')],
    ]);
    proxy = await startProxy(
      new Map([...instances].map(([instanceId, instance]) => [instanceId, instance.port])),
    );
    // The editor's network: a TCP proxy in front of the load balancer that cuts the connection (TLS passes through).
    fault = await startFaultProxy(proxy.port);
    const editor = spawnStdioPeer(
      process.execPath,
      [ACPKIT_CLI, 'run', '--addr', `wss://127.0.0.1:${fault.port}/acp/ws`],
      { env: { NODE_EXTRA_CA_CERTS: proxy.certificatePath } },
    );
    expect(
      (await editor.request('initialize', { protocolVersion: 1, clientCapabilities: {} })).error,
    ).toBeUndefined();
    const created = await editor.request('session/new', { cwd: '/', mcpServers: [] });
    const sessionId = (created.result as { sessionId: string }).sessionId;
    expect(await promptThrough(editor, sessionId, 'one')).toBe('Seen 1 prompts: one.');
    const holder = [...instances.values()].find((instance) => connectionsOpened(instance) === 1)!;
    const other = [...instances.values()].find((instance) => instance !== holder)!;

    // Each cut sends the resume through the round-robin pool's rotation; its token routes it back to the holder.
    const resumes = () => (editor.stderr().match(/connection resumed attempts=/g) ?? []).length;
    const prompts = ['one'];
    for (let cut = 1; cut <= 3; cut += 1) {
      fault.cutAll();
      await waitFor(
        () => resumes() >= cut,
        EVENT_DEADLINE_MS,
        () => `editor: ${editor.stderr()}\n${name}: ${proxy!.log()}`,
      );
      prompts.push(`after cut ${cut}`);
      expect(await promptThrough(editor, sessionId, prompts.at(-1)!)).toBe(
        `Seen ${prompts.length} prompts: ${prompts.join(' | ')}.`,
      );
    }
    expect((holder.stderr().match(/connection resumed connection=1 /g) ?? []).length).toBe(3);
    expect(other.stderr()).not.toMatch(/connection (opened|resumed|refused)/);
    expect(editor.stderr()).not.toMatch(/resume failed|sessions carried/);
    editor.child.stdin.end();
    expect(await editor.exited).toBe(0);
  });
});
