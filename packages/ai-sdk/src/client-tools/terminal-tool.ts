// clientTerminalTool(): the model runs a command in a terminal of the editor (`terminal/create`); the terminal is
// embedded in the tool call so the user watches it run, the output is waited for under the turn's cancellation
// (a cancelled turn kills the command), and the terminal is always released.
import type { ElicitationClient } from '@acpkit/elicitation';
import { invalidOption } from '@acpkit/errors';
import type { Tool } from 'ai';
import { z } from 'zod';
import { sessionTool, type ToolRuntime } from '../tools/session-tools.js';
import { clientRequest } from './client-requests.js';

/**
 * Options of {@link clientTerminalTool}.
 *
 * @example
 * ```ts
 * import type { ClientTerminalToolOptions } from '@acpkit/ai-sdk';
 *
 * const options: ClientTerminalToolOptions = { shell: 'bash', timeoutMs: 120_000, outputByteLimit: 32_768 };
 * ```
 */
export interface ClientTerminalToolOptions {
  /** Ask the user before each command (`session/request_permission`). Default `true`. */
  readonly needsApproval?: boolean | undefined;
  /** The client keeps at most this many bytes of output (its `outputByteLimit`; older output is dropped). Default 65 536. */
  readonly outputByteLimit?: number | undefined;
  /** A command still running after this long is killed. Default 600 000 (10 minutes). */
  readonly timeoutMs?: number | undefined;
  /** Run the command line through this shell (`<shell> -c "<command>"`). Default: the command runs as given. */
  readonly shell?: string | undefined;
}

export const DEFAULT_OUTPUT_BYTE_LIMIT = 65_536;
export const DEFAULT_TERMINAL_TIMEOUT_MS = 600_000;

const terminalInput = z.object({
  command: z.string().min(1).describe('The command to run (with `shell`, a whole command line).'),
  args: z.array(z.string()).optional().describe('Its arguments.'),
  cwd: z.string().optional().describe('Where to run it (default: the working directory).'),
});

/** What the model gets back from a command. */
export interface TerminalToolResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly output: string;
  /** The client dropped older output (over `outputByteLimit`). */
  readonly truncated: boolean;
  /** Why the command did not finish on its own (`timeout`), when it did not. */
  readonly killed?: 'timeout' | undefined;
}

interface ResolvedTerminalOptions {
  readonly needsApproval: boolean;
  readonly outputByteLimit: number;
  readonly timeoutMs: number;
  readonly shell: string | undefined;
}

function resolveTerminalOptions(options: ClientTerminalToolOptions): ResolvedTerminalOptions {
  const positive = (name: string, value: number | undefined, fallback: number) => {
    if (value === undefined) return fallback;
    if (!Number.isSafeInteger(value) || value < 1)
      throw invalidOption(`clientTerminalTool ${name}`, 'a positive integer', value);
    return value;
  };
  if (options.shell !== undefined && (typeof options.shell !== 'string' || options.shell === '')) {
    throw invalidOption('clientTerminalTool shell', 'a non-empty string', options.shell);
  }
  return {
    needsApproval: options.needsApproval !== false,
    outputByteLimit: positive('outputByteLimit', options.outputByteLimit, DEFAULT_OUTPUT_BYTE_LIMIT),
    timeoutMs: positive('timeoutMs', options.timeoutMs, DEFAULT_TERMINAL_TIMEOUT_MS),
    shell: options.shell,
  };
}

/** Releases the terminal; a failure to release is not the command's failure (the client may be gone). */
async function release(client: ElicitationClient, sessionId: string, terminalId: string): Promise<void> {
  await clientRequest(client, 'terminal/release', { sessionId, terminalId }, 'release the terminal').catch(
    () => undefined,
  );
}

