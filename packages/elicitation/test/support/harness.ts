import * as sdk from '@agentclientprotocol/sdk';
import * as unstable from '@agentclientprotocol/sdk/unstable';
import { type AcpSessionContext, acpSessions } from '../../src/index.js';

export type Entrypoint = 'stable' | 'unstable';
type Message = sdk.AnyMessage;

/** A message-level cable between two ends, recording every frame and able to cut the client→agent direction. */
export interface Wire {
  readonly agentSide: sdk.Stream;
  readonly clientSide: sdk.Stream;
  /** Frames the agent sent, in order. */
  readonly toClient: Message[];
  /** Frames the client sent, in order. */
  readonly toAgent: Message[];
  /** Ends the client→agent direction (the agent reads end of stream) and errors the agent→client direction. */
  disconnect(): void;
}

export function createWire(): Wire {
  const toClient: Message[] = [];
  const toAgent: Message[] = [];
  let toAgentController: TransformStreamDefaultController<Message> | undefined;
  let toClientController: TransformStreamDefaultController<Message> | undefined;
  const toAgentTap = new TransformStream<Message, Message>({
    start(controller) {
      toAgentController = controller;
    },
    transform(message, controller) {
      toAgent.push(message);
      controller.enqueue(message);
    },
  });
  const toClientTap = new TransformStream<Message, Message>({
    start(controller) {
      toClientController = controller;
    },
    transform(message, controller) {
      toClient.push(message);
      controller.enqueue(message);
    },
  });
  return {
    agentSide: { readable: toAgentTap.readable, writable: toClientTap.writable },
    clientSide: { readable: toClientTap.readable, writable: toAgentTap.writable },
    toClient,
    toAgent,
    disconnect() {
      toAgentController?.terminate();
      toClientController?.error(new Error('wire cut'));
    },
  };
}

/** Resolves with a value set later; for waiting on an event instead of sleeping. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((resolvePromise, rejectPromise) => {
    resolve = resolvePromise;
    reject = rejectPromise;
  });
  return { promise, resolve, reject };
}

export const TARGETS = [
  { value: 'preview', label: 'Preview' },
  {
    value: 'production',
    label: 'Production',
    description: 'Deploy to the production environment.',
    default: true,
  },
] as const;

/** What one prompt does: the test decides the options and receives the outcome. */
export interface PromptScenario {
  run(session: AcpSessionContext, signal: AbortSignal): Promise<unknown>;
}

export interface PromptOutcome {
  readonly result?: unknown;
  readonly error?: unknown;
  readonly settledAt: number;
}

/**
 * A real SDK agent app wired with `acpSessions()`: each prompt runs the next scenario and reports its outcome.
 * The prompt handler gets its session context in one added line.
 */
export function createTestAgent(
  options: { sameSessionIdForAll?: boolean; entrypoint?: Entrypoint; wrapInitialize?: boolean } = {},
) {
  // The unstable builder has the same shape; one typed path keeps the test readable.
  const entry = (options.entrypoint === 'unstable' ? unstable : sdk) as typeof sdk;
  const sessions = acpSessions();
  const scenarios: PromptScenario[] = [];
  const outcomes: Array<ReturnType<typeof deferred<PromptOutcome>>> = [];
  let sessionCounter = 0;
  const initialize = () => ({ protocolVersion: entry.PROTOCOL_VERSION, agentCapabilities: {} });
  // `wrapInitialize: false` is the agent that forgot `sessions.initialize(...)`.
  const initializeHandler = options.wrapInitialize === false ? initialize : sessions.initialize(initialize);
  const app = entry
    .agent({ name: 'elicitation-test-agent' })
    .onRequest(entry.methods.agent.initialize, initializeHandler)
    .onNotification(entry.methods.agent.session.cancel, sessions.cancel())
    .onRequest(entry.methods.agent.session.new, () => {
      sessionCounter += 1;
      return { sessionId: options.sameSessionIdForAll ? 'shared-session' : `session-${sessionCounter}` };
    })
    .onRequest(entry.methods.agent.session.prompt, async (context) => {
      const session = sessions.sessionFor(context);
      const scenario = scenarios.shift();
      const outcome = outcomes.shift();
      if (scenario === undefined || outcome === undefined) throw new Error('no scenario queued');
      try {
        const result = await scenario.run(session, context.signal);
        outcome.resolve({ result, settledAt: Date.now() });
        const text =
          typeof result === 'object' && result !== null && 'status' in result ? String(result.status) : '';
        await context.client.notify(entry.methods.client.session.update, {
          sessionId: context.params.sessionId,
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
        });
        return { stopReason: 'end_turn' };
      } catch (error) {
        outcome.resolve({ error, settledAt: Date.now() });
        throw error;
      }
    });
  return {
    app,
    /** Queues what the next prompt does and returns its outcome. */
    nextPrompt(scenario: PromptScenario): Promise<PromptOutcome> {
      const outcome = deferred<PromptOutcome>();
      scenarios.push(scenario);
      outcomes.push(outcome);
      return outcome.promise;
    },
  };
}

