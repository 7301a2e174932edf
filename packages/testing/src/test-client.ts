import { invalidOption } from '@acpkit/errors';
import {
  type AnyMessage,
  type ClientCapabilities,
  type ClientConnection,
  type ClientContext,
  type ContentBlock,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  client,
  type InitializeResponse,
  type McpServer,
  methods,
  type NewSessionResponse,
  PROTOCOL_VERSION,
  RequestError,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type Stream,
} from '@agentclientprotocol/sdk';
import { withAgentErrorDetail } from './agent-error.js';
import { AgentProcess } from './agent-process.js';
import { AgentProcessError, ScriptedAnswerError, TestingErrorCode } from './errors.js';
import { answerFormAutomatically, choosePermissionAutomatically } from './forms/automatic-answers.js';
import { readForm } from './forms/form-model.js';
import {
  type AnswerScripts,
  answerFormWithScript,
  formScriptSource,
  isFormRequest,
  parseFormScripts,
  type ScriptedFieldAnswer,
} from './forms/scripted-answers.js';
import { awaitInitialize } from './non-acp-guard.js';
import {
  BoundedEvents,
  DEFAULT_MAX_TRANSCRIPT_BYTES,
  DEFAULT_MAX_TRANSCRIPT_EVENTS,
  jsonBytes,
  MAX_NOISE_EVENTS,
  summarizeTurn,
  type TranscriptEvent,
  type TranscriptLimits,
  type TurnTranscript,
  truncatedEvent,
  type WireMessage,
} from './transcript.js';

/**
 * Answers an `elicitation/create` request itself: return any response, valid or not (to test how the agent copes
 * with a decline, a cancel, garbage or a hang), or throw a `RequestError` to answer with a JSON-RPC error.
 */
export type ElicitationAnswerer = (
  request: CreateElicitationRequest,
  context: { readonly signal: AbortSignal },
) => CreateElicitationResponse | Promise<CreateElicitationResponse>;

/**
 * How permission requests are answered: `'allow'` (the first "allow once" option, else "allow always", else the first
 * offered), `'reject'` (the first "reject once", else "reject always", else cancelled), `'cancel'`, or a function.
 */
export type PermissionAnswers =
  | 'allow'
  | 'reject'
  | 'cancel'
  | ((request: RequestPermissionRequest) => RequestPermissionResponse | Promise<RequestPermissionResponse>);

/** Options of {@link connectTestClient} and {@link spawnTestClient}. */
export interface TestClientOptions {
  /**
   * How forms are answered. A list holds one `FormScript` per form, used in order (the same rules as
   * `acpkit client --answer` / `--answers FILE`); a form beyond the list fails the turn. An object of scripts keyed
   * by form title (`{ 'Plan the release': { Version: '1.5.0' } }`) answers each form by its title (its schema title,
   * else its question), as often as it is asked; a form it does not name fails the turn. A function answers every
   * elicitation itself. Default: each form with its defaults, as `acpkit client --yes` does (declined when a
   * required field has no default). URL-mode requests are declined unless a function answers them.
   */
  readonly answers?: AnswerScripts | ElicitationAnswerer;
  /** How `session/request_permission` is answered; default `'allow'`. */
  readonly permissions?: PermissionAnswers;
  /** Sent in `initialize`; default `{ elicitation: { form: {} } }`. */
  readonly clientCapabilities?: ClientCapabilities;
  /** The `cwd` of the session the client opens; default `process.cwd()`. */
  readonly cwd?: string;
  /** MCP servers to pass in `session/new` (the editor's servers). Default none. */
  readonly mcpServers?: readonly McpServer[];
  /**
   * Most events a transcript keeps: the client's `transcript`, each turn's `events`, and the recorded `messages`
   * each; default 10 000. Past it (or past `maxTranscriptBytes`) later events are counted in one `truncated` event
   * instead of kept (a turn's `turn-end` is always kept), so an agent that floods updates cannot grow the test.
   */
  readonly maxTranscriptEvents?: number;
  /** Most bytes (events' size as JSON) a transcript keeps, as `maxTranscriptEvents` counts events; default 16 MiB. */
  readonly maxTranscriptBytes?: number;
}

