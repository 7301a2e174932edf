import { agent, client, methods, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { CloseCode, connectAcp, type RemoteServer, serveAcp } from '../src/index.js';
import { choiceAgent, choosingClient } from './support/choice-agent.js';
import { Cleanup, RawClient, recordingLogger } from './support/helpers.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** An agent whose closure counts prompts: shared state would show up as a count above 1. */
function countingAgent() {
  let prompts = 0;
  return choiceAgent({
    name: 'counting-agent',
    sessionId: () => 'session-1',
    reply: (choice) => {
      prompts += 1;
      return `prompts=${prompts} choice=${choice}`;
    },
  });
}

async function runClient(server: RemoteServer): Promise<string[]> {
  const remote = await connectAcp(server.url);
  cleanup.add(() => remote.close());
  const { connection, texts } = await choosingClient(remote.stream);
  await connection.agent.request(methods.agent.session.prompt, { sessionId: 'session-1', prompt: [] });
  return texts;
}

describe('serveAcp', () => {
  it('calls the factory once per WebSocket connection so no state is shared', async () => {
    let calls = 0;
    const server = await serveAcp(
      () => {
        calls += 1;
        return countingAgent();
      },
      { port: 0, logger: recordingLogger().logger },
    );
    cleanup.add(() => server.close());
    expect(await runClient(server)).toEqual(['prompts=1 choice=c0']);
    expect(await runClient(server)).toEqual(['prompts=1 choice=c0']);
    expect(calls).toBe(2);
  });

  it('accepts an async factory', async () => {
    const server = await serveAcp(async () => countingAgent(), { port: 0, logger: recordingLogger().logger });
    cleanup.add(() => server.close());
    expect(await runClient(server)).toEqual(['prompts=1 choice=c0']);
  });

  it('keeps the frames that arrive while an async factory is still building the agent', async () => {
    let releaseFactory: () => void = () => {};
    const factoryGate = new Promise<void>((resolve) => {
      releaseFactory = resolve;
    });
    const server = await serveAcp(
      async () => {
        await factoryGate;
        return countingAgent();
      },
      { port: 0, logger: recordingLogger().logger },
    );
    cleanup.add(() => server.close());
    const raw = await RawClient.open(server.url);
    cleanup.add(() => raw.close());
    raw.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION } });
    // ws answers a ping only after emitting the frames before it, so the pong proves the server has read the request.
    const pong = new Promise<void>((resolve) => raw.socket.once('pong', () => resolve()));
    raw.socket.ping();
    await pong;
    releaseFactory();
    expect((await raw.response(0)).result.protocolVersion).toBe(PROTOCOL_VERSION);
  });

  it('connects a plain agent app once per socket', async () => {
    const server = await serveAcp(countingAgent(), { port: 0, logger: recordingLogger().logger });
    cleanup.add(() => server.close());
    expect(await runClient(server)).toEqual(['prompts=1 choice=c0']);
    // A single app shares its closures across connections: that is why the factory form is preferred.
    expect(await runClient(server)).toEqual(['prompts=2 choice=c0']);
  });

  it('passes $/cancel_request through to the agent handler signal', async () => {
    const app = agent({ name: 'cancellable' }).onRequest('_test/wait', anyParams, async ({ signal }) => {
      await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      return {};
    });
    const server = await serveAcp(() => app, { port: 0, logger: recordingLogger().logger });
    cleanup.add(() => server.close());
    const raw = await RawClient.open(server.url);
    cleanup.add(() => raw.close());
    raw.send({ jsonrpc: '2.0', id: 0, method: '_test/wait', params: {} });
    raw.send({ jsonrpc: '2.0', method: '$/cancel_request', params: { requestId: 0 } });
    const response = await raw.response(0);
    expect(response.error.code).toBe(-32800);
  });

  it('answers garbage frames with JSON-RPC errors and closes binary frames with 1003', async () => {
    const server = await serveAcp(() => countingAgent(), { port: 0, logger: recordingLogger().logger });
    cleanup.add(() => server.close());
    const raw = await RawClient.open(server.url);
    cleanup.add(() => raw.close());
    raw.send('{oops');
    expect(await raw.next()).toMatchObject({ id: null, error: { code: -32700 } });
    raw.socket.send(Buffer.from('{}'), { binary: true });
    expect((await raw.closed).code).toBe(CloseCode.UnsupportedData);
  });

  it('closes the socket with 1011 when the factory throws, and keeps serving others', async () => {
    const recorder = recordingLogger();
    let fail = true;
    const server = await serveAcp(
      () => {
        if (fail) {
          fail = false;
          throw new Error('no agent for you');
        }
        return countingAgent();
      },
      { port: 0, logger: recorder.logger },
    );
    cleanup.add(() => server.close());
    const raw = await RawClient.open(server.url);
    expect((await raw.closed).code).toBe(CloseCode.InternalError);
    expect((await recorder.waitFor(/agent connection failed/)).fields?.error).toMatch(/no agent for you/);
    expect(await runClient(server)).toEqual(['prompts=1 choice=c0']);
  });

  it('closes open sockets with 1001 and ends agent connections on server close', async () => {
    let closedConnections = 0;
    const server = await serveAcp(
      () => {
        const app = countingAgent();
        return {
          connect(stream) {
            const connection = app.connect(stream);
            void connection.closed.then(() => {
              closedConnections += 1;
            });
            return connection;
          },
        };
      },
      { port: 0, logger: recordingLogger().logger },
    );
    const raw = await RawClient.open(server.url);
    raw.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION } });
    await raw.response(1);
    await server.close();
    expect((await raw.closed).code).toBe(CloseCode.GoingAway);
    expect(closedConnections).toBe(1);
  });

  it('surfaces wire errors from the agent as the SDK RequestError', async () => {
    const app = agent({ name: 'failing' }).onRequest('_test/fail', anyParams, () => {
      throw new RequestError(-32042, 'custom failure', { detail: 1 });
    });
    const server = await serveAcp(() => app, { port: 0, logger: recordingLogger().logger });
    cleanup.add(() => server.close());
    const remote = await connectAcp(server.url);
    cleanup.add(() => remote.close());
    const connection = client({ name: 'c' }).connect(remote.stream);
    const error = await connection.agent.request('_test/fail', {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({ code: -32042, message: 'custom failure', data: { detail: 1 } });
  });
});

/** A params parser that accepts anything (custom methods need one). */
function anyParams(value: unknown): Record<string, unknown> {
  return (value ?? {}) as Record<string, unknown>;
}
