// A scripted ai 6 model for the editor-world tests (a function of the call picks the parts), and a plain SDK client
// over a wire pair that records every session/update and answers fs/*, terminal/* and permissions as a test says.
import {
  type AgentApp,
  type ClientCapabilities,
  methods,
  PROTOCOL_VERSION,
  type SessionNotification,
  type SessionUpdate,
  client as sdkClient,
} from '@agentclientprotocol/sdk';
import { MockLanguageModelV3 } from 'ai/test';
import { connectApp } from './ai6.js';
import type { ModelCall, ProviderPart } from './scenario-agent.js';

import { finish, text } from './scenario-agent.js';

export { finish, text, toolCall } from './scenario-agent.js';

/** One call as a script sees it: the call, and how many model calls this model answered before. */
export type Script = (call: ModelCall, index: number) => readonly ProviderPart[];

/** A mock model answering with `script`; `calls` keeps what it was asked. */
export function scriptedModel(
  script: Script,
  modelId = 'scripted',
): MockLanguageModelV3 & { calls: ModelCall[] } {
  const calls: ModelCall[] = [];
  const model = new MockLanguageModelV3({
    modelId,
    doStream: async (call) => {
      calls.push(call as unknown as ModelCall);
      const parts = script(call as unknown as ModelCall, calls.length - 1);
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part as never);
            controller.close();
          },
        }),
      };
    },
  });
  return Object.assign(model, { calls });
}

/** The number of tool results in a call's prompt (the step of a turn that uses tools). */
export function toolResultCount(call: ModelCall): number {
  return call.prompt.filter((message) => message.role === 'tool').length;
}

/** The last tool result's output value in a call's prompt. */
export function lastToolOutput(call: ModelCall): unknown {
  for (const message of [...call.prompt].reverse()) {
    if (message.role !== 'tool' || typeof message.content === 'string') continue;
    const part = [...message.content].reverse().find((candidate) => candidate.type === 'tool-result');
    if (part !== undefined) return part.output?.value ?? part.output;
  }
  return undefined;
}

/** A model that makes `calls` (one tool call per step), then says what the last tool returned. */
export function steps(...calls: ProviderPart[]) {
  return scriptedModel((call) => {
    const next = calls[toolResultCount(call)];
    if (next !== undefined) return [next, finish('tool-calls')];
    return [...text(`last: ${JSON.stringify(lastToolOutput(call))}`), finish('stop')];
  });
}

/** Client-side request handlers a test may give. */
export interface ClientHandlers {
  readonly capabilities?: ClientCapabilities;
  readonly requests?: Record<string, (params: never, context: { signal: AbortSignal }) => unknown>;
  readonly permission?: (params: { toolCall: { title?: string | null } }) => string;
}

/** A plain SDK client on `app` (wire pair): records updates, answers requests with `handlers`. */
export async function sdkSession(app: AgentApp, handlers: ClientHandlers = {}) {
  const { stream, close } = connectApp(app);
  const updates: SessionUpdate[] = [];
  const requests: Array<{ method: string; params: unknown }> = [];
  let builder = sdkClient({ name: 'editor-world-test' })
    .onNotification(methods.client.session.update, ({ params }: { params: SessionNotification }) => {
      updates.push(params.update);
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      requests.push({ method: 'session/request_permission', params });
      const optionId = handlers.permission?.(params as never) ?? 'allow_once';
      return { outcome: { outcome: 'selected', optionId } };
    });
  for (const [method, handler] of Object.entries(handlers.requests ?? {})) {
    builder = builder.onRequest(
      method as never,
      ((context: { params: never; signal: AbortSignal }) => {
        requests.push({ method, params: context.params });
        return handler(context.params, { signal: context.signal });
      }) as never,
    );
  }
  const connection = builder.connect(stream);
  const agent = connection.agent;
  const initialize = await agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: handlers.capabilities ?? {},
  });
  return {
    agent,
    initialize,
    updates,
    requests,
    /** Updates of one kind, in order. */
    of<K extends SessionUpdate['sessionUpdate']>(
      kind: K,
    ): Array<Extract<SessionUpdate, { sessionUpdate: K }>> {
      return updates.filter((update) => update.sessionUpdate === kind) as never;
    },
    async prompt(sessionId: string, text: string) {
      return agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
    },
    /** The last update but the `session_info_update` (title, updatedAt) that ends every saved turn. */
    lastReply(): SessionUpdate | undefined {
      return updates.filter((update) => update.sessionUpdate !== 'session_info_update').at(-1);
    },
    /** Resolves once an update matches (updates after a response arrive a macrotask later). */
    async waitFor(predicate: (update: SessionUpdate) => boolean, timeoutMs = 10_000): Promise<SessionUpdate> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = updates.find(predicate);
        if (found !== undefined) return found;
        if (Date.now() > deadline) {
          throw new Error(
            `no matching update within ${timeoutMs} ms; got: ${JSON.stringify(updates.slice(-5))}`,
          );
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    async close() {
      connection.close();
      await close();
    },
  };
}
