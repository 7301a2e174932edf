// What one peer can make a server hold (issue 19, items 2-4): answers that wait behind a client that never
// acknowledges, requests that wait for a client that never answers the agent, and sessions parked for a resume.
// Each bound is a count the server keeps: the tests flood past it and check the count, not the process's memory.
import { agent, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  RemoteDefaults,
  type RemoteServer,
  type ServeOptions,
  serveAcp,
  serveCommand,
} from '../src/index.js';
import {
  Cleanup,
  ECHO_AGENT,
  processExists,
  RawClient,
  rawRequest,
  recordingLogger,
} from './support/helpers.js';
import { parseMetrics, sampleValue } from './support/prometheus.js';
import { ResumeWireClient } from './support/resume-client.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** The documented default bounds these tests flood past. */
const MAX_PENDING_REQUESTS = RemoteDefaults.maxPendingRequests;
const MAX_DETACHED_SESSIONS = RemoteDefaults.maxDetachedSessions;

/** Prompts an agent handled, and a wait for a number of them. */
class PromptCount {
  prompts = 0;
  private readonly waiters = new Map<number, () => void>();
  add(): void {
    this.prompts += 1;
    this.waiters.get(this.prompts)?.();
  }
  reached(count: number): Promise<void> {
    if (this.prompts >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(count, resolve));
  }
}

/**
 * An SDK agent app that counts the prompts it handled. `ask`: each prompt asks the client a form first (and waits
 * for the answer); otherwise it ends the turn at once.
 */
function countingAgent(options: { ask: boolean }) {
  const handled = new PromptCount();
  const factory = () =>
    agent({ name: 'counting-agent' })
      .onRequest(methods.agent.initialize, () => ({
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {},
      }))
      .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
        handled.add();
        if (options.ask) {
          await client.request(methods.client.elicitation.create, {
            sessionId: params.sessionId,
            mode: 'form',
            message: 'Pick one',
            requestedSchema: {
              type: 'object',
              required: ['choice'],
              properties: { choice: { type: 'string', oneOf: [{ const: 'c0', title: 'Red' }] } },
            },
          });
        }
        return { stopReason: 'end_turn' };
      });
  return { handled, factory };
}

async function startServer(factory: () => ReturnType<typeof agent>, options: ServeOptions = {}) {
  const recorder = recordingLogger();
  // biome-ignore lint/suspicious/noExplicitAny: the SDK's AgentApp satisfies ConnectableAgentApp
  const server = await serveAcp(factory as any, { port: 0, logger: recorder.logger, ...options });
  cleanup.add(() => server.close());
  return { server, recorder };
}

const prompt = (id: number) => ({ sessionId: 's', prompt: [{ type: 'text', text: `prompt ${id}` }] });

describe('a client that reads everything, never acknowledges, and floods prompts (item 2)', () => {
  it('gets every answer, while the server holds no more than its bounds', async () => {
    const { handled, factory } = countingAgent({ ask: false });
    const recorder = recordingLogger();
    const bufferBytes = 4 * 1024;
    const maxMessageBytes = 4 * 1024;
    const server = await serveAcp(factory as never, {
      port: 0,
      logger: recorder.logger,
      metrics: true,
      resumeBufferBytes: bufferBytes,
      maxMessageBytes,
      // Off here: the flood must not race the stall guard (the next test closes such a client).
      stallTimeoutMs: 0,
    });
    cleanup.add(() => server.close());
    const client = await ResumeWireClient.open(server.url);
    cleanup.add(() => client.socket.terminate());
    await client.welcome();
    client.request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
    await client.response(0);

    const flood = 1_000;
    for (let id = 1; id <= flood; id += 1) client.request(id, 'session/prompt', prompt(id));
    // Every prompt is answered: nothing waits for an acknowledgement that never comes (on main, the answers stopped
    // once the replay buffer was full and 4,192 of 5,000 prompts were held past their answers).
    await client.until(() => client.received === flood + 1);
    // Each prompt got one answer: the agent's, or (past 256 waiting at once) the server's refusal.
    const answers = client.messages().slice(1);
    const refused = answers.filter((answer) => answer.error?.data?.reason === 'too_many_pending_requests');
    expect(new Set(answers.map((answer) => answer.id)).size).toBe(flood);
    expect(handled.prompts + refused.length).toBe(flood);
    expect(answers.filter((answer) => answer.result !== undefined)).toHaveLength(handled.prompts);
    const metrics = parseMetrics((await rawRequest(server.port, '/metrics', {})).body);
    // The replay buffer stayed within its bound (the limit plus one message) by dropping what was never acknowledged.
    expect(sampleValue(metrics, 'acpremote_buffered_bytes', { buffer: 'replay' })).toBeLessThanOrEqual(
      bufferBytes + maxMessageBytes,
    );
    expect(sampleValue(metrics, 'acpremote_limits_reached_total', { limit: 'replay_buffer' })).toBe(1);
    expect(sampleValue(metrics, 'acpremote_pending_requests')).toBe(0);
    await recorder.waitFor(/replay buffer over its bound/);
  });

  it('is closed with 1008 and a reason both sides log once it acknowledged nothing for stallTimeoutMs', async () => {
    const { factory } = countingAgent({ ask: false });
    const { server, recorder } = await startServer(factory, { stallTimeoutMs: 300 });
    const client = await ResumeWireClient.open(server.url);
    cleanup.add(() => client.socket.terminate());
    await client.welcome();
    client.request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
    await client.response(0);
    expect(await client.closed).toEqual({
      code: 1008,
      reason: expect.stringMatching(/^no progress: the peer acknowledged nothing for \d+ ms$/),
    });
    const logged = await recorder.waitFor(/acknowledged nothing/);
    expect(logged).toMatchObject({
      level: 'warn',
      message: 'connection closed: no progress, the client acknowledged nothing it received',
    });
    // A close frame ends the session: nothing is kept for a resume.
    await recorder.waitFor(/^connection closed$/);
    expect(server.detachedCount).toBe(0);
  });
});