export type ElicitationHandler = (
  context: sdk.ClientRequestContext<sdk.CreateElicitationRequest>,
) => sdk.CreateElicitationResponse | Promise<sdk.CreateElicitationResponse>;

/** A real SDK client app from the chosen entrypoint, connected over `stream`, initialized, with one session. */
export async function connectClient(
  entrypoint: Entrypoint,
  stream: sdk.Stream,
  options: { clientCapabilities: sdk.ClientCapabilities; onElicitation?: ElicitationHandler },
) {
  // The unstable builder has the same shape; one typed path keeps the test readable.
  const entry = (entrypoint === 'stable' ? sdk : unstable) as typeof sdk;
  let app = entry
    .client({ name: `${entrypoint}-test-client` })
    .onNotification(entry.methods.client.session.update, () => {});
  if (options.onElicitation)
    app = app.onRequest(entry.methods.client.elicitation.create, options.onElicitation);
  const connection = app.connect(stream);
  await connection.agent.request(entry.methods.agent.initialize, {
    protocolVersion: entry.PROTOCOL_VERSION,
    clientCapabilities: options.clientCapabilities,
  });
  const { sessionId } = await connection.agent.request(entry.methods.agent.session.new, {
    cwd: '/',
    mcpServers: [],
  });
  return {
    connection,
    sessionId,
    prompt(signal?: AbortSignal) {
      return connection.agent.request(
        entry.methods.agent.session.prompt,
        { sessionId, prompt: [{ type: 'text', text: 'deploy' }] },
        signal ? { cancellationSignal: signal } : undefined,
      );
    },
    cancelSession() {
      return connection.agent.notify(entry.methods.agent.session.cancel, { sessionId });
    },
  };
}

export function isCancelRequest(message: Message): boolean {
  return 'method' in message && message.method === '$/cancel_request';
}

export function requestIdOf(frames: Message[], method: string): sdk.JsonRpcId | undefined {
  const frame = frames.find((message) => 'method' in message && message.method === method && 'id' in message);
  return frame && 'id' in frame ? frame.id : undefined;
}

const openPairs = new Set<() => void>();

/** Closes every pair {@link setUp} opened (for afterEach). */
export function closeAllPairs(): void {
  for (const close of openPairs) close();
  openPairs.clear();
}

/** Connects a fresh test agent and a client from `entrypoint` over a recorded wire. */
export async function setUp(
  entrypoint: Entrypoint,
  options: Parameters<typeof connectClient>[2],
  agent = createTestAgent(),
) {
  const wire = createWire();
  const agentConnection = agent.app.connect(wire.agentSide);
  const client = await connectClient(entrypoint, wire.clientSide, options);
  openPairs.add(() => {
    client.connection.close();
    agentConnection.close();
  });
  return { agent, wire, client, agentConnection };
}

/** The `elicitation/create` requests the agent sent, as they crossed the wire. */
export function elicitationFrames(wire: Wire): Message[] {
  return wire.toClient.filter((message) => 'method' in message && message.method === 'elicitation/create');
}
