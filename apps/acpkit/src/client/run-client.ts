import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { ExitCode } from '@acpkit/cli-support';
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
import { AgentProcess } from './agent-process.js';
import type { Answerer, FormElicitationRequest, UrlElicitationRequest } from './answerer.js';
import { AutomaticAnswerer } from './automatic-answerer.js';
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
  /** Prompts to send in order; when empty the client reads prompts from the person (TTY) or stdin lines. */
  readonly prompts: readonly string[];
  readonly input: Readable & { isTTY?: boolean };
  readonly output: Writable;
  readonly errorOutput: Writable;
  /** The client's own version, sent as `clientInfo.version`. */
  readonly version: string;
}

function isFormRequest(request: CreateElicitationRequest): request is FormElicitationRequest {
  return request.mode === 'form' && 'requestedSchema' in request;
}

function isUrlRequest(request: CreateElicitationRequest): request is UrlElicitationRequest {
  return request.mode === 'url' && 'url' in request && 'elicitationId' in request;
}

/** "Title (name version)", the agent's self-description from `initialize`, or the command's name. */
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
  return `the agent ${basename(command[0] ?? 'agent')}`;
}

/** Where the prompts of a run come from. */
async function* promptSource(options: ClientRunOptions, terminal: TerminalOutput): AsyncGenerator<string> {
  if (options.prompts.length > 0) {
    yield* options.prompts;
    return;
  }
  if (options.input.isTTY === true) {
    for (;;) {
      const line = await terminal.exclusive(() =>
        text({
          input: options.input,
          output: options.output,
          message: 'You',
          placeholder: 'message the agent (Esc to quit)',
        }),
      );
      if (isCancel(line)) return;
      const trimmed = (line ?? '').trim();
      if (trimmed === '/exit' || trimmed === '/quit') return;
      if (trimmed.length > 0) yield trimmed;
    }
  }
  const lines = createInterface({ input: options.input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) {
      const trimmed = line.trim();
      if (trimmed.length > 0) yield trimmed;
    }
  } finally {
    lines.close();
  }
}

/**
 * Runs one conversation with a stdio ACP agent: spawns it, initializes advertising form and URL elicitation, opens a
 * session in `cwd`, sends each prompt, streams the agent's messages, tool calls and plans, and answers forms and
 * permission requests (interactively, or with defaults under `--yes`/non-TTY). The first SIGINT during a turn sends
 * `session/cancel`; a second one stops. Resolves with the process exit code; the agent is always reaped.
 *
 * @example
 * ```ts
 * const code = await runClient({
 *   command: ['node', 'agent.js'], cwd: process.cwd(), yes: true, prompts: ['deploy'],
 *   input: process.stdin, output: process.stdout, errorOutput: process.stderr, version: '0.1.0',
 * });
 * ```
 */
