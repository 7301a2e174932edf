// The behaviour every supported `ai` major must show, written once and run against each: ai 6 in-process
// (test/adapter-suite-ai6.test.ts) and ai 7 in an agent process on Node 22+ (tests/ai-sdk-v7). Assertions go through
// @acpkit/testing transcripts and, for cancellation and ordering, a plain SDK client. Each group opens one connection
// and plays several scenarios on it, so the ai 7 run costs a few process starts, not one per test.

import {
  answerFormWithScript,
  type FormScript,
  type TestClient,
  type TestClientOptions,
  type TurnTranscript,
} from '@acpkit/testing';
import {
  type AnyMessage,
  type ClientCapabilities,
  type ContentBlock,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionUpdate,
  type Stream,
  client as sdkClient,
} from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** How a suite reaches the scenario agent of one `ai` major. */
export interface ScenarioConnector {
  /** A test client on a fresh scenario agent built with `agentOptions` (JSON: it may cross a process boundary). */
  testClient(agentOptions: Record<string, unknown>, clientOptions: TestClientOptions): Promise<TestClient>;
  /** A raw message stream to a fresh scenario agent, for a plain SDK client. */
  rawStream(agentOptions: Record<string, unknown>): Promise<{ stream: Stream; close(): Promise<void> }>;
}

type Answerer = (
  request: CreateElicitationRequest,
  context: { readonly signal: AbortSignal },
) => CreateElicitationResponse | Promise<CreateElicitationResponse>;
type Permissions = (
  request: RequestPermissionRequest,
) => RequestPermissionResponse | Promise<RequestPermissionResponse>;

/** A test client whose answers and permission choices each test sets. */
class ScenarioClient {
  client!: TestClient;
  answer: Answerer = () => ({ action: 'cancel' });
  permit: Permissions = () => ({ outcome: { outcome: 'cancelled' } });

  async open(connector: ScenarioConnector, agentOptions = {}, clientCapabilities?: ClientCapabilities) {
    this.client = await connector.testClient(agentOptions, {
      answers: (request, context) => this.answer(request, context),
      permissions: (request) => this.permit(request),
      ...(clientCapabilities === undefined ? {} : { clientCapabilities }),
    });
  }

  /** Answers the next forms with `scripts`, in order (the `acpkit client --answers` rules). */
  scripted(...scripts: FormScript[]): void {
    const queue = [...scripts];
    this.answer = (request) => {
      const script = queue.shift();
      if (script === undefined) throw new Error('no scripted answer left');
      const answer = answerFormWithScript(request as Parameters<typeof answerFormWithScript>[0], script);
      return answer.action === 'accept'
        ? { action: 'accept', content: answer.content }
        : { action: answer.action };
    };
  }

  choose(optionId: string): void {
    this.permit = () => ({ outcome: { outcome: 'selected', optionId } });
  }
}

function updatesOf(turn: TurnTranscript, kind: SessionUpdate['sessionUpdate']): SessionUpdate[] {
  return turn.updates.filter((update) => update.sessionUpdate === kind);
}

function chunkTexts(turn: TurnTranscript, kind: 'agent_message_chunk' | 'agent_thought_chunk'): string[] {
  return updatesOf(turn, kind).map((update) =>
    'content' in update && !Array.isArray(update.content) && update.content?.type === 'text'
      ? update.content.text
      : '',
  );
}

/** The tool-call updates of a turn, as `[toolCallId, status]` pairs in order. */
function toolStatuses(turn: TurnTranscript): Array<[string, string | null | undefined]> {
  return turn.updates
    .filter((update) => update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update')
    .map((update) => [
      (update as { toolCallId: string }).toolCallId,
      (update as { status?: string | null }).status,
    ]);
}

async function rejection(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RequestError);
    return error as RequestError;
  }
  throw new Error('expected the prompt to fail');
}

/** What the scripted model observed so far (its `report` scenario). */
async function report(session: ScenarioClient): Promise<string> {
  return (await session.client.prompt('report')).text;
}

