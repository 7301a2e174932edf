import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initializeChoiceSession, startChoiceTurn, startChoiceUpstreams } from './support/choice-session.js';
import { type NginxProxy, startNginxTlsProxy } from './support/nginx.js';
import {
  fixturePath,
  killStartedProcesses,
  type RunningServer,
  spawnStdioPeer,
} from './support/processes.js';

/** nginx drops a proxied connection after this many idle seconds (both directions). */
const PROXY_READ_TIMEOUT_SECONDS = 3;

type Mirror = ReturnType<typeof spawnStdioPeer>;

describe('acpremote expose behind a real nginx terminating TLS', () => {
  let upstreams: RunningServer[] = [];
  let proxy: NginxProxy;

  beforeAll(async () => {
    upstreams = [...(await startChoiceUpstreams(['upstream-a', 'upstream-b'])).values()];
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

  const initialize = (mirror: Mirror) => initializeChoiceSession(mirror, () => proxy.errorLog());
  /** One prompt whose answer needs an elicitation round trip: the client picks the second option. */
  const promptWithElicitation = async (mirror: Mirror) =>
    (await startChoiceTurn(mirror)).answer('Production');

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
