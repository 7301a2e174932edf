import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { type CliIo, ExitCode, type StopSignal } from '@acpkit/cli-support';
import { AgentProcessError, ScriptedAnswerError, TestingErrorCode } from '@acpkit/testing';
import {
  AgentProcess,
  awaitInitialize,
  isFormRequest,
  type NonJsonLine,
  quoteCommand,
} from '@acpkit/testing/internal';
import {
  type ClientConnection,
  type CreateElicitationRequest,
  client,
  type InitializeResponse,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type StopReason,
} from '@agentclientprotocol/sdk';
import { isCancel, text } from '@clack/prompts';
import type { Answerer, UrlElicitationRequest } from './answerer.js';
import { AutomaticAnswerer, type FormScripts } from './automatic-answerer.js';
import { DEFAULT_INITIALIZE_TIMEOUT_MS } from './client-defaults.js';
import { ClientError, ClientErrorCode } from './errors.js';
import { InteractiveAnswerer } from './interactive-answerer.js';
import { TerminalOutput } from './terminal-output.js';
import { Transcript } from './transcript.js';

/** What `acpkit client` runs. */
export interface ClientRunOptions {
  /** The agent command as argv (no shell), e.g. `['node', 'agent.js']`. */
  readonly command: readonly string[];
  /** Absolute working directory for the agent process and the session. */
  readonly cwd: string;
  /** Answer every form and permission request with defaults instead of asking. */
  readonly yes: boolean;
  /** Scripted form answers (`--answer`, `--answers`, `--decline`, `--cancel`); forms are then never asked. */
  readonly scripts?: FormScripts;
  /** Prompts to send in order; when empty the client reads prompts from the person (TTY) or stdin lines. */
  readonly prompts: readonly string[];
  /** The command's streams, environment (passed to the agent) and stop signals. */
  readonly io: Pick<CliIo, 'stdout' | 'stderr' | 'env' | 'onStopSignal'> & {
    readonly stdin: Readable & { isTTY?: boolean };
  };
  /** The client's own version, sent as `clientInfo.version`. */
  readonly version: string;
  /** How long the agent may take to answer `initialize` (`--initialize-timeout`); default 30 s. */
  readonly initializeTimeoutMs?: number;
}

/** When the client says it is still waiting for `initialize` (or at half the timeout, if that comes first). */
const INITIALIZE_NOTICE_MS = 5_000;
/** The longest `error.data` detail shown whole; a longer one is cut at a word, with a mark. */
const MAX_DETAIL_CHARACTERS = 2_000;

/** Non-JSON stdout lines of the agent that are each reported; later ones are only counted. */
const REPORTED_NON_JSON_LINES = 5;
/** How long a failed request waits for the agent's exit status, to report that instead of "connection closed". */
const EXIT_REPORT_WAIT_MS = 3_000;

function isUrlRequest(request: CreateElicitationRequest): request is UrlElicitationRequest {
  return request.mode === 'url' && 'url' in request && 'elicitationId' in request;
}

/** "Title (name version)", the agent's self-description from `initialize`, or its command line. */
export function describeAgent(
  initialize: InitializeResponse | undefined,
  command: readonly string[],
): string {
  const info = initialize?.agentInfo;
  if (info) {
    const version = info.version ? ` ${info.version}` : '';
    return info.title && info.title !== info.name
      ? `${info.title} (${info.name}${version})`
      : `${info.name}${version}`;
  }
  return `the agent ${quoteCommand(command)}`;
}