/** Registers the adapter's behaviour tests against `connector`. */
export function describeAdapterSuite(label: string, connector: ScenarioConnector): void {
  describe(`${label}: the editor's world (plan, usage, modes, commands)`, () => {
    const session = new ScenarioClient();
    beforeAll(async () => {
      await session.open(connector, { editorWorld: true });
    });
    afterAll(async () => {
      await session.client.close();
    });

    it('offers modes, sends plan and usage updates, switches the mode (system prompt and tools), runs a command', async () => {
      expect(session.client.session.modes?.availableModes.map((mode) => mode.id)).toEqual(['code', 'ask']);
      const planned = await session.client.prompt('plan');
      expect(planned.plan).toEqual([{ content: 'Look it up', priority: 'medium', status: 'in_progress' }]);
      expect(planned.usage).toMatchObject({ sessionUpdate: 'usage_update', used: 15, size: 1_000 });
      expect(updatesOf(planned, 'tool_call')[0]).toMatchObject({ toolCallId: 'call-plan', kind: 'think' });
      await session.client.agent.request('session/set_mode', {
        sessionId: session.client.sessionId,
        modeId: 'ask',
      });
      expect((await session.client.prompt('tools')).text).toBe('system=ask system tools=lookup');
      expect((await session.client.prompt('/echo hi')).text).toBe('echo: hi');
    });
  });

  describe(`${label}: a client with form elicitation`, () => {
    const session = new ScenarioClient();
    beforeAll(async () => {
      await session.open(connector);
    });
    afterAll(async () => {
      await session.client?.close();
    });

    it('advertises what it does: agent info, loadSession with the default store, text and embedded context only', () => {
      expect(session.client.initialize).toMatchObject({
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: 'scenario-agent', title: 'Scenario agent', version: '1.0.0' },
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: false, audio: false, embeddedContext: true },
        },
      });
    });

    it('streams reasoning as agent_thought_chunk and text as agent_message_chunk, chunk by chunk', async () => {
      const turn = await session.client.prompt('hello');
      expect(turn.stopReason).toBe('end_turn');
      expect(chunkTexts(turn, 'agent_thought_chunk')).toEqual(['Thinking ', 'it over.']);
      expect(chunkTexts(turn, 'agent_message_chunk')).toEqual(['Hello', ', ', 'world!']);
      expect(turn.updates.map((update) => update.sessionUpdate)).toEqual([
        'agent_thought_chunk',
        'agent_thought_chunk',
        'agent_message_chunk',
        'agent_message_chunk',
        'agent_message_chunk',
        // The store saved the turn: the session's title and updatedAt.
        'session_info_update',
      ]);
    });

    it('shows a tool call as tool_call (title, kind by the name convention, raw input) then tool_call_update completed with its output', async () => {
      const turn = await session.client.prompt('lookup');
      expect(updatesOf(turn, 'tool_call')).toEqual([
        {
          sessionUpdate: 'tool_call',
          toolCallId: 'call-lookup',
          title: 'lookup',
          kind: 'search',
          status: 'in_progress',
          rawInput: { query: 'release notes' },
        },
      ]);
      expect(updatesOf(turn, 'tool_call_update')).toEqual([
        {
          sessionUpdate: 'tool_call_update',
          toolCallId: 'call-lookup',
          status: 'completed',
          content: [{ type: 'content', content: { type: 'text', text: '3 results for release notes' } }],
          rawOutput: '3 results for release notes',
        },
      ]);
      expect(turn.text).toBe('Lookup said: "3 results for release notes"');
      expect(turn.stopReason).toBe('end_turn');
    });

    it('keeps the history and sends the system prompt on every call', async () => {
      const first = await session.client.prompt('history');
      const second = await session.client.prompt('history');
      const count = (text: string) => Number(/user messages=(\d+)/.exec(text)?.[1]);
      expect(first.text).toContain('system=You are the scenario agent.');
      expect(second.text).toContain('system=You are the scenario agent.');
      expect(count(second.text)).toBe(count(first.text) + 1);
    });

    it('asks permission for a needsApproval tool with the same toolCallId; allow once runs it and asks again next time', async () => {
      session.choose('allow_once');
      const turn = await session.client.prompt('deploy');
      const [call] = updatesOf(turn, 'tool_call') as Array<{ toolCallId: string }>;
      expect(turn.permissions).toHaveLength(1);
      const request = turn.permissions[0]?.request;
      expect(request?.toolCall).toMatchObject({
        toolCallId: call?.toolCallId,
        // The permission request names the tool and a short form of its arguments.
        title: 'Deploy the service (environment="production")',
        status: 'pending',
        rawInput: { environment: 'production' },
      });
      expect(request?.options.map((option) => [option.optionId, option.kind])).toEqual([
        ['allow_once', 'allow_once'],
        ['allow_always', 'allow_always'],
        ['reject_once', 'reject_once'],
      ]);
      expect(toolStatuses(turn)).toEqual([
        [call?.toolCallId, 'pending'],
        [call?.toolCallId, 'in_progress'],
        [call?.toolCallId, 'completed'],
      ]);
      expect(turn.text).toBe('Deploy: {"deployed":"production"}');
      const again = await session.client.prompt('deploy');
      expect(again.permissions).toHaveLength(1);
      expect(await report(session)).toContain('deploy ran (production), deploy ran (production)');
    });

    it('never runs a rejected call and tells the model it was rejected', async () => {
      session.choose('reject_once');
      const before = await report(session);
      const turn = await session.client.prompt('deploy');
      const [call] = updatesOf(turn, 'tool_call') as Array<{ toolCallId: string }>;
      expect(toolStatuses(turn)).toEqual([
        [call?.toolCallId, 'pending'],
        [call?.toolCallId, 'failed'],
      ]);
      expect(turn.text).toBe('Deploy: denied (The user rejected this tool call; it did not run.)');
      expect(turn.stopReason).toBe('end_turn');
      expect((await report(session)).match(/deploy ran/g)).toEqual(before.match(/deploy ran/g));
    });

    it('lets the model ask a choice (askChoice) and gives it the picked option', async () => {
      session.scripted({ Choice: 'Production' });
      const turn = await session.client.prompt('ask-choice');
      expect(turn.elicitations).toHaveLength(1);
      expect(turn.elicitations[0]?.request).toMatchObject({
        mode: 'form',
        message: 'Which environment?',
        toolCallId: 'call-ask',
      });
      expect(updatesOf(turn, 'tool_call')[0]).toMatchObject({ title: 'Ask: Which environment?' });
      expect(turn.text).toBe('Let me ask. Answer: {"status":"accepted","answer":"Production"}');
    });

    it('lets the model ask for text (askText); declined and cancelled answers reach it as such', async () => {
      session.scripted({ Answer: 'r-2026' }, 'decline', 'cancel');
      expect((await session.client.prompt('ask-text')).text).toBe(
        'Answer: {"status":"accepted","answer":"r-2026"}',
      );
      expect((await session.client.prompt('ask-text')).text).toMatch(
        /^Answer: \{"status":"declined","message":"/,
      );
      expect((await session.client.prompt('ask-text')).text).toMatch(
        /^Answer: \{"status":"cancelled","message":"/,
      );
    });

    it('lets the model ask for a form compiled from a zod schema (askForm) and gives it the typed value', async () => {
      session.scripted({ Region: 'eu' });
      const turn = await session.client.prompt('form');
      expect(turn.elicitations[0]?.request).toMatchObject({
        message: 'Choose the rollout settings.',
        toolCallId: 'call-form',
      });
      expect(turn.text).toBe('Form: {"status":"accepted","answer":{"replicas":2,"region":"eu"}}');
    });

    it('maps finish reasons: the step limit is max_turn_requests, length max_tokens, content-filter refusal', async () => {
      const loop = await session.client.prompt('loop');
      expect(loop.stopReason).toBe('max_turn_requests');
      expect(toolStatuses(loop).filter(([, status]) => status === 'completed')).toHaveLength(4);
      expect((await session.client.prompt('length')).stopReason).toBe('max_tokens');
      expect((await session.client.prompt('refuse')).stopReason).toBe('refusal');
    });

    it("fails the prompt with a JSON-RPC error carrying the provider's message; the session stays usable", async () => {
      const thrown = await rejection(session.client.prompt('provider-error'));
      expect(thrown.code).toBe(-32603);
      expect(thrown.message).toContain('Rate limit exceeded: 3 requests per minute.');
      expect(thrown.data).toMatchObject({ statusCode: 429, isRetryable: false });
      expect(JSON.stringify(thrown.data)).not.toContain('never shown');
      const streamed = await rejection(session.client.prompt('stream-error'));
      expect(streamed.message).toContain('The model is overloaded.');
      expect((await session.client.prompt('hello')).stopReason).toBe('end_turn');
    });

    it('allow always is remembered for the session: the next call of that tool runs without asking', async () => {
      session.choose('allow_always');
      const first = await session.client.prompt('deploy');
      expect(first.permissions).toHaveLength(1);
      session.permit = () => {
        throw new Error('no permission request expected');
      };
      const second = await session.client.prompt('deploy');
      expect(second.permissions).toHaveLength(0);
      expect(second.text).toBe('Deploy: {"deployed":"production"}');
    });

    it('replays the session on session/load', async () => {
      const before = session.client.transcript.length;
      await session.client.agent.request(methods.agent.session.load, {
        sessionId: session.client.sessionId,
        cwd: process.cwd(),
        mcpServers: [],
      });
      const replayed = session.client.transcript
        .slice(before)
        .flatMap((event) => (event.kind === 'session-update' ? [event.update] : []));
      const userTexts = replayed.flatMap((update) =>
        update.sessionUpdate === 'user_message_chunk' && update.content.type === 'text'
          ? [update.content.text]
          : [],
      );
      expect(userTexts.slice(0, 3)).toEqual(['hello', 'lookup', 'history']);
      // Streamed chunks come back joined, one entry per message.
      expect(replayed).toContainEqual({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: 'Hello, world!' },
      });
      expect(replayed.filter((update) => update.sessionUpdate === 'tool_call').length).toBeGreaterThan(4);
    });
  });

  describe(`${label}: cancellation`, () => {
    const session = new ScenarioClient();
    beforeAll(async () => {
      await session.open(connector);
    });
    afterAll(async () => {
      await session.client?.close();
    });

    it('session/cancel during a permission request ends the turn cancelled; the tool never runs; the next prompt works', async () => {
      session.permit = () => {
        void session.client.cancel();
        // Like a client that never answers: the agent must stop waiting on its own.
        return new Promise(() => undefined);
      };
      const turn = await session.client.prompt('deploy');
      expect(turn.stopReason).toBe('cancelled');
      const [call] = updatesOf(turn, 'tool_call') as Array<{ toolCallId: string }>;
      expect(toolStatuses(turn).at(-1)).toEqual([call?.toolCallId, 'failed']);
      expect(await report(session)).not.toContain('deploy ran');
      expect((await session.client.prompt('hello')).stopReason).toBe('end_turn');
    });

    it('session/cancel during a question ends the turn cancelled; the next prompt works', async () => {
      session.answer = async (_request, { signal }) => {
        void session.client.cancel();
        return new Promise((resolve) =>
          signal.addEventListener('abort', () => resolve({ action: 'cancel' }), { once: true }),
        );
      };
      const turn = await session.client.prompt('ask-choice');
      expect(turn.stopReason).toBe('cancelled');
      expect(turn.elicitations).toHaveLength(1);
      expect((await session.client.prompt('history')).stopReason).toBe('end_turn');
    });
  });

  describe(`${label}: a client without form elicitation, an agent without a session store`, () => {
    const session = new ScenarioClient();
    beforeAll(async () => {
      await session.open(connector, { sessionStore: null }, {});
    });
    afterAll(async () => {
      await session.client?.close();
    });

    it('gives the model an "unsupported" result instead of an error; no form is sent', async () => {
      const turn = await session.client.prompt('ask-choice');
      expect(turn.elicitations).toHaveLength(0);
      expect(turn.text).toMatch(
        /^Let me ask\. Answer: \{"status":"unsupported","message":"The user's ACP client cannot show/,
      );
      expect(turn.stopReason).toBe('end_turn');
    });

    it('does not advertise loadSession, and session/load is not a method', async () => {
      expect(session.client.initialize.agentCapabilities?.loadSession).toBe(false);
      const thrown = await rejection(
        session.client.agent.request(methods.agent.session.load, {
          sessionId: session.client.sessionId,
          cwd: process.cwd(),
          mcpServers: [],
        }),
      );
      expect(thrown.code).toBe(-32601);
      expect((await session.client.prompt('hello')).text).toBe('Hello, world!');
    });
  });

  describe(`${label}: a plain SDK client`, () => {
    it('session/cancel aborts a stalled model call: the prompt returns cancelled after its updates, and the session goes on', async () => {
      const { stream, close } = await connector.rawStream({});
      const received: AnyMessage[] = [];
      let firstChunk: () => void = () => undefined;
      const streaming = new Promise<void>((resolve) => {
        firstChunk = resolve;
      });
      const recorded: Stream = {
        readable: stream.readable.pipeThrough(
          new TransformStream<AnyMessage, AnyMessage>({
            transform(message, controller) {
              received.push(message);
              controller.enqueue(message);
            },
          }),
        ),
        writable: stream.writable,
      };
      const texts: string[] = [];
      const connection = sdkClient({ name: 'plain-client' })
        .onRequest(methods.client.elicitation.create, () => ({
          action: 'accept',
          content: { choice: 'choice_1' },
        }))
        .onRequest(methods.client.session.requestPermission, () => ({
          outcome: { outcome: 'selected', optionId: 'allow_once' },
        }))
        .onNotification(methods.client.session.update, ({ params }) => {
          if (
            params.update.sessionUpdate === 'agent_message_chunk' &&
            params.update.content.type === 'text'
          ) {
            texts.push(params.update.content.text);
            firstChunk();
          }
        })
        .connect(recorded);
      try {
        await connection.agent.request(methods.agent.initialize, {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: { elicitation: { form: {} } },
        });
        const { sessionId } = await connection.agent.request(methods.agent.session.new, {
          cwd: process.cwd(),
          mcpServers: [],
        });
        const prompt = (text: string, blocks: ContentBlock[] = [{ type: 'text', text }]) =>
          connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: blocks });

        const stalled = prompt('stall');
        await streaming;
        await connection.agent.notify(methods.agent.session.cancel, { sessionId });
        expect(await stalled).toEqual({ stopReason: 'cancelled' });
        expect(texts).toEqual(['Working on it']);

        const answered = await prompt('report');
        expect(answered.stopReason).toBe('end_turn');
        expect(texts.at(-1)).toContain('model call aborted');
        // Every update of a turn is on the wire before its response.
        const lastResponse = received.findLastIndex((message) => 'result' in message);
        const lastUpdate = received.findLastIndex(
          (message) => 'method' in message && message.method === methods.client.session.update,
        );
        expect(lastUpdate).toBeLessThan(lastResponse);

        // A tool's tool_call is on the wire after the text the model wrote before calling it, and before the
        // question the tool asks or its permission request.
        const position = (found: (message: AnyMessage) => boolean) => received.findIndex(found);
        const toolCall = (toolCallId: string) => (message: AnyMessage) => {
          if (!('method' in message) || message.method !== methods.client.session.update) return false;
          const { update } = message.params as { update: { sessionUpdate: string; toolCallId?: string } };
          return update.sessionUpdate === 'tool_call' && update.toolCallId?.startsWith(toolCallId) === true;
        };
        const requestOf = (method: string) => (message: AnyMessage) =>
          'method' in message && 'id' in message && message.method === method;
        expect((await prompt('ask-choice')).stopReason).toBe('end_turn');
        expect(position(toolCall('call-ask'))).toBeGreaterThan(
          received.findLastIndex(
            (message) =>
              'method' in message &&
              JSON.stringify(message.params).includes('"text":"ask. "') &&
              message.method === methods.client.session.update,
          ),
        );
        expect(texts.slice(-3)).toEqual([
          'Let me ',
          'ask. ',
          'Answer: {"status":"accepted","answer":"Production"}',
        ]);
        expect(position(toolCall('call-ask'))).toBeLessThan(
          position(requestOf(methods.client.elicitation.create)),
        );
        expect((await prompt('deploy')).stopReason).toBe('end_turn');
        expect(position(toolCall('call-deploy-'))).toBeGreaterThan(-1);
        expect(position(toolCall('call-deploy-'))).toBeLessThan(
          position(requestOf(methods.client.session.requestPermission)),
        );

        const image = await rejection(
          prompt('', [
            { type: 'text', text: 'hello' },
            { type: 'image', data: 'aGk=', mimeType: 'image/png' },
          ]),
        );
        expect(image.code).toBe(-32602);
        expect(image.message).toContain('does not take image input');
      } finally {
        connection.close();
        await close();
      }
    });
  });
}