/** Options of {@link spawnTestClient}. */
export interface SpawnTestClientOptions extends TestClientOptions {
  /** Environment of the agent process; default the inherited one. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * How long the agent may take to answer `initialize` before `spawnTestClient` stops it and rejects with
   * `INITIALIZE_TIMEOUT`; default 30 000. Set it below your test runner's timeout (vitest: 5 000) to get that
   * error, and the agent reaped, instead of a timed-out test. (An agent that writes text instead of JSON-RPC to
   * stdout fails sooner, with `NOT_AN_ACP_AGENT`, 2 s after that text.)
   */
  readonly initializeTimeoutMs?: number;
}

/** An ACP agent app the client can connect to in-process (`agent()` from the SDK, stable or `/unstable`). */
export interface ConnectableAgent {
  connect(stream: Stream): { close(): void };
}

/**
 * A connected ACP client whose answers are scripted. It has initialized the agent and opened one session.
 *
 * @example
 * ```ts
 * const client = await connectTestClient(createAgent(), { answers: [{ Choice: 'Preview' }] });
 * const turn = await client.prompt('Deploy');
 * expect(turn.text).toBe('Selected: preview');
 * await client.close();
 * ```
 */
export interface TestClient {
  /** The agent's `initialize` response. */
  readonly initialize: InitializeResponse;
  /** The session opened with `session/new`. */
  readonly sessionId: string;
  /** What `session/new` answered besides the id: the session's modes and config options, when the agent has them. */
  readonly session: Pick<NewSessionResponse, 'modes' | 'configOptions'>;
  /** Every event so far, in order. */
  readonly transcript: readonly TranscriptEvent[];
  /**
   * Every JSON-RPC message that crossed the connection (in-process only; empty for a stdio agent), within the
   * transcript limits: later ones are counted in {@link TestClient.droppedMessages} instead.
   */
  readonly messages: readonly WireMessage[];
  /** Messages not recorded in `messages` because it reached the transcript limits. */
  readonly droppedMessages: number;
  /** The SDK's view of the agent, for requests the test client does not wrap. */
  readonly agent: ClientContext;
  /**
   * Sends `session/prompt` and resolves when the turn ends.
   *
   * @throws `RequestError` when the agent answers the prompt with a JSON-RPC error (its code and `data` as sent; the
   * message adds what `data` says, e.g. `Internal error (-32603): FormSchemaError UNSUPPORTED_TYPE: …`);
   * {@link ScriptedAnswerError} as soon as a form does not fit its script (the form is answered `cancel`);
   * {@link AgentProcessError} `AGENT_EXITED` when a stdio agent ends during the turn.
   */
  prompt(prompt: string | readonly ContentBlock[]): Promise<TurnTranscript>;
  /** Sends `session/cancel` for the session. */
  cancel(): Promise<void>;
  /** Closes the connection (and stops a stdio agent: stdin closed, then SIGTERM, then SIGKILL). Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_CAPABILITIES: ClientCapabilities = { elicitation: { form: {} } };
/** How long a failed request waits for the agent's exit status, to report that instead of "connection closed". */
const EXIT_REPORT_WAIT_MS = 3_000;

function delay(milliseconds: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), milliseconds).unref());
}

interface Answered {
  readonly response: CreateElicitationResponse;
  readonly answers: readonly ScriptedFieldAnswer[];
}

/** Turns the `answers` option into one function per request, keeping the position in a script list. */
function elicitationAnswering(
  answers: TestClientOptions['answers'],
): (request: CreateElicitationRequest, signal: AbortSignal) => Promise<Answered> {
  if (typeof answers === 'function') {
    return async (request, signal) => ({ response: await answers(request, { signal }), answers: [] });
  }
  const parsed = answers === undefined ? undefined : parseFormScripts(answers, 'answers');
  const scripts =
    parsed === undefined
      ? undefined
      : formScriptSource(parsed, Array.isArray(parsed) ? 'the answers list' : 'the answers object');
  return async (request) => {
    if (!isFormRequest(request)) {
      if (request.mode === 'url') return { response: { action: 'decline' }, answers: [] };
      throw RequestError.invalidParams(
        { mode: request.mode },
        `Unsupported elicitation mode: ${request.mode}`,
      );
    }
    if (scripts === undefined) {
      const automatic = answerFormAutomatically(readForm(request.requestedSchema));
      return automatic.action === 'accept'
        ? { response: { action: 'accept', content: automatic.content }, answers: automatic.answers }
        : { response: { action: 'decline' }, answers: [] };
    }
    const answer = answerFormWithScript(request, scripts.next(request));
    return answer.action === 'accept'
      ? { response: { action: 'accept', content: answer.content }, answers: answer.answers }
      : { response: { action: answer.action }, answers: [] };
  };
}

