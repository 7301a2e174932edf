// Two `acpremote serve` instances sharing one Postgres session store behind a real nginx that routes by connection
// id, running the configuration docs/remote-transport.md ("Several instances behind a load balancer") gives operators
// (its ```nginx block, with the real addresses and the test's certificate):
//
//   editor (SDK-free raw JSON-RPC) → `acpkit run --addr https://nginx/acp` → nginx → instance a | instance b → Postgres
//
// Every connection id an instance issues starts with its `--instance-id`, and nginx's `map` sends each request
// naming a connection to the instance holding it; new connections go round robin. A rolling restart: the instance
// holding the editor's session drains (SIGTERM) and comes back, then the other, now holding it, is killed with
// SIGKILL. Each time the mirror carries the session to the other instance and the editor's next prompt continues
// the same conversation (the agent's scripted model answers with every prompt the session was given).

import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';
import { startPostgres, type TestPostgres } from '@acpkit/test-support/postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDrain } from './support/drain.js';
import { type NginxProxy, startNginxTlsProxy } from './support/nginx.js';
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
/** The documented nginx configuration: the ```nginx block of the docs' section on several instances. */
const DOCUMENTED_NGINX = (() => {
  const page = readFileSync(
    fileURLToPath(new URL('../../../docs/remote-transport.md', import.meta.url)),
    'utf8',
  );
  const section = page.slice(page.indexOf('### Several instances behind a load balancer'));
  const block = /```nginx\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined)
    throw new Error('docs/remote-transport.md has no nginx block for several instances');
  return block;
})();

/** The documented configuration for the instances at `ports` (a, b), listening and serving TLS as nginx's helper says. */
function documentedConfiguration(ports: ReadonlyMap<string, number>) {
  return ({ listen, tls }: { listen: string; tls: string }) => {
    const replaced = DOCUMENTED_NGINX.replaceAll('10.0.0.1:8080', `127.0.0.1:${ports.get('a')}`)
      .replaceAll('10.0.0.2:8080', `127.0.0.1:${ports.get('b')}`)
      .replace('listen 443 ssl;', `listen ${listen};`)
      .replace(/# ssl_certificate .*\n/, `${tls}\n`);
    expect(replaced).not.toMatch(/10\.0\.0|443/);
    return replaced;
  };
}

/** Failure bound for what the processes log on a loaded machine. */
const EVENT_DEADLINE_MS = 30_000;

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(() => postgres?.stop());

/** POSTs a fresh `initialize` through nginx and returns the `Acp-Connection-Id` it was given (then DELETEs it). */
function newConnectionId(nginx: NginxProxy): Promise<string> {
  const ca = readFileSync(nginx.certificatePath);
  const send = (method: 'POST' | 'DELETE', headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; connectionId: string | undefined }>((resolve, reject) => {
      const request = httpsRequest(
        { host: '127.0.0.1', port: nginx.port, path: '/acp', method, ca, servername: 'localhost', headers },
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

describe('sessions carried across a rolling restart of two instances behind nginx', () => {
  let nginx: NginxProxy | undefined;
  afterEach(async () => {
    await nginx?.close();
    nginx = undefined;
    await killStartedProcesses();
  });

  it("routes each connection's requests to its instance, spreads new ones, and carries the session through a drain and a kill -9", async () => {
    const env = {
      ACPKIT_SESSIONS_STORE: `postgres:${postgres.connectionString}`,
      ACPKIT_SESSIONS_SCHEMA: 'carried_sessions',
    };
    const serve = (instanceId: string, port?: number) =>
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
        { env },
      );
    const instances = new Map<string, RunningServer>([
      ['a', await serve('a')],
      ['b', await serve('b')],
    ]);
    const ports = new Map([...instances].map(([name, instance]) => [name, instance.port]));
    nginx = await startNginxTlsProxy({
      upstreams: [...ports.values()].map((port) => `127.0.0.1:${port}`),
      readTimeoutSeconds: 60,
      configuration: documentedConfiguration(ports),
    });

    // New connections spread: two in a row land on both instances.
    const spread = [await newConnectionId(nginx), await newConnectionId(nginx)].map((id) => id.split('.')[0]);
    expect(spread.sort()).toEqual(['a', 'b']);

    const editor = spawnStdioPeer(
      process.execPath,
      [ACPKIT_CLI, 'run', '--addr', `https://127.0.0.1:${nginx.port}/acp`],
      { env: { NODE_EXTRA_CA_CERTS: nginx.certificatePath } },
    );
    const opened = (name: string) =>
      (
        instances
          .get(name)!
          .stderr()
          .match(/connection opened/g) ?? []
      ).length;
    const openedBefore = new Map([...instances.keys()].map((name) => [name, opened(name)]));
    const initialized = await editor.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(initialized.error).toBeUndefined();
    const created = await editor.request('session/new', { cwd: '/', mcpServers: [] });
    const sessionId = (created.result as { sessionId: string }).sessionId;
    const turn = async (text: string) => {
      const answer = await editor.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
      expect(answer.error).toBeUndefined();
      const chunk = await editor.next(
        (message) =>
          message.method === 'session/update' &&
          (message.params as { update: { sessionUpdate: string } }).update.sessionUpdate ===
            'agent_message_chunk',
      );
      return (chunk.params as { update: { content: { text: string } } }).update.content.text;
    };
    expect(await turn('one')).toBe('Seen 1 prompts: one.');
    const holder = [...instances.keys()].find((name) => opened(name) > openedBefore.get(name)!)!;
    const other = holder === 'a' ? 'b' : 'a';
    const carriedLines = () => (editor.stderr().match(/sessions carried to a new connection/g) ?? []).length;
    const waitForCarry = (count: number) =>
      waitFor(
        () => carriedLines() >= count,
        EVENT_DEADLINE_MS,
        () => `editor: ${editor.stderr()}\nnginx: ${nginx!.errorLog()}`,
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
    instances.set(holder, await serve(holder, ports.get(holder)));

    // Step 2: the other instance, holding the session now, dies with SIGKILL; the mirror's next request for its
    // connection gets nginx's 502, and the session is carried back to the restarted instance.
    const killed = instances.get(other)!;
    killed.child.kill('SIGKILL');
    await waitForCarry(2);
    expect(await turn('three')).toBe('Seen 3 prompts: one | two | three.');
    expect(opened(holder)).toBe(1);

    // nginx sent every request naming a connection to the instance whose id prefixes it.
    const routed = nginx
      .accessLog()
      .split('\n')
      .map((line) => /upstreams="([^"]*)" statuses="[^"]*" connection="([ab])\.[^"]+"$/.exec(line))
      .filter((match) => match !== null);
    expect(routed.length).toBeGreaterThan(4);
    for (const [, upstream, instanceId] of routed)
      expect(upstream).toBe(`127.0.0.1:${ports.get(instanceId!)}`);
    expect(editor.stderr()).toMatch(
      /remote server lost; carrying the sessions to a new connection .*sessions=1/,
    );
    editor.child.stdin.end();
    expect(await editor.exited).toBe(0);
  });
});