async function run(
  runtime: ToolRuntime,
  input: z.infer<typeof terminalInput>,
  toolCallId: string,
  abortSignal: AbortSignal | undefined,
  options: ResolvedTerminalOptions,
): Promise<TerminalToolResult> {
  const { client, sessionId } = runtime.session;
  const [command, args] =
    options.shell === undefined
      ? [input.command, input.args ?? []]
      : [options.shell, ['-c', [input.command, ...(input.args ?? [])].join(' ')]];
  const created = await clientRequest(
    client,
    'terminal/create',
    { sessionId, command, args, cwd: input.cwd ?? runtime.cwd, outputByteLimit: options.outputByteLimit },
    `start \`${input.command}\``,
    abortSignal,
  );
  const terminalId = (created as { terminalId?: unknown } | null)?.terminalId;
  if (typeof terminalId !== 'string' || terminalId === '') {
    throw new Error('The editor answered terminal/create without a terminalId.');
  }
  try {
    await runtime.send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      content: [{ type: 'terminal', terminalId }],
    });
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const waiting = abortSignal === undefined ? timeout : AbortSignal.any([abortSignal, timeout]);
    let killed: 'timeout' | undefined;
    try {
      await clientRequest(
        client,
        'terminal/wait_for_exit',
        { sessionId, terminalId },
        'wait for the command',
        waiting,
      );
    } catch (error) {
      if (!waiting.aborted) throw error;
      // Cancelled or timed out: the command must not run on unwatched.
      await clientRequest(client, 'terminal/kill', { sessionId, terminalId }, 'kill the command').catch(
        () => undefined,
      );
      if (abortSignal?.aborted) throw abortSignal.reason;
      killed = 'timeout';
    }
    const output = (await clientRequest(
      client,
      'terminal/output',
      { sessionId, terminalId },
      'send the command output',
    )) as {
      output?: unknown;
      truncated?: unknown;
      exitStatus?: { exitCode?: unknown; signal?: unknown } | null;
    };
    const text = typeof output?.output === 'string' ? output.output : '';
    // The client bounds what it keeps; a client that does not still cannot flood the model.
    const bounded = text.length > options.outputByteLimit ? text.slice(-options.outputByteLimit) : text;
    return {
      exitCode: typeof output?.exitStatus?.exitCode === 'number' ? output.exitStatus.exitCode : null,
      signal: typeof output?.exitStatus?.signal === 'string' ? output.exitStatus.signal : null,
      output: bounded,
      truncated: output?.truncated === true || bounded.length < text.length,
      ...(killed === undefined ? {} : { killed }),
    };
  } finally {
    await release(client, sessionId, terminalId);
  }
}

/**
 * A tool that runs a command in a terminal of the ACP client (`terminal/create`): the terminal is embedded in the
 * tool call (the user sees the output live), the command is killed when the turn is cancelled or after
 * `timeoutMs`, and the terminal is released either way. The model gets `{ exitCode, signal, output, truncated }`.
 * Offered only when the client advertises `terminal`; asks the user first unless `needsApproval: false`.
 *
 * @throws `OptionError` (`@acpkit/errors`, code `INVALID_OPTION`) for a bad option.
 * @example
 * ```ts
 * import { clientTerminalTool, createAiSdkAgent } from '@acpkit/ai-sdk';
 * import type { LanguageModel } from 'ai';
 *
 * declare const model: LanguageModel;
 * export const createAgent = () =>
 *   createAiSdkAgent({ name: 'coder', version: '1.0.0', model, tools: { terminal: clientTerminalTool({ shell: 'sh' }) } });
 * ```
 */
export function clientTerminalTool(
  options: ClientTerminalToolOptions = {},
): Tool<z.infer<typeof terminalInput>, TerminalToolResult> {
  const resolved = resolveTerminalOptions(options);
  return sessionTool(
    {
      description: `Run a command in the user's terminal and get its exit code and output${resolved.shell === undefined ? '' : ` (through ${resolved.shell} -c)`}.`,
      title: 'Run command',
      inputSchema: terminalInput,
      offered: (runtime) => runtime.session.clientCapabilities?.terminal === true,
      keepsContent: true,
      needsApproval: resolved.needsApproval,
      describe: (input) => {
        const { command, args } = (input ?? {}) as Partial<z.infer<typeof terminalInput>>;
        const line = [command ?? 'a command', ...(args ?? [])].join(' ');
        return { title: `Run ${line.length > 80 ? `${line.slice(0, 79)}…` : line}`, kind: 'execute' };
      },
      execute: (runtime, input, { toolCallId, abortSignal }) =>
        run(runtime, input, toolCallId, abortSignal, resolved),
    },
    'clientTerminalTool()',
  );
}
