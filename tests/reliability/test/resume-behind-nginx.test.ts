// Resume behind a real nginx in front of two `acpremote expose` instances, as the README ("Behind nginx") and
// docs/remote-transport.md (Kubernetes, "Resume behind several pods") tell operators to set it up:
//
//   `acpremote mirror` → fault proxy (cuts the TCP connection) → nginx (TLS) → instance A | instance B
//
// Every client here connects from 127.0.0.1, so `hash $remote_addr consistent` sends all of them to one instance
// first: the one holding the session. The tests prove that a cut connection resumes there (and the other instance
// never hears of it), show the failure when nothing routes a resume back (least_conn), and run a rolling deploy in
// which the session's instance drains while the mirror is away: its resume still lands there, a new session moves
// on to the other instance after the 503, and the drained instance exits 0, provided the upstream's servers carry
// `max_fails=0` (with nginx's default `max_fails=1`, the 503 takes the draining instance out of rotation and the
// resume lands on the wrong instance; the last test shows that).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { initializeChoiceSession, startChoiceTurn, startChoiceUpstreams } from './support/choice-session.js';
import { finishDrain, startDrain } from './support/drain.js';
import { type FaultProxy, startFaultProxy } from './support/fault-proxy.js';
import { type NginxBalancing, type NginxProxy, startNginxTlsProxy } from './support/nginx.js';
import {
  ACPREMOTE_CLI,
  killStartedProcesses,
  type RunningServer,
  spawnStdioPeer,
  waitFor,
} from './support/processes.js';
import { openPeer, type Peer } from './support/websocket-peer.js';

type Mirror = ReturnType<typeof spawnStdioPeer>;

/** Failure bound for log lines awaited on a loaded machine (the events themselves arrive in well under a second). */
const EVENT_DEADLINE_MS = 30_000;

