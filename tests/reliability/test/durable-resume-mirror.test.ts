// The built `acpremote mirror` dialling the durable-resume draft (`--resume-wire durable-resume`) on the RFD
// WebSocket of the built `acpremote expose`, through a fault proxy: a cut is resumed with `stream/resume` (one
// log line per side naming the wire), and a refused one (a restarted server) ends the mirror as any refused resume
// does when there is no session to carry.
import { afterEach, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from './support/fault-proxy.js';
import {
  ACPREMOTE_CLI,
  fixturePath,
  killStartedProcesses,
  type RunningServer,
  spawnStdioPeer,
  startAcpremote,
  waitFor,
} from './support/processes.js';

const HOLD_AGENT = ['--', process.execPath, fixturePath('hold-agent.mjs')];
const initializeParams = { protocolVersion: 1, clientCapabilities: {} };

describe('acpremote mirror --resume-wire durable-resume', () => {
  const servers: RunningServer[] = [];
  const proxies: FaultProxy[] = [];
  afterEach(async () => {
    for (const proxy of proxies.splice(0)) await proxy.close();
    for (const server of servers.splice(0)) await server.stop();
    await killStartedProcesses();
  });

  async function exposeBehindProxy(flags: readonly string[] = []) {
    const server = await startAcpremote(['expose', ...flags, ...HOLD_AGENT]);
    servers.push(server);
    const proxy = await startFaultProxy(server.port);
    proxies.push(proxy);
    return { server, proxy };
  }

  function mirror(url: string, flags: readonly string[]) {
    const editor = spawnStdioPeer(process.execPath, [ACPREMOTE_CLI, 'mirror', url, ...flags]);
    const stderrMatches = (pattern: RegExp) =>
      waitFor(
        () => pattern.test(editor.stderr()),
        30_000,
        () => `mirror stderr: ${editor.stderr()}`,
      );
    return { editor, stderrMatches };
  }

  it('resumes a cut socket with stream/resume and goes on', async () => {
    const { server, proxy } = await exposeBehindProxy();
    const { editor, stderrMatches } = mirror(`ws://127.0.0.1:${proxy.port}/acp`, [
      '--resume-wire',
      'durable-resume',
    ]);
    expect((await editor.request('initialize', initializeParams)).result).toBeDefined();
    // The cursor stays in the message handed on (docs/remote-transport.md: our client and the cursor in _meta).
    expect((await editor.request('_test/echo', { n: 1 })).result).toMatchObject({ n: 1 });
    proxy.cutAll();
    await stderrMatches(
      /connection resumed attempts=\d+ downtimeMs=\d+ replayedFrames=\d+ wire="durable-resume"/,
    );
    expect((await editor.request('_test/echo', { n: 2 })).result).toMatchObject({ n: 2 });
    await waitFor(
      () => /connection resumed connection=\d+ wire="durable-resume"/.test(server.stderr()),
      10_000,
      () => `server stderr: ${server.stderr()}`,
    );
    expect(editor.stderr()).not.toMatch(/resume failed/);
  });

  it('a refused stream/resume (a restarted server) ends the mirror as a refused resume does: exit 1', async () => {
    const first = await startAcpremote(['expose', ...HOLD_AGENT]);
    servers.push(first);
    const { editor, stderrMatches } = mirror(`ws://127.0.0.1:${first.port}/acp`, [
      '--resume-wire',
      'durable-resume',
    ]);
    expect((await editor.request('initialize', initializeParams)).result).toBeDefined();
    first.child.kill('SIGKILL');
    await stderrMatches(/connection interrupted; resuming code=1006 windowMs=60000 wire="durable-resume"/);
    const restarted = await startAcpremote(['expose', '--port', String(first.port), ...HOLD_AGENT]);
    servers.push(restarted);
    await stderrMatches(/resume failed reason="unknown" .*wire="durable-resume"/);
    expect(await editor.exited).toBe(1);
    expect(restarted.stderr()).toMatch(/stream\/resume refused reason="unknown"/);
  });
});