export async function runClient(options: ClientRunOptions): Promise<number> {
  const interactive = !options.yes && options.input.isTTY === true;
  const terminal = new TerminalOutput(options.output);
  const transcript = new Transcript();
  const printLine = (line: string) => terminal.write(transcript.line(line));
  const reportError = (message: string) => {
    terminal.write(transcript.breakLine());
    options.errorOutput.write(`Error: ${message}\n`);
  };

  let agentLabel = describeAgent(undefined, options.command);
  let answerer: Answerer = createAnswerer();
  function createAnswerer(): Answerer {
    return interactive
      ? new InteractiveAnswerer(agentLabel, { input: options.input, output: options.output })
      : new AutomaticAnswerer(agentLabel, printLine);
  }

  let agent: AgentProcess;
  try {
    agent = await AgentProcess.start(options.command, options.cwd);
  } catch (error) {
    reportError((error as Error).message);
    return ClientError.isInstance(error) && error.code === ClientErrorCode.InvalidOption
      ? ExitCode.Usage
      : ExitCode.RuntimeFailure;
  }

  let sessionId: string | undefined;
  const pendingUrlCompletions = new Map<string, AbortController>();
  const connection: ClientConnection = client({ name: 'acpkit-client' })
    .onRequest(methods.client.elicitation.create, async ({ params, signal }) => {
      if (isFormRequest(params)) return terminal.exclusive(() => answerer.answerForm(params, signal));
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
      if (params.sessionId === sessionId) terminal.write(transcript.render(params.update));
    })
    .onNotification(methods.client.elicitation.complete, ({ params }) => {
      // Unknown or already-completed ids are ignored, as the spec asks.
      pendingUrlCompletions.get(params.elicitationId)?.abort();
    })
    .connect(agent.stream);

  let turnActive = false;
  let cancelRequested = false;
  let stopping: Promise<number> | undefined;
  const agentGone = agent.exited.then((exit) => {
    const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
    return new ClientError(ClientErrorCode.AgentExited, `The agent exited (${how}).`);
  });

  const stop = (code: number): Promise<number> => {
    stopping ??= (async () => {
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onTerminate);
      // The agent goes first: closing the connection first would close our end of its stdout while it may still be
      // flushing, and it would die of EPIPE instead of exiting on stdin EOF.
      await agent.stop();
      connection.close();
      return code;
    })();
    return stopping;
  };
  let resolveInterrupted: (code: number) => void = () => undefined;
  const interrupted = new Promise<number>((resolve) => {
    resolveInterrupted = resolve;
  });
  function onInterrupt(): void {
    if (turnActive && !cancelRequested && sessionId !== undefined) {
      cancelRequested = true;
      printLine('Cancelling the turn… (press Ctrl+C again to quit)');
      void connection.agent.notify(methods.agent.session.cancel, { sessionId }).catch(() => undefined);
      return;
    }
    resolveInterrupted(ExitCode.Interrupted);
  }
  function onTerminate(): void {
    resolveInterrupted(ExitCode.Terminated);
  }
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onTerminate);

  /** Awaits `work`, unless the agent exits or the person interrupts first. */
  async function guard<T>(work: Promise<T>): Promise<T> {
    const result = await Promise.race([
      work.then((value) => ({ kind: 'done' as const, value })),
      agentGone.then((error) => ({ kind: 'gone' as const, error })),
      interrupted.then((code) => ({ kind: 'interrupted' as const, code })),
    ]);
    if (result.kind === 'done') return result.value;
    if (result.kind === 'gone') throw result.error;
    throw new InterruptedRun(result.code);
  }

  try {
    const initialize = await guard(
      connection.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { elicitation: { form: {}, url: {} } },
        clientInfo: { name: 'acpkit-client', title: 'ACP Kit terminal client', version: options.version },
      }),
    );
    agentLabel = describeAgent(initialize, options.command);
    answerer = createAnswerer();
    printLine(`Connected to ${agentLabel}.`);
    const session = await guard(
      connection.agent.request(methods.agent.session.new, { cwd: options.cwd, mcpServers: [] }),
    );
    sessionId = session.sessionId;

    const prompts = promptSource(options, terminal);
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
        reportError(`The agent answered with an error: ${error.message}`);
        continue;
      } finally {
        turnActive = false;
      }
      // Output held behind a prompt (a URL wait) is flushed before the turn's closing line.
      await terminal.exclusive(async () => undefined);
      terminal.write(transcript.endTurn(stopReason));
    }
    return await stop(ExitCode.Ok);
  } catch (error) {
    if (error instanceof InterruptedRun) {
      terminal.write(transcript.breakLine());
      return await stop(error.code);
    }
    // A closed connection usually means the agent died; name its exit status when it follows promptly.
    const exit =
      ClientError.isInstance(error) || error instanceof RequestError
        ? undefined
        : await Promise.race([
            agentGone,
            new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 3_000).unref()),
          ]);
    if (exit !== undefined) reportError(exit.message);
    else if (ClientError.isInstance(error)) reportError(error.message);
    else if (error instanceof RequestError) reportError(`The agent answered with an error: ${error.message}`);
    else reportError(`The connection to the agent failed: ${(error as Error).message}`);
    return await stop(ExitCode.RuntimeFailure);
  }
}

/** Thrown out of the conversation loop when the person interrupts (second Ctrl+C) or SIGTERM arrives. */
class InterruptedRun extends Error {
  constructor(readonly code: number) {
    super('interrupted');
  }
}
