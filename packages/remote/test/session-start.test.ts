// The start of a session (issue 19, item 5): a server keeps a session for a resume only once its agent answered
// `initialize`, and tells the client within a few seconds when a command agent writes text instead of speaking ACP.
import { afterEach, describe, expect, it } from 'vitest';
import { CloseCode, RelayErrorCode, serveAcp, serveCommand } from '../src/index.js';
import { echoApp } from './support/echo-app.js';
import {
  Cleanup,
  ECHO_AGENT,
  processExists,
  RawClient,
  rawRequest,
  recordingLogger,
} from './support/helpers.js';
import { ResumeWireClient } from './support/resume-client.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } };

/** A stdio "agent" that prints text (after `banner` lines), reads stdin and never answers. */
function textAgent(lines: readonly string[]): string[] {
  const script = `for (const line of ${JSON.stringify(lines)}) console.log(line); process.stdin.resume();`;
  return [process.execPath, '-e', script];
}

describe('a session dropped before its agent answered initialize', () => {
  it('is ended, not kept for a resume (serveAcp)', async () => {
    const recorder = recordingLogger();
    const server = await serveAcp(echoApp, { port: 0, logger: recorder.logger });
    cleanup.add(() => server.close());
    const client = await ResumeWireClient.open(server.url);
    const welcome = await client.welcome();
    client.socket.terminate();
    await recorder.waitFor(/^connection closed$/);
    expect(recorder.entries.some((entry) => /session kept for resume/.test(entry.message))).toBe(false);
    expect(server.detachedCount).toBe(0);
    const resume = await rawRequest(
      server.port,
      server.paths.websocket,
      {
        'Sec-WebSocket-Protocol': 'acpkit.resume.v1',
        'Acpkit-Resume-Token': String(welcome.token),
        'Acpkit-Resume-Received': '0',
      },
      { upgrade: true },
    );
    expect([resume.status, resume.headers['acpkit-resume-refused']]).toEqual([410, 'ended']);
  });

  it('is ended with its agent reaped (serveCommand)', async () => {
    const recorder = recordingLogger();
    const server = await serveCommand(textAgent([]), {
      port: 0,
      logger: recorder.logger,
      terminateTimeoutMs: 500,
    });
    cleanup.add(() => server.close());
    const client = await ResumeWireClient.open(server.url);
    await client.welcome();
    client.socket.send(JSON.stringify(initialize));
    client.socket.terminate();
    await recorder.waitFor(/^connection closed$/);
    expect(recorder.entries.some((entry) => /session kept for resume/.test(entry.message))).toBe(false);
  });

  it('is kept once the agent answered it, even after a banner line on stdout (serveCommand)', async () => {
    const recorder = recordingLogger();
    const server = await serveCommand([process.execPath, ECHO_AGENT], {
      port: 0,
      logger: recorder.logger,
      terminateTimeoutMs: 500,
      env: { ECHO_AGENT_BANNER: 'Echo agent starting…' },
    });
    cleanup.add(() => server.close());
    const client = await ResumeWireClient.open(server.url);
    await client.welcome();
    client.socket.send(JSON.stringify(initialize));
    expect((await client.response(0)).result).toBeDefined();
    client.socket.terminate();
    await recorder.waitFor(/session kept for resume/);
    expect(server.detachedCount).toBe(1);
  });
});

describe('serveCommand with an agent that writes text instead of speaking ACP', () => {
  it('answers initialize with an error naming the problem, closes 1011, and reaps the agent', async () => {
    const recorder = recordingLogger();
    const server = await serveCommand(textAgent(['Agent starting up, please wait…']), {
      port: 0,
      logger: recorder.logger,
      terminateTimeoutMs: 500,
    });
    cleanup.add(() => server.close());
    const client = await RawClient.open(server.url);
    cleanup.add(() => client.close());
    client.send(initialize);
    const answer = await client.response(0);
    expect(answer.error).toEqual({
      code: RelayErrorCode.AgentNotSpeakingAcp,
      message:
        'The remote agent is not speaking ACP: it wrote text that is not JSON-RPC to stdout ("Agent starting up, ' +
        'please wait…") and did not answer initialize within 2 s. A stdio ACP agent must write only JSON-RPC to ' +
        "stdout and its logs to stderr; the server's log has more.",
      data: { reason: 'agent_not_speaking_acp', preview: 'Agent starting up, please wait…' },
    });
    expect(await client.closed).toEqual({
      code: CloseCode.InternalError,
      reason: 'the agent is not speaking ACP (see the server log)',
    });
    const warning = await recorder.waitFor(/not speaking ACP/);
    expect(warning.fields).toMatchObject({ preview: 'Agent starting up, please wait…', graceMs: 2_000 });
    await recorder.waitFor(/^connection closed$/);
    expect(server.connectionCount).toBe(0);
  });

  it('leaves an agent that answers initialize alone, whatever it printed before', async () => {
    const recorder = recordingLogger();
    const server = await serveCommand([process.execPath, ECHO_AGENT], {
      port: 0,
      logger: recorder.logger,
      env: { ECHO_AGENT_BANNER: 'Echo agent starting…' },
    });
    cleanup.add(() => server.close());
    const client = await RawClient.open(server.url);
    cleanup.add(() => client.close());
    client.send(initialize);
    expect((await client.response(0)).result).toBeDefined();
    client.send({ jsonrpc: '2.0', id: 1, method: '_vendor/pid', params: {} });
    const { pid } = (await client.response(1)).result;
    expect(processExists(pid)).toBe(true);
    expect(recorder.entries.some((entry) => /not speaking ACP/.test(entry.message))).toBe(false);
  });
});
