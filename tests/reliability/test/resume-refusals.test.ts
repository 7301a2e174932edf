// When a session cannot be resumed, with the built CLIs: the window passed, a replay buffer overflowed (on either
// side), the server restarted, and a resume token used without the bearer token. Each time the mirror answers its
// in-flight requests with a JSON-RPC error and exits 1 (as without resume), and both sides say why in one line.
import { RelayErrorCode } from '@acpkit/remote';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type FaultProxy, startFaultProxy } from './support/fault-proxy.js';
import {
  ACPREMOTE_CLI,
  childPids,
  fixturePath,
  killStartedProcesses,
  type RunningServer,
  spawnStdioPeer,
  startAcpremote,
  waitFor,
} from './support/processes.js';

const HOLD_AGENT = ['--', process.execPath, fixturePath('hold-agent.mjs')];
const initializeParams = { protocolVersion: 1, clientCapabilities: {} };

describe('resume refusals', () => {
  const servers: RunningServer[] = [];
  const proxies: FaultProxy[] = [];
  afterEach(async () => {
    for (const proxy of proxies.splice(0)) await proxy.close();
    for (const server of servers.splice(0)) await server.stop();
    await killStartedProcesses();
  });

  async function expose(flags: readonly string[], options: { env?: Record<string, string> } = {}) {
    const server = await startAcpremote(['expose', ...flags, ...HOLD_AGENT], options);
    servers.push(server);
    return server;
  }

  async function proxyTo(server: RunningServer) {
    const proxy = await startFaultProxy(server.port);
    proxies.push(proxy);
    return proxy;
  }

  function mirror(url: string, flags: readonly string[] = [], env: Record<string, string> = {}) {
    const editor = spawnStdioPeer(process.execPath, [ACPREMOTE_CLI, 'mirror', url, ...flags], { env });
    const stderrMatches = (pattern: RegExp) =>
      waitFor(
        () => pattern.test(editor.stderr()),
        30_000,
        () => `mirror stderr: ${editor.stderr()}`,
      );
    return { editor, stderrMatches };
  }

  /**
   * initialize, then a request the agent never answers, in flight across whatever the test does next (wrapped: an
   * async function returning the promise itself would wait for it).
   */
  async function holdRequest(editor: ReturnType<typeof spawnStdioPeer>) {
    expect((await editor.request('initialize', initializeParams)).result).toBeDefined();
    const held = editor.request('_test/hold', {});
    // One pipe, in order: once this echo is answered the held request has reached the agent.
    await editor.request('_test/echo', { after: 'hold' });
    return { held };
  }

  async function expectTransportLost(
    held: Promise<{ error?: { code: number; message: string } }>,
    reason: RegExp,
  ) {
    const response = await held;
    expect(response.error?.code).toBe(RelayErrorCode.TransportLost);
    expect(response.error?.message).toMatch(reason);
  }

  it('refuses a resume after the window (expired): the agent is reaped, the mirror fails its requests and exits 1', async () => {
    const server = await expose(['--resume-window', '1']);
    const proxy = await proxyTo(server);
    const { editor, stderrMatches } = mirror(`ws://127.0.0.1:${proxy.port}/acp/ws`);
    const { held } = await holdRequest(editor);
    // The mirror's reconnect is accepted by the proxy but reaches the server only after the window.
    proxy.holdNew(true);
    proxy.cutAll();
    await waitFor(
      () => /resume window expired; session ended connection=1 windowMs=1000/.test(server.stderr()),
      30_000,
      () => server.stderr(),
    );
    await waitFor(
      () => childPids(server.child.pid!).length === 0,
      10_000,
      () => 'agent not reaped',
    );
    await waitFor(
      () => proxy.held > 0,
      10_000,
      () => 'no reconnect attempt',
    );
    proxy.release();
    await expectTransportLost(held, /resume failed \(expired\)/);
    await stderrMatches(/resume failed reason="expired" attempts=1 /);
    expect(await editor.exited).toBe(1);
    expect(server.stderr()).toMatch(/connection refused reason="resume" status=410 .*resume="expired"/);
    expect(editor.nonJsonRpcLines).toEqual([]);
  });

  it('refuses a resume the server can no longer replay (overflow) and ends the session at once', async () => {
    const server = await expose(['--resume-buffer-bytes', '65536', '--max-message-bytes', '131072']);
    const proxy = await proxyTo(server);
    const { editor, stderrMatches } = mirror(`ws://127.0.0.1:${proxy.port}/acp/ws`);
    const { held } = await holdRequest(editor);
    // The link goes dark towards the mirror: three 100 KiB answers leave the server but never arrive, more than the
    // server's replay buffer holds (64 KiB, plus one message of at most 128 KiB).
    proxy.withhold('down');
    const seen = proxy.bytesSeen('down');
    const echoes = [1, 2, 3].map((n) => editor.request('_test/echo', { n, blob: 'x'.repeat(100 * 1024) }));
    await proxy.bytesReached('down', seen + 300 * 1024);
    proxy.cutAll();
    for (const echo of echoes) await expectTransportLost(echo, /resume failed \(overflow\)/);
    await expectTransportLost(held, /resume failed \(overflow\)/);
    await stderrMatches(/resume failed reason="overflow"/);
    expect(await editor.exited).toBe(1);
    expect(server.stderr()).toMatch(
      /resume impossible; session ended connection=1 reason="overflow" bufferBytes=65536/,
    );
    await waitFor(
      () => childPids(server.child.pid!).length === 0,
      10_000,
      () => 'agent not reaped',
    );
  });

  it("fails the resume when the mirror's own replay buffer overflowed, and the server ends the session", async () => {
    const server = await expose([]);
    const proxy = await proxyTo(server);
    const { editor, stderrMatches } = mirror(`ws://127.0.0.1:${proxy.port}/acp/ws`, [
      '--resume-buffer-bytes',
      '65536',
    ]);
    const { held } = await holdRequest(editor);
    // The link goes dark towards the server: 18 MiB of requests leave the mirror but never arrive, more than its
    // replay buffer holds (64 KiB, plus one message of at most the 16 MiB limit).
    proxy.withhold('up');
    const seen = proxy.bytesSeen('up');
    const sent = [1, 2, 3].map((n) => editor.request('_test/echo', { n, blob: 'y'.repeat(6 * 1024 * 1024) }));
    await proxy.bytesReached('up', seen + 18 * 1024 * 1024);
    proxy.cutAll();
    for (const echo of sent) await expectTransportLost(echo, /resume failed \(overflow\)/);
    await expectTransportLost(held, /resume failed \(overflow\)/);
    await stderrMatches(/resume failed reason="overflow" .*the client's replay buffer \(65536 bytes\)/);
    expect(await editor.exited).toBe(1);
    await waitFor(
      () => childPids(server.child.pid!).length === 0,
      10_000,
      () => `agent not reaped; server stderr: ${server.stderr()}`,
    );
  });

  it('refuses a resume after a server restart (unknown)', async () => {
    const first = await expose([]);
    const { editor, stderrMatches } = mirror(first.url);
    const { held } = await holdRequest(editor);
    first.child.kill('SIGKILL');
    await stderrMatches(/connection interrupted; resuming code=1006/);
    const restarted = await expose(['--port', String(first.port)]);
    await expectTransportLost(held, /resume failed \(unknown\)/);
    await stderrMatches(/resume failed reason="unknown"/);
    expect(await editor.exited).toBe(1);
    expect(restarted.stderr()).toMatch(/connection refused reason="resume" status=410 .*resume="unknown"/);
  });

  it('gives a stolen resume token nothing without the bearer token, and the session resumes for its owner', async () => {
    const env = { RESUME_TEST_TOKEN: 'the-bearer-token' };
    const server = await expose(['--token-env', 'RESUME_TEST_TOKEN'], { env });
    const proxy = await proxyTo(server);
    const { editor, stderrMatches } = mirror(
      `ws://127.0.0.1:${proxy.port}/acp/ws`,
      ['--token-env', 'RESUME_TEST_TOKEN'],
      env,
    );
    expect((await editor.request('initialize', initializeParams)).result).toBeDefined();
    // What a tap on the link saw: the 101 answer, then the welcome frame (binary, unmasked, short).
    const down = proxy.transcript(0, 'down');
    const frame = down.subarray(down.indexOf('\r\n\r\n') + 4);
    expect(frame[0]).toBe(0x82);
    // Unmasked; a length of 126 means a 16-bit length follows (the welcome is over 125 bytes).
    const [start, length] = frame[1] === 126 ? [4, frame.readUInt16BE(2)] : [2, frame[1]!];
    const welcome = JSON.parse(frame.subarray(start, start + length).toString('utf8'));
    expect(welcome).toMatchObject({ type: 'welcome', resumed: false });

    proxy.refuseNew(true);
    proxy.cutAll();
    await stderrMatches(/connection interrupted; resuming/);
    const steal = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(server.url, ['acpkit.resume.v1'], {
          headers: { 'Acpkit-Resume-Token': welcome.token, 'Acpkit-Resume-Received': '1', ...headers },
        });
        socket.on('error', () => {});
        socket.once('unexpected-response', (_request, response) => {
          resolve(response.statusCode ?? 0);
          socket.terminate();
        });
        socket.once('open', () => {
          resolve(101);
          socket.terminate();
        });
      });
    expect(await steal({})).toBe(401);
    expect(await steal({ Authorization: 'Bearer another-token' })).toBe(401);
    expect(server.stderr()).toMatch(/connection refused reason="auth" status=401/);

    proxy.refuseNew(false);
    await stderrMatches(/connection resumed attempts=/);
    expect((await editor.request('_test/echo', { after: 'resume' })).result).toEqual({ after: 'resume' });
    editor.child.stdin.end();
    expect(await editor.exited).toBe(0);
  });
});
