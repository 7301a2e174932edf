import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NginxProxy, startNginxTlsProxy } from './support/nginx.js';
import {
  fixturePath,
  type JsonRpcMessage,
  killStartedProcesses,
  type RunningServer,
  spawnStdioPeer,
  startAcpremote,
} from './support/processes.js';

/** nginx drops a proxied connection after this many idle seconds (both directions). */
const PROXY_READ_TIMEOUT_SECONDS = 3;

type Mirror = ReturnType<typeof spawnStdioPeer>;

describe('acpremote expose behind a real nginx terminating TLS', () => {
  const upstreams: RunningServer[] = [];
  let proxy: NginxProxy;

  beforeAll(async () => {
    for (const name of ['upstream-a', 'upstream-b']) {
      upstreams.push(
        await startAcpremote([
          'expose',
          '--env',
          `AGENT_NAME=${name}`,
          '--',
          process.execPath,
          fixturePath('choice-agent.mjs'),
        ]),
      );
    }
    proxy = await startNginxTlsProxy({
      upstreams: upstreams.map((upstream) => `127.0.0.1:${upstream.port}`),
      readTimeoutSeconds: PROXY_READ_TIMEOUT_SECONDS,
    });
  });

  afterAll(async () => {
    await proxy?.close();
    for (const upstream of upstreams) await upstream.stop();
    await killStartedProcesses();
  });

  /** The stdio mirror over wss:// through nginx, trusting the test's self-signed certificate. */
  function startMirror(pingIntervalMs: number, flags: readonly string[] = []): Mirror {
    return spawnStdioPeer(
      process.execPath,
      [
        fixturePath('ping-mirror.mjs'),
        `wss://127.0.0.1:${proxy.port}/acp/ws`,
        String(pingIntervalMs),
        ...flags,
      ],
      { env: { NODE_EXTRA_CA_CERTS: proxy.certificatePath } },
    );
  }

  async function initialize(mirror: Mirror): Promise<string> {
    const response = await mirror.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { elicitation: { form: {} } },
      clientInfo: { name: 'reliability-suite', version: '0.0.0' },
    });
    expect(response.error, `${mirror.stderr()}\n${proxy.errorLog()}`).toBeUndefined();
    return (response.result as { agentInfo: { name: string } }).agentInfo.name;
  }

  /** One prompt whose answer needs an elicitation round trip: the client picks the second option. */
  async function promptWithElicitation(mirror: Mirror): Promise<string> {
    const created = await mirror.request('session/new', { cwd: '/', mcpServers: [] });
    const { sessionId } = created.result as { sessionId: string };
    const prompt = mirror.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'deploy' }],
    });
    const elicitation = await mirror.next((message) => message.method === 'elicitation/create');
    const schema = (
      elicitation.params as {
        requestedSchema: { properties: Record<string, { oneOf: { const: string; title: string }[] }> };
      }
    ).requestedSchema;
    const option = Object.values(schema.properties)[0]!.oneOf.find(
      (candidate) => candidate.title === 'Production',
    )!;
    mirror.write({ id: elicitation.id!, result: { action: 'accept', content: { choice: option.const } } });
    const update = await mirror.next((message: JsonRpcMessage) => message.method === 'session/update');
    expect((await prompt).result).toEqual({ stopReason: 'end_turn' });
    return (update.params as { update: { content: { text: string } } }).update.content.text;
  }

  it('runs an elicitation round trip over wss:// through nginx to both upstreams', async () => {
    // Both mirrors stay connected, so nginx's least_conn sends the second one to the other upstream.
    const mirrors = [startMirror(1_000)];
    const first = await initialize(mirrors[0]!);
    mirrors.push(startMirror(1_000));
    const second = await initialize(mirrors[1]!);
    expect([first, second].sort()).toEqual(['upstream-a', 'upstream-b']);
    for (const mirror of mirrors) {
      expect(await promptWithElicitation(mirror)).toBe('selected production');
    }
    for (const mirror of mirrors) {
      mirror.child.stdin.end();
      expect(await mirror.exited).toBe(0);
      expect(mirror.nonJsonRpcLines).toEqual([]);
    }
  });

  it('keeps an idle connection open past proxy_read_timeout thanks to pings, while a silent one is dropped', async () => {
    const pinging = startMirror(1_000);
    // The control: pings far apart, so nginx's idle timeout is the only thing that can end it (without resume, which
    // would reconnect it).
    const silent = startMirror(60_000, ['--no-resume']);
    await initialize(pinging);
    await initialize(silent);
    const idleSince = performance.now();

    // Waiting on the control's exit (an event), not on a timer: nginx closes it after the idle timeout.
    expect(await silent.exited).toBe(1);
    const silentIdleSeconds = (performance.now() - idleSince) / 1000;
    expect(silentIdleSeconds).toBeGreaterThanOrEqual(PROXY_READ_TIMEOUT_SECONDS - 0.5);

    // The pinging mirror idled at least as long and still works end to end.
    expect(pinging.child.exitCode).toBeNull();
    expect(await promptWithElicitation(pinging)).toBe('selected production');
    pinging.child.stdin.end();
    expect(await pinging.exited).toBe(0);
    expect(pinging.nonJsonRpcLines).toEqual([]);
    expect(silent.nonJsonRpcLines).toEqual([]);
  });
});