/** `text` whole when it is not too long, else cut at the last space before the limit, marked with `…`. */
function shorten(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const space = text.lastIndexOf(' ', limit);
  return `${text.slice(0, space > limit / 2 ? space : limit)}…`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON-RPC error from the agent as one line: its message and code, then what its `data` says (the SDK puts a
 * thrown error's text in `data.details`), so "Internal error" is never all a person sees.
 *
 * @example
 * ```ts
 * describeAgentError(new RequestError(-32603, 'Internal error', { details: 'at most one choice may be the default' }));
 * // 'The agent answered with an error: Internal error (-32603): at most one choice may be the default'
 * ```
 */
export function describeAgentError(error: RequestError): string {
  const data: unknown = error.data;
  let detail: string | undefined;
  if (typeof data === 'string') detail = data;
  else if (isRecord(data) && typeof data.details === 'string') {
    // `acpSessions().prompt` also sends the error's class and stable code: `FormSchemaError UNSUPPORTED_TYPE: …`.
    const origin = [data.name, data.code].filter((part) => typeof part === 'string').join(' ');
    detail = origin === '' ? data.details : `${origin}: ${data.details}`;
  } else if (isRecord(data) && typeof data.message === 'string') detail = data.message;
  else if (data !== undefined && data !== null) detail = JSON.stringify(data);
  const shown = detail === undefined ? undefined : shorten(detail, MAX_DETAIL_CHARACTERS);
  return `The agent answered with an error: ${error.message} (${error.code})${shown ? `: ${shown}` : ''}`;
}

/** `/exit` and `/quit`, in any case: a line that is only one of them is meant for the client, never the agent. */
export function isCommandToQuit(line: string): boolean {
  const command = line.trim().toLowerCase();
  return command === '/exit' || command === '/quit';
}

/** Where the prompts of a run come from. `/exit` and `/quit` end the conversation, typed or piped. */
async function* promptSource(options: ClientRunOptions, terminal: TerminalOutput): AsyncGenerator<string> {
  if (options.prompts.length > 0) {
    yield* options.prompts;
    return;
  }
  if (options.io.stdin.isTTY === true) {
    for (;;) {
      const line = await terminal.exclusive(() =>
        text({
          input: options.io.stdin,
          output: options.io.stdout,
          message: 'You',
          placeholder: 'message the agent (Esc to quit)',
        }),
      );
      if (isCancel(line)) return;
      const trimmed = (line ?? '').trim();
      if (isCommandToQuit(trimmed)) return;
      if (trimmed.length > 0) yield trimmed;
    }
  }
  const lines = createInterface({ input: options.io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) {
      const trimmed = line.trim();
      if (isCommandToQuit(trimmed)) return;
      if (trimmed.length > 0) yield trimmed;
    }
  } finally {
    lines.close();
  }
}

/** Why the conversation ended early: the person or a signal stopped it, or a script did not fit a form. */
class EndedRun extends Error {
  constructor(
    readonly code: number,
    readonly reason?: ScriptedAnswerError,
  ) {
    super('ended');
  }
}

/**
 * Runs one conversation with a stdio ACP agent: spawns it, initializes advertising form and URL elicitation, opens a
 * session in `cwd`, sends each prompt, streams the agent's messages, tool calls and plans, and answers forms and
 * permission requests (interactively, with defaults under `--yes`/non-TTY, or from the scripted answers). The first
 * SIGINT during a turn sends `session/cancel`; a second one stops. Resolves with the process exit code; the agent
 * is always reaped. Nothing here reads or exits the process: streams, environment and signals come from `io`.
 *
 * @example
 * ```ts
 * const code = await runClient({
 *   command: ['node', 'agent.js'], cwd: process.cwd(), yes: true, prompts: ['deploy'], io: processIo(), version: '0.1.0',
 * });
 * ```
 */
export async function runClient(options: ClientRunOptions): Promise<number> {
  const { io } = options;
  const interactive = !options.yes && options.scripts === undefined && io.stdin.isTTY === true;
  const terminal = new TerminalOutput(io.stdout, io.stderr);
  const transcript = new Transcript();
  const printLine = (line: string) => terminal.write(transcript.line(line));
  const reportError = (message: string) => {
    terminal.write(transcript.breakLine());
    terminal.writeError(`Error: ${message}\n`);
  };

  let agentLabel = describeAgent(undefined, options.command);
  let answerer: Answerer = createAnswerer();
  function createAnswerer(): Answerer {
    return interactive
      ? new InteractiveAnswerer(agentLabel, { input: io.stdin, output: io.stdout as Writable })
      : new AutomaticAnswerer(agentLabel, printLine, options.scripts);
  }

  let agent: AgentProcess;
  try {
    agent = await AgentProcess.start(options.command, options.cwd, io.env);
  } catch (error) {
    reportError((error as Error).message);
    return AgentProcessError.isInstance(error) && error.code === TestingErrorCode.InvalidCommand
      ? ExitCode.Usage
      : ExitCode.RuntimeFailure;
  }
  const stopWarningAboutStdout = agent.onNonJsonLine((line: NonJsonLine) => {
    const count = agent.nonJsonLineCount;
    if (count <= REPORTED_NON_JSON_LINES) {
      terminal.writeError(
        `Warning: the agent wrote a line to stdout that is not JSON-RPC; it was dropped (stdout of an ACP agent must ` +
          `carry only JSON-RPC, logs belong on stderr): ${JSON.stringify(line.preview)}\n`,
      );
    }
    if (count === REPORTED_NON_JSON_LINES) {
      terminal.writeError(
        'Warning: further non-JSON-RPC lines on the agent’s stdout are dropped without a warning.\n',
      );
    }
  });

  let sessionId: string | undefined;
  // Once the run ends (a failure, a signal), the agent's late output is not shown after the closing message.
  let showUpdates = true;
  let endRun: (ended: EndedRun) => void = () => undefined;
  const ended = new Promise<EndedRun>((resolve) => {
    endRun = resolve;
  });
  const pendingUrlCompletions = new Map<string, AbortController>();
  const connection: ClientConnection = client({ name: 'acpkit-client' })
    .onRequest(methods.client.elicitation.create, async ({ params, signal }) => {
      if (isFormRequest(params)) {
        try {
          return await terminal.exclusive(() => answerer.answerForm(params, signal));
        } catch (error) {
          if (!ScriptedAnswerError.isInstance(error)) throw error;
          // The script is wrong, not the agent: it gets a plain cancel, and the run ends naming the form and field.
          endRun(new EndedRun(ExitCode.Usage, error));
          return { action: 'cancel' };
        }
      }
      if (isUrlRequest(params)) {
        const response = await terminal.exclusive(() => answerer.answerUrl(params, signal));
        if (response.action === 'accept') {
          const completed = new AbortController();
          pendingUrlCompletions.set(params.elicitationId, completed);
          void terminal
            .exclusive(() => answerer.waitForUrlCompletion(params, completed.signal))
            .finally(() => pendingUrlCompletions.delete(params.elicitationId));
        }
        return response;
      }
      throw RequestError.invalidParams({ mode: params.mode }, `Unsupported elicitation mode: ${params.mode}`);
    })
    .onRequest(methods.client.session.requestPermission, ({ params, signal }) =>
      terminal.exclusive(() => answerer.answerPermission(params, signal)),
    )
    .onNotification(methods.client.session.update, ({ params }) => {
      if (showUpdates && params.sessionId === sessionId) terminal.write(transcript.render(params.update));
    })
    .onNotification(methods.client.elicitation.complete, ({ params }) => {
      // Unknown or already-completed ids are ignored, as the spec asks.
      pendingUrlCompletions.get(params.elicitationId)?.abort();
    })
    .connect(agent.stream);

  let turnActive = false;
  let cancelRequested = false;
  let initialized = false;
  const agentGone = agent.exited.then((exit) => {
    const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
    // Nothing was lost from an agent that never answered initialize: it did not start up.
    return new ClientError(
      ClientErrorCode.AgentExited,
      initialized
        ? `Connection to the agent lost: it exited (${how}).`
        : `The agent exited before answering initialize (${how}).`,
    );
  });
  const unsubscribeSignals = io.onStopSignal((signal: StopSignal) => {
    if (signal === 'SIGINT' && turnActive && !cancelRequested && sessionId !== undefined) {
      cancelRequested = true;
      printLine('Cancelling the turn… (press Ctrl+C again to quit)');
      void connection.agent.notify(methods.agent.session.cancel, { sessionId }).catch(() => undefined);
      return;
    }
    endRun(new EndedRun(signal === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Terminated));
  });

  let stopping: Promise<number> | undefined;
  const prompts = promptSource(options, terminal);
  const stop = (code: number): Promise<number> => {
    stopping ??= (async () => {
      unsubscribeSignals();
      stopWarningAboutStdout();
      void prompts.return(undefined).catch(() => undefined);
      // The agent goes first: closing the connection first would close our end of its stdout while it may still be
      // flushing, and it would die of EPIPE instead of exiting on stdin EOF. One that never answered initialize has
      // nothing to flush: it gets SIGTERM at once.
      await (initialized ? agent.stop() : agent.abandon());
      connection.close();
      return code;
    })();
    return stopping;
  };

  /** Awaits `work`, unless the agent exits, the person interrupts or a script fails first. */
  async function guard<T>(work: Promise<T>): Promise<T> {
    const result = await Promise.race([
      work.then((value) => ({ kind: 'done' as const, value })),
      agentGone.then((error) => ({ kind: 'gone' as const, error })),
      ended.then((end) => ({ kind: 'ended' as const, end })),
    ]);
    if (result.kind === 'done') return result.value;
    if (result.kind === 'gone') throw result.error;
    throw result.end;
  }

  try {
    const initializeTimeoutMs = options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS;
    const initialize = await guard(
      awaitInitialize(
        connection.agent.request(methods.agent.initialize, {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: { elicitation: { form: {}, url: {} } },
          clientInfo: { name: 'acpkit-client', title: 'ACP Kit terminal client', version: options.version },
        }),
        agent,
        options.command,
        {
          timeoutMs: initializeTimeoutMs,
          timeoutOption: '--initialize-timeout',
          waitingNoticeMs: Math.min(INITIALIZE_NOTICE_MS, initializeTimeoutMs / 2),
          onWaiting: () =>
            terminal.writeError(
              `Waiting for the agent to answer initialize… (giving up after ${initializeTimeoutMs / 1000} s; ` +
                '--initialize-timeout changes that)\n',
            ),
        },
      ),
    );
    initialized = true;
    agentLabel = describeAgent(initialize, options.command);
    answerer = createAnswerer();
    printLine(`Connected to ${agentLabel}.`);
    const session = await guard(
      connection.agent.request(methods.agent.session.new, { cwd: options.cwd, mcpServers: [] }),
    );
    sessionId = session.sessionId;

    for (;;) {
      const next = await guard(prompts.next());
      if (next.done) break;
      if (!interactive || options.prompts.length > 0) printLine(`> ${next.value}`);
      turnActive = true;
      cancelRequested = false;
      let stopReason: StopReason;
      try {
        const response = await guard(
          connection.agent.request(methods.agent.session.prompt, {
            sessionId,
            prompt: [{ type: 'text', text: next.value }],
          }),
        );
        stopReason = response.stopReason;
      } catch (error) {
        // A turn the agent failed is reported; a person can try again, a script stops with a failure.
        if (!(error instanceof RequestError) || !interactive) throw error;
        reportError(describeAgentError(error));
        continue;
      } finally {
        turnActive = false;
      }
      // Output held behind a prompt (a URL wait) is flushed before the turn's closing line.
      await terminal.settled();
      terminal.write(transcript.endTurn(stopReason));
    }
    return await stop(ExitCode.Ok);
  } catch (error) {
    showUpdates = false;
    if (error instanceof EndedRun) {
      if (error.reason === undefined) {
        terminal.write(transcript.breakLine());
        return await stop(error.code);
      }
      await terminal.settled();
      reportError(error.reason.message);
      return await stop(error.code);
    }
    // A closed connection usually means the agent died: wait for a form on screen to close, then name the exit.
    const exit =
      ClientError.isInstance(error) || error instanceof RequestError || AgentProcessError.isInstance(error)
        ? undefined
        : await Promise.race([
            agentGone,
            new Promise<undefined>((resolve) =>
              setTimeout(() => resolve(undefined), EXIT_REPORT_WAIT_MS).unref(),
            ),
          ]);
    // The agent is gone: closing the connection closes any form it left on screen, before the one error line.
    if (!agent.isRunning) connection.close();
    await terminal.settled();
    if (exit !== undefined) reportError(exit.message);
    else if (ClientError.isInstance(error) || AgentProcessError.isInstance(error)) reportError(error.message);
    else if (error instanceof RequestError) reportError(describeAgentError(error));
    else reportError(`Connection to the agent lost: ${(error as Error).message}.`);
    return await stop(ExitCode.RuntimeFailure);
  }
}
