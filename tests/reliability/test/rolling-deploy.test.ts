// A rolling deploy behind a real nginx (TLS, least_conn, `proxy_next_upstream error timeout http_503`) in front of
// two `acpremote expose` instances: one gets SIGTERM while a session on it waits on the user's answer, and new
// sessions keep arriving. The running session finishes on the draining instance, every new session lands on the
// other one (nginx retries the draining instance's 503 on the next upstream), nothing is lost, and the drained
// process exits 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initializeChoiceSession, startChoiceTurn, startChoiceUpstreams } from './support/choice-session.js';
import { finishDrain, startDrain } from './support/drain.js';
import { type NginxProxy, startNginxTlsProxy } from './support/nginx.js';
import {
  ACPREMOTE_CLI,
  killStartedProcesses,
  type RunningServer,
  spawnStdioPeer,
} from './support/processes.js';

/** Sessions that arrive while the instance drains; with least_conn, nginx tries the draining one for some. */
const NEW_SESSIONS = 4;

type Mirror = ReturnType<typeof spawnStdioPeer>;

describe('rolling deploy: SIGTERM one of two acpremote expose instances behind nginx', () => {
  let instances = new Map<string, RunningServer>();
  let proxy: NginxProxy;

  beforeAll(async () => {
    instances = await startChoiceUpstreams(['instance-a', 'instance-b']);
    proxy = await startNginxTlsProxy({
      upstreams: [...instances.values()].map((instance) => `127.0.0.1:${instance.port}`),
      readTimeoutSeconds: 60,
      retryOn503: true,
    });
  });

  afterAll(async () => {
    await proxy?.close();
    for (const instance of instances.values()) await instance.stop();
    await killStartedProcesses();
  });

  /** The real `acpremote mirror` over wss:// through nginx, trusting the test's self-signed certificate. */
  function startMirror(): Mirror {
    return spawnStdioPeer(
      process.execPath,
      [ACPREMOTE_CLI, 'mirror', `wss://127.0.0.1:${proxy.port}/acp/ws`],
      {
        env: { NODE_EXTRA_CA_CERTS: proxy.certificatePath },
      },
    );
  }

  it('finishes the running session on the draining instance and sends every new session to the other', async () => {
    const running = startMirror();
    const drainingName = await initializeChoiceSession(running, () => proxy.errorLog());
    const draining = instances.get(drainingName)!;
    const [otherName] = [...instances.keys()].filter((name) => name !== drainingName);
    const turn = await startChoiceTurn(running);

    // The deploy starts: the instance holding the session gets SIGTERM while its turn waits on the answer.
    const drain = await startDrain(draining);
    expect(drain.agentsBefore).toHaveLength(1);

    // New sessions arrive and stay open meanwhile: each one lands on the other instance and works end to end.
    const arrivals: Mirror[] = [];
    for (let index = 0; index < NEW_SESSIONS; index += 1) {
      const mirror = startMirror();
      arrivals.push(mirror);
      expect(await initializeChoiceSession(mirror, () => proxy.errorLog())).toBe(otherName);
    }
    // nginx did try the draining instance (least_conn: it holds the fewest connections) and moved on after its 503.
    expect(draining.stderr()).toMatch(/connection refused reason="draining" status=503/);
    expect(draining.child.exitCode).toBeNull();

    // The running session finishes on the draining instance: the user's answer reaches its agent.
    expect(await turn.answer('Production')).toBe('selected production');
    for (const mirror of arrivals)
      expect(await (await startChoiceTurn(mirror)).answer('Preview')).toBe('selected preview');

    // Its client leaves: the drained instance exits 0, with its agent reaped.
    await finishDrain(draining, drain, running);

    // After it is gone, new sessions still land on the remaining instance.
    const late = startMirror();
    arrivals.push(late);
    expect(await initializeChoiceSession(late, () => proxy.errorLog())).toBe(otherName);
    expect(await (await startChoiceTurn(late)).answer('Production')).toBe('selected production');

    // Nothing lost: every client ends cleanly, with nothing but JSON-RPC on its stdout and no request unanswered.
    for (const mirror of [running, ...arrivals]) {
      mirror.child.stdin.end();
      expect(await mirror.exited).toBe(0);
      expect(mirror.nonJsonRpcLines).toEqual([]);
      expect(mirror.pendingResponses()).toBe(0);
    }
    expect(draining.stdout()).toBe('');
  });
});