describe('a client that floods prompts and never answers the agent’s questions (item 3)', () => {
  it('gets a JSON-RPC error for each request past the pending-request bound', async () => {
    const { handled, factory } = countingAgent({ ask: true });
    const { server } = await startServer(factory);
    const client = await RawClient.open(server.url);
    cleanup.add(() => client.socket.terminate());
    client.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
    await client.response(0);

    const flood = MAX_PENDING_REQUESTS + 20;
    for (let id = 1; id <= flood; id += 1)
      client.send({ jsonrpc: '2.0', id, method: 'session/prompt', params: prompt(id) });
    // Every prompt earns one message: the agent's question, or an error answer from the server.
    const questions: unknown[] = [];
    const refusals: Array<{ id: number; error: { code: number; message: string } }> = [];
    while (questions.length + refusals.length < flood) {
      const message = await client.next();
      if (message.method === 'elicitation/create') questions.push(message);
      else if (message.error !== undefined) refusals.push(message);
    }
    expect(questions).toHaveLength(MAX_PENDING_REQUESTS);
    expect(handled.prompts).toBe(MAX_PENDING_REQUESTS);
    expect(refusals.map((refusal) => refusal.id)).toEqual(
      Array.from({ length: 20 }, (_, index) => MAX_PENDING_REQUESTS + 1 + index),
    );
    expect(refusals[0]?.error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/requests waiting for an answer/),
      data: { reason: 'too_many_pending_requests', maxPendingRequests: MAX_PENDING_REQUESTS },
    });
    // An answered question ends its turn and frees a place: the next prompt reaches the agent again.
    const first = questions[0] as { id: number };
    client.send({ jsonrpc: '2.0', id: first.id, result: { action: 'cancel' } });
    await client.next((message) => message.id === 1 && message.result !== undefined);
    client.send({ jsonrpc: '2.0', id: 'again', method: 'session/prompt', params: prompt(0) });
    expect((await client.next((message) => message.method === 'elicitation/create')).method).toBe(
      'elicitation/create',
    );
    expect(handled.prompts).toBe(MAX_PENDING_REQUESTS + 1);
  });
});

/** Opens a resumable session, has its `initialize` answered, and drops it without a close frame. */
async function parkSession(server: RemoteServer): Promise<string> {
  const client = await ResumeWireClient.open(server.url);
  const welcome = await client.welcome();
  client.request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
  await client.response(0);
  client.socket.terminate();
  await client.closed;
  return String(welcome.token);
}

describe('sessions parked for a resume (item 4)', () => {
  it('keeps at most the default number of detached sessions', async () => {
    const { factory } = countingAgent({ ask: false });
    const { server, recorder } = await startServer(factory);
    const parked = MAX_DETACHED_SESSIONS + 6;
    const tokens: string[] = [];
    for (let index = 0; index < parked; index += 1) tokens.push(await parkSession(server));
    await recorder.waitForCount(/session kept for resume/, parked);
    expect(server.detachedCount).toBe(MAX_DETACHED_SESSIONS);
    // The oldest were ended to make room; the newest can still be resumed.
    const resume = (token: string) =>
      rawRequest(
        server.port,
        server.paths.websocket,
        {
          'Sec-WebSocket-Protocol': 'acpkit.resume.v1',
          'Acpkit-Resume-Token': token,
          'Acpkit-Resume-Received': '1',
        },
        { upgrade: true },
      );
    expect((await resume(tokens[0]!)).headers['acpkit-resume-refused']).toBe('ended');
    expect((await resume(tokens[parked - 1]!)).status).toBe(101);
  });

  it('ends the oldest detached session and reaps its agent when one more would exceed maxDetachedSessions', async () => {
    const recorder = recordingLogger();
    const server = await serveCommand([process.execPath, ECHO_AGENT], {
      port: 0,
      logger: recorder.logger,
      maxDetachedSessions: 1,
      terminateTimeoutMs: 1_000,
    });
    cleanup.add(() => server.close());
    const pids: number[] = [];
    for (let index = 0; index < 2; index += 1) {
      const client = await ResumeWireClient.open(server.url);
      await client.welcome();
      client.request(0, 'initialize', { protocolVersion: 1, clientCapabilities: {} });
      await client.response(0);
      client.request(1, '_vendor/pid', {});
      pids.push((await client.response(1)).result.pid);
      client.socket.terminate();
      await recorder.waitForCount(/session kept for resume/, index + 1);
    }
    const ended = await recorder.waitFor(/detached session ended to make room/);
    expect(ended.fields).toMatchObject({ maxDetachedSessions: 1 });
    await recorder.waitForCount(/^connection closed$/, 1);
    expect(server.detachedCount).toBe(1);
    expect(processExists(pids[0]!)).toBe(false);
    expect(processExists(pids[1]!)).toBe(true);
  });
});