/** The value of one Prometheus sample (`name{labels}`), 0 when absent (a counter never incremented has no sample). */
async function metric(instance: RunningServer, sample: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${instance.port}/metrics`);
  expect(response.status).toBe(200);
  const text = await response.text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
  return line === undefined ? 0 : Number(line.slice(sample.length + 1));
}

describe('resume behind nginx with two acpremote expose instances', () => {
  let instances = new Map<string, RunningServer>();
  let nginx: NginxProxy | undefined;
  let faults: FaultProxy | undefined;
  const peers: Peer[] = [];

  afterEach(async () => {
    for (const peer of peers.splice(0)) await peer.close();
    await faults?.close();
    await nginx?.close();
    for (const instance of instances.values()) await instance.stop();
    await killStartedProcesses();
    faults = undefined;
    nginx = undefined;
    instances = new Map();
  });

  async function startDeployment(options: { balancing: NginxBalancing; serverParameters?: string }) {
    instances = await startChoiceUpstreams(['instance-a', 'instance-b'], ['--metrics']);
    nginx = await startNginxTlsProxy({
      upstreams: [...instances.values()].map((instance) => `127.0.0.1:${instance.port}`),
      readTimeoutSeconds: 60,
      retryOn503: true,
      ...options,
    });
    faults = await startFaultProxy(nginx.port);
  }

  /** The built mirror over wss:// to `port` (the fault proxy, or nginx itself), trusting nginx's certificate. */
  function startMirror(port: number): Mirror {
    return spawnStdioPeer(process.execPath, [ACPREMOTE_CLI, 'mirror', `wss://127.0.0.1:${port}/acp/ws`], {
      env: { NODE_EXTRA_CA_CERTS: nginx!.certificatePath },
    });
  }

  /** A mirror through the fault proxy whose turn waits on the agent's question; `holder` is the instance it is on. */
  async function startPendingTurn() {
    const mirror = startMirror(faults!.port);
    const holderName = await initializeChoiceSession(mirror, () => nginx!.errorLog());
    const holder = instances.get(holderName)!;
    const otherName = [...instances.keys()].find((name) => name !== holderName)!;
    const other = instances.get(otherName)!;
    const turn = await startChoiceTurn(mirror);
    expect(mirror.stderr()).toMatch(/mirror connected url="[^"]+" remoteCwd="[^"]*" resumable=true/);
    const mirrorLogs = (pattern: RegExp) =>
      waitFor(
        () => pattern.test(mirror.stderr()),
        EVENT_DEADLINE_MS,
        () => `mirror stderr: ${mirror.stderr()}\nnginx: ${nginx!.errorLog()}`,
      );
    return { mirror, holder, other, otherName, turn, mirrorLogs };
  }

  /** Resolves once `instance` logged a line matching `pattern`. */
  function logged(instance: RunningServer, pattern: RegExp) {
    return waitFor(
      () => pattern.test(instance.stderr()),
      EVENT_DEADLINE_MS,
      () => `instance stderr: ${instance.stderr()}`,
    );
  }

  /** Cuts the mirror's connection (no close frame anywhere) and keeps it from reconnecting until `faults.refuseNew(false)`. */
  async function cutAndHold(mirrorLogs: (pattern: RegExp) => Promise<void>, holder: RunningServer) {
    faults!.refuseNew(true);
    faults!.cutAll();
    await mirrorLogs(/connection interrupted; resuming code=1006/);
    await logged(holder, /connection interrupted; session kept for resume connection=1 code=1006/);
  }

  it('hash $remote_addr consistent: a cut connection resumes on the instance holding its session', async () => {
    await startDeployment({ balancing: 'hash $remote_addr consistent', serverParameters: 'max_fails=0' });
    const { mirror, holder, other, turn, mirrorLogs } = await startPendingTurn();

    // The network drops while the agent waits for the answer; the mirror reconnects through nginx on its own.
    faults!.cutAll();
    await mirrorLogs(/connection resumed attempts=\d+ downtimeMs=\d+ replayedFrames=\d+/);
    await logged(holder, /connection resumed connection=1 /);

    // Answered after the reconnect: the answer reaches the agent, and its reply the editor.
    expect(await turn.answer('Production')).toBe('selected production');
    expect(
      await metric(holder, 'acpremote_connections_total{outcome="accepted",transport="websocket"}'),
    ).toBe(1);
    expect(await metric(holder, 'acpremote_session_drops_total')).toBe(1);
    expect(await metric(holder, 'acpremote_resumes_total{outcome="accepted"}')).toBe(1);

    // The other instance never heard of the session: no connection, no resume, not even a refused one.
    expect(other.stderr()).not.toMatch(/connection (opened|refused|resumed)/);
    expect(await metric(other, 'acpremote_connections_total{outcome="accepted",transport="websocket"}')).toBe(
      0,
    );
    for (const outcome of ['accepted', 'unknown'])
      expect(await metric(other, `acpremote_resumes_total{outcome="${outcome}"}`)).toBe(0);

    mirror.child.stdin.end();
    expect(await mirror.exited).toBe(0);
    expect(mirror.nonJsonRpcLines).toEqual([]);
    expect(mirror.pendingResponses()).toBe(0);
  });

  it('least_conn (no affinity): the resume reaches the other instance, is refused as unknown, and the mirror exits 1', async () => {
    await startDeployment({ balancing: 'least_conn' });
    const { mirror, holder, other, turn, mirrorLogs } = await startPendingTurn();
    await cutAndHold(mirrorLogs, holder);

    // Make least_conn's choice deterministic: open idle clients through nginx until the holder has more of them than
    // the other instance (least_conn keeps the two within one of each other, and alternates on a tie).
    const occupied = new Map<RunningServer, number>([
      [holder, 0],
      [other, 0],
    ]);
    while (occupied.get(holder)! <= occupied.get(other)!) {
      expect(peers.length, 'least_conn never sent an idle client to the holder').toBeLessThan(6);
      const peer = await openPeer(`wss://127.0.0.1:${nginx!.port}/acp/ws`, {
        ca: readFileSync(nginx!.certificatePath),
      });
      peers.push(peer);
      const initialized = await peer.roundTrip(
        'initialize',
        { protocolVersion: 1, clientCapabilities: {} },
        30_000,
      );
      const name = (initialized.result as { agentInfo: { name: string } }).agentInfo.name;
      const landed = instances.get(name)!;
      occupied.set(landed, occupied.get(landed)! + 1);
    }

    // The mirror reconnects: nginx sends the resume to the instance with fewer connections, which never issued it.
    faults!.refuseNew(false);
    await mirrorLogs(/resume failed reason="unknown" attempts=\d+ downtimeMs=\d+/);
    await logged(other, /connection refused reason="resume" status=410 .*resume="unknown"/);
    expect(await metric(other, 'acpremote_resumes_total{outcome="unknown"}')).toBe(1);
    expect(await metric(holder, 'acpremote_resumes_total{outcome="accepted"}')).toBe(0);

    // Every request in flight gets a JSON-RPC error saying why, and the mirror exits 1 (the editor restarts it).
    const failed = await turn.prompt;
    expect(failed.error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/^ACP remote transport lost: .*resume failed \(unknown\)/),
    });
    expect(await mirror.exited).toBe(1);
    expect(mirror.nonJsonRpcLines).toEqual([]);
  });

  /**
   * The rolling deploy's common part: a session's connection is cut while its turn waits on the answer, its instance
   * gets SIGTERM while the mirror is away, and a new session arrives meanwhile (straight to nginx, from the same
   * address): the draining instance refuses it with 503 and nginx moves it to the other instance.
   */
  async function drainWhileDetached() {
    const pending = await startPendingTurn();
    const { holder, otherName, mirrorLogs } = pending;
    await cutAndHold(mirrorLogs, holder);
    const drain = await startDrain(holder);
    expect(drain.agentsBefore).toHaveLength(1);
    // The detached session is one of the connections the drain waits for.
    expect(holder.stderr()).toMatch(/drain started connections=1 /);

    const arrival = startMirror(nginx!.port);
    expect(await initializeChoiceSession(arrival, () => nginx!.errorLog())).toBe(otherName);
    await logged(holder, /connection refused reason="draining" status=503/);
    return { ...pending, arrival, drain };
  }

  it('rolling deploy (hash, max_fails=0): the draining instance takes the resume and finishes the turn, new sessions land on the other, exit 0', async () => {
    await startDeployment({ balancing: 'hash $remote_addr consistent', serverParameters: 'max_fails=0' });
    const { mirror, holder, other, otherName, turn, mirrorLogs, arrival, drain } = await drainWhileDetached();

    // The mirror comes back: hashing sends its resume to the draining instance, which still accepts it.
    faults!.refuseNew(false);
    await mirrorLogs(/connection resumed attempts=\d+ downtimeMs=\d+ replayedFrames=\d+/);
    await logged(holder, /connection resumed connection=1 /);
    expect(await turn.answer('Production')).toBe('selected production');
    expect(await metric(holder, 'acpremote_resumes_total{outcome="accepted"}')).toBe(1);
    expect(await metric(other, 'acpremote_resumes_total{outcome="unknown"}')).toBe(0);

    // The new session works end to end on the other instance, and so does one that arrives later.
    expect(await (await startChoiceTurn(arrival)).answer('Preview')).toBe('selected preview');
    const late = startMirror(faults!.port);
    expect(await initializeChoiceSession(late, () => nginx!.errorLog())).toBe(otherName);
    expect(await (await startChoiceTurn(late)).answer('Production')).toBe('selected production');

    // The resumed session's client leaves: the drained instance exits 0 with its agent reaped.
    await finishDrain(holder, drain, mirror);

    // nginx's log: the new session's upgrade was answered 503 by the draining instance, then 101 by the other.
    for (const client of [arrival, late]) {
      client.child.stdin.end();
      expect(await client.exited).toBe(0);
      expect(client.nonJsonRpcLines).toEqual([]);
      expect(client.pendingResponses()).toBe(0);
    }
    await waitFor(
      () => /status=101 upstreams="[^"]+, [^"]+" statuses="503, 101"/.test(nginx!.accessLog()),
      EVENT_DEADLINE_MS,
      () => nginx!.accessLog(),
    );
    expect(mirror.nonJsonRpcLines).toEqual([]);
    expect(mirror.pendingResponses()).toBe(0);
  });

  it("rolling deploy with nginx's default max_fails=1: the 503 takes the draining instance out of rotation and the resume is refused as unknown", async () => {
    // fail_timeout longer than the test, so the outcome does not depend on how fast a loaded machine gets there.
    await startDeployment({
      balancing: 'hash $remote_addr consistent',
      serverParameters: 'fail_timeout=120s',
    });
    const { mirror, holder, other, turn, mirrorLogs, arrival } = await drainWhileDetached();

    faults!.refuseNew(false);
    await mirrorLogs(/resume failed reason="unknown" attempts=\d+ downtimeMs=\d+/);
    await logged(other, /connection refused reason="resume" status=410 .*resume="unknown"/);
    expect(await metric(other, 'acpremote_resumes_total{outcome="unknown"}')).toBe(1);
    expect(await metric(holder, 'acpremote_resumes_total{outcome="accepted"}')).toBe(0);
    expect((await turn.prompt).error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/resume failed \(unknown\)/),
    });
    expect(await mirror.exited).toBe(1);

    arrival.child.stdin.end();
    expect(await arrival.exited).toBe(0);
  });
});
