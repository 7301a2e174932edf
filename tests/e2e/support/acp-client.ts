import { Readable, Writable } from 'node:stream';
import {
  type ClientConnection,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type SessionNotification,
  type Stream,
} from '@agentclientprotocol/sdk';
import type { SpawnedProcess } from './processes.js';

/** How the test client answers `elicitation/create`. */
export type ElicitationAnswerer = (
  request: CreateElicitationRequest,
) => CreateElicitationResponse | Promise<CreateElicitationResponse>;

/** Accepts the single-choice option whose title is `title` (fails the request if it is not offered). */
export function acceptChoiceTitled(
  title: string,
): (request: CreateElicitationRequest) => CreateElicitationResponse {
  return (request) => {
    const schema = (request as { requestedSchema?: { properties?: Record<string, { oneOf?: unknown[] }> } })
      .requestedSchema;
    for (const [field, property] of Object.entries(schema?.properties ?? {})) {
      const option = (property.oneOf ?? []).find(
        (candidate): candidate is { const: string; title: string } =>
          typeof candidate === 'object' &&
          candidate !== null &&
          (candidate as { title?: unknown }).title === title,
      );
      if (option) return { action: 'accept', content: { [field]: option.const } };
    }
    throw new Error(`no option titled ${JSON.stringify(title)} in ${JSON.stringify(schema)}`);
  };
}

/** Declines every elicitation. */
export const declineElicitation: ElicitationAnswerer = () => ({ action: 'decline' });
/** Cancels (dismisses) every elicitation. */
export const cancelElicitation: ElicitationAnswerer = () => ({ action: 'cancel' });

/** A connected SDK client plus what it observed. */
export interface TestClient {
  readonly connection: ClientConnection;
  /** Every `elicitation/create` params received, in order. */
  readonly elicitations: CreateElicitationRequest[];
  /** Every `session/update` params received, in order (with `_meta`, as relayed). */
  readonly updates: SessionNotification[];
  /** Concatenated text of every `agent_message_chunk` received. */
  agentText(): string;
}

/** A real SDK client app, advertising form elicitation, connected to `stream`. */
export function connectTestClient(stream: Stream, answer: ElicitationAnswerer): TestClient {
  const elicitations: CreateElicitationRequest[] = [];
  const updates: SessionNotification[] = [];
  let text = '';
  const app = client({ name: 'acpkit-e2e-client' })
    .onRequest(methods.client.elicitation.create, ({ params }) => {
      elicitations.push(params);
      return answer(params);
    })
    .onNotification(methods.client.session.update, ({ params }) => {
      updates.push(params);
      const update = params.update as { sessionUpdate?: string; content?: { type?: string; text?: string } };
      if (update.sessionUpdate === 'agent_message_chunk' && update.content?.type === 'text') {
        text += update.content.text ?? '';
      }
    });
  return { connection: app.connect(stream), elicitations, updates, agentText: () => text };
}

/** An SDK stream over a spawned process's stdin/stdout (the process must be spawned with `collectStdout: false`). */
export function processStream(processHandle: SpawnedProcess): Stream {
  const { stdin, stdout } = processHandle.child;
  if (!stdin || !stdout) throw new Error('process has no stdio pipes');
  return ndJsonStream(
    Writable.toWeb(stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
  );
}

/** Result of {@link runPromptTurn}. */
export interface PromptTurn {
  readonly stopReason: string;
  readonly sessionId: string;
  readonly text: string;
}

/**
 * initialize (advertising form elicitation) → session/new → session/prompt, and returns the stop reason plus the
 * agent's text for this turn.
 */
export async function runPromptTurn(
  testClient: TestClient,
  prompt: string,
  cwd = process.cwd(),
): Promise<PromptTurn> {
  const { agent } = testClient.connection;
  await agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { elicitation: { form: {} } },
  });
  const { sessionId } = await agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
  const before = testClient.agentText().length;
  const { stopReason } = await agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text: prompt }],
  });
  return { stopReason, sessionId, text: testClient.agentText().slice(before) };
}