function permissionAnswering(
  permissions: PermissionAnswers,
): (request: RequestPermissionRequest) => Promise<RequestPermissionResponse> {
  if (typeof permissions === 'function') return async (request) => permissions(request);
  return async (request) => {
    const option =
      permissions === 'allow'
        ? choosePermissionAutomatically(request.options)
        : permissions === 'reject'
          ? (request.options.find((candidate) => candidate.kind === 'reject_once') ??
            request.options.find((candidate) => candidate.kind === 'reject_always'))
          : undefined;
    return option === undefined
      ? { outcome: { outcome: 'cancelled' } }
      : { outcome: { outcome: 'selected', optionId: option.optionId } };
  };
}

/** The messages recorded from an in-process connection, within the transcript limits, and the count of the rest. */
class RecordedMessages {
  readonly messages: WireMessage[] = [];
  dropped = 0;
  private bytes = 0;

  constructor(private readonly limits: TranscriptLimits) {}

  record(direction: WireMessage['direction'], message: AnyMessage): void {
    const size = this.dropped === 0 ? jsonBytes(message) : 0;
    if (
      this.dropped === 0 &&
      this.messages.length < this.limits.maxEvents &&
      this.bytes + size <= this.limits.maxBytes
    ) {
      this.messages.push({ direction, message });
      this.bytes += size;
    } else {
      this.dropped += 1;
    }
  }
}

/** Two message streams joined back to back, recording every message that crosses. */
function recordedWirePair(recorded: RecordedMessages): { agentSide: Stream; clientSide: Stream } {
  const recorder = (direction: WireMessage['direction']) =>
    new TransformStream<AnyMessage, AnyMessage>({
      transform(message, controller) {
        recorded.record(direction, message);
        controller.enqueue(message);
      },
    });
  const toAgent = recorder('to-agent');
  const toClient = recorder('to-client');
  return {
    agentSide: { readable: toAgent.readable, writable: toClient.writable },
    clientSide: { readable: toClient.readable, writable: toAgent.writable },
  };
}

/** Where a request failed: before the agent answered `initialize`, or later. */
type Phase = 'initialize' | 'session';

interface Endpoint {
  readonly stream: Stream;
  /** Turns a failed request into the reason behind it (a stdio agent that exited), or keeps it. */
  readonly explain: (error: unknown, phase: Phase) => Promise<unknown>;
  readonly initialize: <T>(request: Promise<T>) => Promise<T>;
  close(): Promise<void>;
  readonly onStdoutNoise?: (listener: (preview: string) => void) => void;
}

/**
 * The transcript limits from the options, checked before anything starts.
 *
 * @throws `OptionError` (`@acpkit/errors`, `INVALID_OPTION`) for a limit that is not a positive whole number.
 */
function transcriptLimits(options: TestClientOptions): TranscriptLimits {
  const limit = (name: 'maxTranscriptEvents' | 'maxTranscriptBytes', fallback: number): number => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (!Number.isSafeInteger(value) || value <= 0)
      throw invalidOption(name, 'a positive whole number', value);
    return value;
  };
  return {
    maxEvents: limit('maxTranscriptEvents', DEFAULT_MAX_TRANSCRIPT_EVENTS),
    maxBytes: limit('maxTranscriptBytes', DEFAULT_MAX_TRANSCRIPT_BYTES),
  };
}

/**
 * What the client records: its whole transcript and the current turn's, each within the limits, and the agent's
 * stdout noise (the first {@link MAX_NOISE_EVENTS} lines as events, then one `truncated` event counting the rest).
 */
class TranscriptRecorder {
  readonly client: BoundedEvents;
  turn: BoundedEvents | undefined;
  private noiseLines = 0;
  private readonly noiseMarker = truncatedEvent('stdout-noise');

  constructor(private readonly limits: TranscriptLimits) {
    this.client = new BoundedEvents(limits);
  }

  startTurn(): void {
    this.turn = new BoundedEvents(this.limits);
  }

  record(event: TranscriptEvent): void {
    const size = jsonBytes(event);
    this.client.add(event, size);
    this.turn?.add(event, size);
  }

  /** A turn's end is always kept, so every turn shows how it ended. */
  endTurn(event: TranscriptEvent): readonly TranscriptEvent[] {
    this.client.addAlways(event);
    const events = this.turn?.events ?? [event];
    this.turn?.addAlways(event);
    this.turn = undefined;
    return events;
  }

