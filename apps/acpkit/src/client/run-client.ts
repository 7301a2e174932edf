import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { CliError, CliErrorCode, type CliIo, ExitCode, type StopSignal } from '@acpkit/cli-support';
import { AcpKitError } from '@acpkit/errors';
import { AgentProcessError, ScriptedAnswerError, TestingErrorCode } from '@acpkit/testing';
import {
  AgentProcess,
  agentErrorDetail,
  awaitInitialize,
  isFormRequest,
  type NonJsonLine,
  quoteCommand,
} from '@acpkit/testing/internal';
import {
  type ClientConnection,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
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
import { InteractiveAnswerer } from './interactive-answerer.js';
import { LocalWorkspace } from './local-workspace.js';
import { ClientSessionControls } from './session-controls.js';
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
  const detail = agentErrorDetail(error.data);
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

/**
 * Why the conversation ended early: the person or a signal stopped it, or a script did not fit a form. Thrown out of
 * the awaited step and caught by {@link ClientRun.fail}; never leaves the run.
 */
class EndedRun extends AcpKitError<'RUN_ENDED'> {
  constructor(
    readonly exitCode: number,
    readonly reason?: ScriptedAnswerError,
  ) {
    super('RUN_ENDED', 'the run ended early');
  }
}

/**
 * Where a {@link ClientRun} is. It only moves forward: `initializing` → `opening-session` → `waiting-for-prompt` ⇄
 * `in-turn` (→ `cancelling-turn` after the first SIGINT) → `stopping` → `stopped`. A failure, a signal or a script
 * that does not fit a form moves it to `ending` instead of `stopping`: from then on the agent's late output is not
 * shown after the closing message.
 */
type ClientRunState =
  | 'initializing'
  | 'opening-session'
  | 'waiting-for-prompt'
  | 'in-turn'
  | 'cancelling-turn'
  | 'ending'
  | 'stopping'
  | 'stopped';

/**
 * One conversation with a started agent, in separate steps: {@link ClientRun.converse} initializes, opens the
 * session and runs the prompt loop; {@link ClientRun.cancelOrEnd} handles the stop signals; {@link ClientRun.stop}
 * tears down (once); {@link ClientRun.fail} turns whatever ended the run early into one error line and an exit code.
 */
class ClientRun {
  private state: ClientRunState = 'initializing';
  private readonly interactive: boolean;
  /** The agent's answer to `initialize`; `undefined` until it answered (then it has output to flush at the end). */
  private initializeResponse: InitializeResponse | undefined;
  private agentLabel: string;
  private answerer: Answerer;
  private sessionId: string | undefined;
  private readonly connection: ClientConnection;
  /** Settles with the error to report when the agent process exits. */
  private readonly agentGone: Promise<CliError>;
  /** Settles when a signal or a script that does not fit a form ends the run. */
  private readonly ended: Promise<EndedRun>;
  private endRun: (ended: EndedRun) => void = () => undefined;
  private readonly pendingUrlCompletions = new Map<string, AbortController>();
  private readonly prompts: AsyncGenerator<string>;
  private readonly unsubscribeSignals: () => void;
  private readonly stopWarningAboutStdout: () => void;
  private stopping: Promise<number> | undefined;
  /** Modes, options and commands of the session, and the client's commands that switch them. */
  private readonly controls = new ClientSessionControls();
  /** The files and terminals the client serves the agent (fs/*, terminal/*). */
  private readonly workspace: LocalWorkspace;

  /**
   * Runs a whole conversation: starts the agent (a command that cannot start ends the run before anything else
   * exists), then {@link ClientRun.converse}. Resolves with the exit code.
   */
  static async run(options: ClientRunOptions): Promise<number> {
    const output = new RunOutput(options.io);
    let agent: AgentProcess;
    try {
      agent = await AgentProcess.start(options.command, options.cwd, options.io.env);
    } catch (error) {
      output.reportError((error as Error).message);
      return AgentProcessError.isInstance(error) && error.code === TestingErrorCode.InvalidCommand
        ? ExitCode.Usage
        : ExitCode.RuntimeFailure;
    }
    return new ClientRun(options, output, agent).converse();
  }

  private constructor(
    private readonly options: ClientRunOptions,
    private readonly output: RunOutput,
    private readonly agent: AgentProcess,
  ) {
    this.interactive = !options.yes && options.scripts === undefined && options.io.stdin.isTTY === true;
    this.agentLabel = describeAgent(undefined, options.command);
    this.answerer = this.createAnswerer();
    this.stopWarningAboutStdout = agent.onNonJsonLine((line) => this.warnAboutStdout(line));
    this.workspace = new LocalWorkspace(options.cwd, (text) => this.output.printLine(text));
    this.ended = new Promise<EndedRun>((resolve) => {
      this.endRun = resolve;
    });
    this.connection = this.connect();
    this.agentGone = agent.exited.then((exit) => {
      const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
      // Nothing was lost from an agent that never answered initialize: it did not start up.
      return new CliError(
        CliErrorCode.AgentExited,
        this.initializeResponse === undefined
          ? `The agent exited before answering initialize (${how}).`
          : `Connection to the agent lost: it exited (${how}).`,
      );
    });
    this.unsubscribeSignals = options.io.onStopSignal((signal) => this.cancelOrEnd(signal));
    this.prompts = promptSource(options, output.terminal);
  }

  private get terminal(): TerminalOutput {
    return this.output.terminal;
  }

  private createAnswerer(): Answerer {
    const { io } = this.options;
    return this.interactive
      ? new InteractiveAnswerer(this.agentLabel, { input: io.stdin, output: io.stdout as Writable })
      : new AutomaticAnswerer(this.agentLabel, (line) => this.output.printLine(line), this.options.scripts);
  }

  private warnAboutStdout(line: NonJsonLine): void {
    const count = this.agent.nonJsonLineCount;
    if (count <= REPORTED_NON_JSON_LINES) {
      this.terminal.writeError(
        `Warning: the agent wrote a line to stdout that is not JSON-RPC; it was dropped (stdout of an ACP agent must ` +
          `carry only JSON-RPC, logs belong on stderr): ${JSON.stringify(line.preview)}\n`,
      );
    }
    if (count === REPORTED_NON_JSON_LINES) {
      this.terminal.writeError(
        'Warning: further non-JSON-RPC lines on the agent’s stdout are dropped without a warning.\n',
      );
    }
  }

  /** The client side of the ACP connection: forms, URL consent, permissions and the session's updates. */
  private connect(): ClientConnection {
    return this.workspace
      .register(client({ name: 'acpkit-client' }))
      .onRequest(methods.client.elicitation.create, ({ params, signal }) =>
        this.answerElicitation(params, signal),
      )
      .onRequest(methods.client.session.requestPermission, ({ params, signal }) =>
        this.terminal.exclusive(() => this.answerer.answerPermission(params, signal)),
      )
      .onNotification(methods.client.session.update, ({ params }) => {
        if (this.showsUpdates() && params.sessionId === this.sessionId) {
          this.controls.observe(params.update);
          this.terminal.write(this.output.transcript.render(params.update));
        }
      })
      .onNotification(methods.client.elicitation.complete, ({ params }) => {
        // Unknown or already-completed ids are ignored, as the spec asks.
        this.pendingUrlCompletions.get(params.elicitationId)?.abort();
      })
      .connect(this.agent.stream);
  }

  /** Once the run ended early, the agent's late output is not shown after the closing message. */
  private showsUpdates(): boolean {
    return this.state !== 'ending' && this.state !== 'stopped';
  }

  private async answerElicitation(
    params: CreateElicitationRequest,
    signal: AbortSignal,
  ): Promise<CreateElicitationResponse> {
    if (isFormRequest(params)) {
      try {
        return await this.terminal.exclusive(() => this.answerer.answerForm(params, signal));
      } catch (error) {
        if (!ScriptedAnswerError.isInstance(error)) throw error;
        // The script is wrong, not the agent: it gets a plain cancel, and the run ends naming the form and field.
        this.endRun(new EndedRun(ExitCode.Usage, error));
        return { action: 'cancel' };
      }
    }
    if (isUrlRequest(params)) {
      const response = await this.terminal.exclusive(() => this.answerer.answerUrl(params, signal));
      if (response.action === 'accept') {
        const completed = new AbortController();
        this.pendingUrlCompletions.set(params.elicitationId, completed);
        void this.terminal
          .exclusive(() => this.answerer.waitForUrlCompletion(params, completed.signal))
          .finally(() => this.pendingUrlCompletions.delete(params.elicitationId));
      }
      return response;
    }
    throw RequestError.invalidParams({ mode: params.mode }, `Unsupported elicitation mode: ${params.mode}`);
  }

  /** The first SIGINT during a turn cancels the turn; any other stop signal ends the run. */
  private cancelOrEnd(signal: StopSignal): void {
    const { sessionId } = this;
    if (signal === 'SIGINT' && this.state === 'in-turn' && sessionId !== undefined) {
      this.state = 'cancelling-turn';
      this.output.printLine('Cancelling the turn… (press Ctrl+C again to quit)');
      void this.connection.agent.notify(methods.agent.session.cancel, { sessionId }).catch(() => undefined);
      return;
    }
    this.endRun(new EndedRun(signal === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Terminated));
  }

  /** Awaits `work`, unless the agent exits, the person interrupts or a script fails first. */
  private async guard<T>(work: Promise<T>): Promise<T> {
    const result = await Promise.race([
      work.then((value) => ({ kind: 'done' as const, value })),
      this.agentGone.then((error) => ({ kind: 'gone' as const, error })),
      this.ended.then((end) => ({ kind: 'ended' as const, end })),
    ]);
    if (result.kind === 'done') return result.value;
    if (result.kind === 'gone') throw result.error;
    throw result.end;
  }

  /** Initializes, opens the session, runs the prompt loop and stops; resolves with the exit code. */
  private async converse(): Promise<number> {
    try {
      await this.initialize();
      const sessionId = await this.openSession();
      await this.promptLoop(sessionId);
      return await this.stop(ExitCode.Ok);
    } catch (error) {
      return await this.fail(error);
    }
  }

  private async initialize(): Promise<void> {
    const { options } = this;
    const initializeTimeoutMs = options.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS;
    this.initializeResponse = await this.guard(
      awaitInitialize(
        this.connection.agent.request(methods.agent.initialize, {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: { elicitation: { form: {}, url: {} }, ...this.workspace.capabilities },
          clientInfo: { name: 'acpkit-client', title: 'ACP Kit terminal client', version: options.version },
        }),
        this.agent,
        options.command,
        {
          timeoutMs: initializeTimeoutMs,
          timeoutOption: '--initialize-timeout',
          waitingNoticeMs: Math.min(INITIALIZE_NOTICE_MS, initializeTimeoutMs / 2),
          onWaiting: () =>
            this.terminal.writeError(
              `Waiting for the agent to answer initialize… (giving up after ${initializeTimeoutMs / 1000} s; ` +
                '--initialize-timeout changes that)\n',
            ),
        },
      ),
    );
    this.agentLabel = describeAgent(this.initializeResponse, options.command);
    this.answerer = this.createAnswerer();
    this.output.printLine(`Connected to ${this.agentLabel}.`);
  }

  private async openSession(): Promise<string> {
    this.state = 'opening-session';
    const session = await this.guard(
      this.connection.agent.request(methods.agent.session.new, { cwd: this.options.cwd, mcpServers: [] }),
    );
    this.sessionId = session.sessionId;
    for (const line of this.controls.opened(session)) this.output.printLine(line);
    this.state = 'waiting-for-prompt';
    return session.sessionId;
  }

  private async promptLoop(sessionId: string): Promise<void> {
    for (;;) {
      const next = await this.guard(this.prompts.next());
      if (next.done) return;
      if (!this.interactive || this.options.prompts.length > 0) this.output.printLine(`> ${next.value}`);
      // The client's own commands (/mode, /model, /set, /help) switch the session instead of prompting.
      const local = await this.guard(this.controls.handle(next.value, this.connection.agent, sessionId));
      if (local !== undefined) {
        this.output.printLine(local);
        continue;
      }
      const stopReason = await this.turn(sessionId, next.value);
      if (stopReason === undefined) continue;
      // Output held behind a prompt (a URL wait) is flushed before the turn's closing line.
      await this.terminal.settled();
      this.terminal.write(this.output.transcript.endTurn(stopReason));
    }
  }

  /** Sends one prompt; `undefined` when the agent failed the turn and a person can try again. */
  private async turn(sessionId: string, text: string): Promise<StopReason | undefined> {
    this.state = 'in-turn';
    try {
      const response = await this.guard(
        this.connection.agent.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text }],
        }),
      );
      return response.stopReason;
    } catch (error) {
      // A turn the agent failed is reported; a person can try again, a script stops with a failure.
      if (!(error instanceof RequestError) || !this.interactive) throw error;
      this.output.reportError(describeAgentError(error));
      return undefined;
    } finally {
      this.state = 'waiting-for-prompt';
    }
  }

  /** Tears down once: the agent first, then the connection. Resolves with `code`. */
  private stop(code: number): Promise<number> {
    this.stopping ??= this.teardown(code);
    return this.stopping;
  }

  private async teardown(code: number): Promise<number> {
    if (this.state !== 'ending') this.state = 'stopping';
    this.unsubscribeSignals();
    this.stopWarningAboutStdout();
    this.workspace.dispose();
    void this.prompts.return(undefined).catch(() => undefined);
    // The agent goes first: closing the connection first would close our end of its stdout while it may still be
    // flushing, and it would die of EPIPE instead of exiting on stdin EOF. One that never answered initialize has
    // nothing to flush: it gets SIGTERM at once.
    await (this.initializeResponse === undefined ? this.agent.abandon() : this.agent.stop());
    this.connection.close();
    this.state = 'stopped';
    return code;
  }

  /** Ends a run cut short: one error line (or none, for a signal), then the teardown. */
  private async fail(error: unknown): Promise<number> {
    this.state = 'ending';
    const { output, terminal } = this;
    if (error instanceof EndedRun) {
      if (error.reason === undefined) {
        terminal.write(output.transcript.breakLine());
        return await this.stop(error.exitCode);
      }
      await terminal.settled();
      output.reportError(error.reason.message);
      return await this.stop(error.exitCode);
    }
    // A closed connection usually means the agent died: wait for a form on screen to close, then name the exit.
    const exit =
      CliError.isInstance(error) || error instanceof RequestError || AgentProcessError.isInstance(error)
        ? undefined
        : await Promise.race([
            this.agentGone,
            new Promise<undefined>((resolve) =>
              setTimeout(() => resolve(undefined), EXIT_REPORT_WAIT_MS).unref(),
            ),
          ]);
    // The agent is gone: closing the connection closes any form it left on screen, before the one error line.
    if (!this.agent.isRunning) this.connection.close();
    await terminal.settled();
    if (exit !== undefined) output.reportError(exit.message);
    else if (CliError.isInstance(error) || AgentProcessError.isInstance(error))
      output.reportError(error.message);
    else if (error instanceof RequestError) output.reportError(describeAgentError(error));
    else output.reportError(`Connection to the agent lost: ${(error as Error).message}.`);
    return await this.stop(ExitCode.RuntimeFailure);
  }
}

/** The run's terminal and transcript, and the two ways it writes a line: to the transcript, or as an error. */
class RunOutput {
  readonly terminal: TerminalOutput;
  readonly transcript = new Transcript();

  constructor(io: ClientRunOptions['io']) {
    this.terminal = new TerminalOutput(io.stdout, io.stderr);
  }

  printLine(line: string): void {
    this.terminal.write(this.transcript.line(line));
  }

  reportError(message: string): void {
    this.terminal.write(this.transcript.breakLine());
    this.terminal.writeError(`Error: ${message}\n`);
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
export function runClient(options: ClientRunOptions): Promise<number> {
  return ClientRun.run(options);
}