  noise(preview: string): void {
    this.noiseLines += 1;
    if (this.noiseLines <= MAX_NOISE_EVENTS) {
      this.record({ kind: 'stdout-noise', preview });
      return;
    }
    if (this.noiseLines === MAX_NOISE_EVENTS + 1) {
      this.client.addAlways(this.noiseMarker);
      this.turn?.addAlways(this.noiseMarker);
    }
    this.noiseMarker.droppedEvents += 1;
    this.noiseMarker.droppedBytes += jsonBytes({ kind: 'stdout-noise', preview });
  }
}

async function startClient(
  endpoint: Endpoint,
  options: TestClientOptions,
  limits: TranscriptLimits,
  recorded: RecordedMessages | undefined,
): Promise<TestClient> {
  const recorder = new TranscriptRecorder(limits);
  const answerElicitation = elicitationAnswering(options.answers);
  const answerPermission = permissionAnswering(options.permissions ?? 'allow');
  let failTurn: (error: unknown) => void = () => undefined;
  endpoint.onStdoutNoise?.((preview) => recorder.noise(preview));

  const connection: ClientConnection = client({ name: 'acpkit-test-client' })
    .onRequest(methods.client.elicitation.create, async ({ params, signal }) => {
      let answered: Answered;
      try {
        answered = await answerElicitation(params, signal);
      } catch (error) {
        if (!ScriptedAnswerError.isInstance(error)) throw error;
        // The agent gets a plain cancel so it can finish; the test sees the script's error.
        failTurn(error);
        answered = { response: { action: 'cancel' }, answers: [] };
      }
      recorder.record({
        kind: 'elicitation-request',
        request: params,
        response: answered.response,
        answers: answered.answers,
      });
      return answered.response;
    })
    .onRequest(methods.client.session.requestPermission, async ({ params }) => {
      const response = await answerPermission(params);
      recorder.record({ kind: 'permission-request', request: params, response });
      return response;
    })
    .onNotification(methods.client.session.update, ({ params }) => {
      recorder.record({ kind: 'session-update', sessionId: params.sessionId, update: params.update });
    })
    .connect(endpoint.stream);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await endpoint.close();
      connection.close();
    })();
    return closing;
  };
  const guarded = async <T>(work: Promise<T>, phase: Phase = 'session'): Promise<T> => {
    try {
      return await work;
    } catch (error) {
      throw await endpoint.explain(
        error instanceof RequestError ? withAgentErrorDetail(error) : error,
        phase,
      );
    }
  };

  try {
    const initialize = await guarded(
      endpoint.initialize(
        connection.agent.request(methods.agent.initialize, {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: options.clientCapabilities ?? DEFAULT_CAPABILITIES,
          clientInfo: { name: 'acpkit-test-client', title: 'ACP Kit test client', version: '0' },
        }),
      ),
      'initialize',
    );
    const { sessionId, modes, configOptions } = await guarded(
      connection.agent.request(methods.agent.session.new, {
        cwd: options.cwd ?? process.cwd(),
        mcpServers: [...(options.mcpServers ?? [])],
      }),
    );
    return {
      initialize,
      sessionId,
      session: {
        ...(modes == null ? {} : { modes }),
        ...(configOptions == null ? {} : { configOptions }),
      },
      transcript: recorder.client.events,
      messages: recorded?.messages ?? [],
      get droppedMessages() {
        return recorded?.dropped ?? 0;
      },
      agent: connection.agent,
      async prompt(prompt) {
        const failed = new Promise<never>((_, reject) => {
          failTurn = reject;
        });
        recorder.startTurn();
        try {
          const response = await Promise.race([
            guarded(
              connection.agent.request(methods.agent.session.prompt, {
                sessionId,
                prompt: typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : [...prompt],
              }),
            ),
            failed,
          ]);
          const events = recorder.endTurn({ kind: 'turn-end', sessionId, stopReason: response.stopReason });
          return summarizeTurn(events, response.stopReason);
        } finally {
          recorder.turn = undefined;
          failTurn = () => undefined;
        }
      },
      cancel: () => connection.agent.notify(methods.agent.session.cancel, { sessionId }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Connects a test client to an SDK agent app in the same process, over an in-memory pair of message streams that
 * records every JSON-RPC message, then sends `initialize` (advertising form elicitation unless
 * `clientCapabilities` says otherwise) and `session/new`.
 *
 * @throws `RequestError` when the agent rejects `initialize` or `session/new`.
 * @example
 * ```ts
 * import { connectTestClient } from '@acpkit/testing';
 *
 * const client = await connectTestClient(createDeployTargetAgent(), { answers: [{ Choice: 'Preview' }] });
 * const turn = await client.prompt('Deploy the app');
 * // turn.text === 'Selected: preview'; turn.elicitations[0].request.requestedSchema holds the form
 * await client.close();
 * ```
 */
export async function connectTestClient(
  agent: ConnectableAgent,
  options: TestClientOptions = {},
): Promise<TestClient> {
  const limits = transcriptLimits(options);
  const recorded = new RecordedMessages(limits);
  const wire = recordedWirePair(recorded);
  const agentConnection = agent.connect(wire.agentSide);
  return startClient(
    {
      stream: wire.clientSide,
      explain: async (error) => error,
      initialize: (request) => request,
      async close() {
        agentConnection.close();
        // Closing a connection never closes the writable it writes to; end both directions so neither side waits.
        await Promise.all([
          wire.agentSide.writable.close().catch(() => undefined),
          wire.clientSide.writable.close().catch(() => undefined),
        ]);
      },
    },
    options,
    limits,
    recorded,
  );
}

/**
 * Spawns a stdio ACP agent (argv, no shell, its own process group; its stderr passes through) and connects a test
 * client to it, as `acpkit client` does: lines on its stdout that are not JSON-RPC are dropped and recorded as
 * `stdout-noise` events; an agent that prints such text and then does not answer `initialize` within 2 s fails
 * with `NOT_AN_ACP_AGENT`, and one that says nothing with `INITIALIZE_TIMEOUT` after `initializeTimeoutMs`. Every
 * rejection comes after the agent was stopped and reaped.
 *
 * @throws {@link AgentProcessError} `INVALID_COMMAND`, `AGENT_START_FAILED`, `AGENT_EXITED` (it ended before the
 * session opened), `NOT_AN_ACP_AGENT` or `INITIALIZE_TIMEOUT`.
 * @example
 * ```ts
 * import { spawnTestClient } from '@acpkit/testing';
 *
 * const client = await spawnTestClient(['node', 'dist/agent.js'], { answers: ['decline'] });
 * const turn = await client.prompt('Deploy the app');
 * await client.close();
 * ```
 */
export async function spawnTestClient(
  command: readonly string[],
  options: SpawnTestClientOptions = {},
): Promise<TestClient> {
  const { initializeTimeoutMs } = options;
  const limits = transcriptLimits(options);
  if (
    initializeTimeoutMs !== undefined &&
    !(Number.isFinite(initializeTimeoutMs) && initializeTimeoutMs > 0)
  ) {
    throw invalidOption('initializeTimeoutMs', 'a positive number of milliseconds', initializeTimeoutMs);
  }
  const agent = await AgentProcess.start(command, options.cwd ?? process.cwd(), options.env);
  return startClient(
    {
      stream: agent.stream,
      // A request fails with a plain "connection closed" when the agent's stdout ends; name the exit instead.
      explain: async (error, phase) => {
        if (
          error instanceof RequestError ||
          ScriptedAnswerError.isInstance(error) ||
          AgentProcessError.isInstance(error)
        ) {
          return error;
        }
        const exit = await Promise.race([agent.exited, delay(EXIT_REPORT_WAIT_MS)]);
        if (exit === undefined) return error;
        const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
        const when = phase === 'initialize' ? ' before answering initialize' : '';
        return new AgentProcessError(TestingErrorCode.AgentExited, `The agent exited (${how})${when}.`, {
          cause: error,
        });
      },
      initialize: async (request) => {
        try {
          return await awaitInitialize(request, agent, command, {
            ...(initializeTimeoutMs === undefined ? {} : { timeoutMs: initializeTimeoutMs }),
            timeoutOption: 'initializeTimeoutMs',
          });
        } catch (error) {
          // Not an ACP agent, or a silent one: stopped at once (then reaped by close()) before anyone hears of it.
          if (AgentProcessError.isInstance(error)) await agent.abandon();
          throw error;
        }
      },
      close: async () => {
        await agent.stop();
      },
      onStdoutNoise: (listener) => {
        for (const line of agent.nonJsonLines) listener(line.preview);
        agent.onNonJsonLine((line) => listener(line.preview));
      },
    },
    options,
    limits,
    undefined,
  );
}
