import { basename } from 'node:path';
import type { AgentProcess } from './agent-process.js';
import { AgentProcessError, TestingErrorCode } from './errors.js';

/**
 * How long an agent that wrote non-JSON to stdout still gets to answer `initialize`. Short enough that, with the
 * start-up of the program and its teardown, the failure lands inside a test runner's default timeout (vitest: 5 s).
 */
export const NON_ACP_GRACE_MS = 2_000;

/** How long an agent gets to answer `initialize` at all, unless the caller says otherwise. */
export const DEFAULT_INITIALIZE_TIMEOUT_MS = 30_000;

/** Longest command line shown; a longer one keeps its start and its end (where the script name usually is). */
const MAX_COMMAND_CHARACTERS = 80;

/** Characters a POSIX shell reads as they are; any other word is single-quoted. */
const PLAIN_WORD = /^[\w@%+=:,./-]+$/;

/** An argument holding a URL (`ws://…`, `https://…`): shown whole, or a name would hide its host, port and path. */
const URL_WORD = /[a-z][a-z\d+.-]*:\/\//i;

/** How much of the length limit a URL takes up, however long it is: a long URL still leaves room for its command. */
const URL_WEIGHT = 30;

/** The length of `words` joined by spaces, a URL counting as at most {@link URL_WEIGHT} characters. */
function weightedLength(words: readonly string[]): number {
  return words.reduce(
    (sum, word) => sum + 1 + (URL_WORD.test(word) ? Math.min(word.length, URL_WEIGHT) : word.length),
    -1,
  );
}

/**
 * The words of a command cut to {@link MAX_COMMAND_CHARACTERS} by whole words: paths shortened to `…/name`, then the
 * program and every URL always stay, and every other word, from the start, that still fits; `…` marks each run of
 * dropped words.
 */
function keepWholeWords(fullWords: readonly string[]): string {
  if (weightedLength(fullWords) <= MAX_COMMAND_CHARACTERS) return fullWords.join(' ');
  // Paths first give up their directories: `…/cli.js` still says which script runs.
  const words = fullWords.map((word, index) =>
    index > 0 && !URL_WORD.test(word) && /^[^']*\/[^/']+$/.test(word) ? `…/${basename(word)}` : word,
  );
  const kept = new Set(words.flatMap((word, index) => (index === 0 || URL_WORD.test(word) ? [index] : [])));
  const shown = (indexes: ReadonlySet<number>) => {
    const parts: string[] = [];
    words.forEach((word, index) => {
      if (indexes.has(index)) parts.push(word);
      else if (parts.at(-1) !== '…') parts.push('…');
    });
    return parts;
  };
  const tryKeep = (index: number) => {
    const candidate = new Set(kept).add(index);
    if (weightedLength(shown(candidate)) > MAX_COMMAND_CHARACTERS) return false;
    kept.add(index);
    return true;
  };
  for (let index = 1; index < words.length; index += 1) if (!kept.has(index)) tryKeep(index);
  return shown(kept).join(' ');
}

/**
 * An agent command as a person reads it, and could paste into a shell: the program's base name, then the arguments,
 * single-quoted when they hold spaces, quotes or other shell characters. A long one is cut in the middle, keeping its
 * start and its end (where the script name usually is); one with a URL drops whole arguments instead, never a part of
 * the URL.
 *
 * @example
 * ```ts
 * describeCommand(['/usr/bin/node', 'agent.js', '--name', 'my agent']); // "node agent.js --name 'my agent'"
 * ```
 */
export function describeCommand(command: readonly string[]): string {
  const [program, ...args] = command;
  const words = [basename(program ?? 'agent'), ...args].map((word) =>
    PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`,
  );
  const text = words.join(' ');
  if (text.length <= MAX_COMMAND_CHARACTERS) return text;
  if (words.some((word) => URL_WORD.test(word))) return keepWholeWords(words);
  const head = 30;
  return `${text.slice(0, head)}…${text.slice(text.length - (MAX_COMMAND_CHARACTERS - head - 1))}`;
}

/**
 * A command line set off from the sentence around it with typographic quotes, which no shell quoting inside it can
 * be confused with: `the agent “node -e 'console.log("hi")'”`.
 *
 * @example
 * ```ts
 * quoteCommand(['node', 'agent.js']); // '“node agent.js”'
 * ```
 */
export function quoteCommand(command: readonly string[]): string {
  return `“${describeCommand(command)}”`;
}

/** Options of {@link awaitInitialize}. */
export interface AwaitInitializeOptions {
  /** After a non-JSON stdout line, how long `initialize` may still take; default {@link NON_ACP_GRACE_MS}. */
  readonly notAcpGraceMs?: number;
  /** How long `initialize` may take at all; default {@link DEFAULT_INITIALIZE_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Called once when `initialize` is still unanswered after `waitingNoticeMs` (the client says it is waiting). */
  readonly onWaiting?: (waitedMs: number) => void;
  /** When to call `onWaiting`; never when absent. */
  readonly waitingNoticeMs?: number;
  /** How the timeout is named in its message (`initializeTimeoutMs`, `--initialize-timeout`). */
  readonly timeoutOption?: string;
}

function seconds(milliseconds: number): string {
  return `${Number((milliseconds / 1000).toFixed(1))} s`;
}

/**
 * Awaits `initialize` sent to a stdio agent, but not forever: a program that writes a non-JSON line to stdout and
 * then does not answer within {@link NON_ACP_GRACE_MS} is not an ACP agent (an agent that only logs a stray line and
 * then answers is fine), and an agent that says nothing at all gets `timeoutMs`. The caller stops the agent on
 * either failure, with {@link AgentProcess.abandon} (it never spoke ACP: there is nothing to close gracefully).
 *
 * @throws {@link AgentProcessError} `NOT_AN_ACP_AGENT` (with the line's preview and what to check) or
 * `INITIALIZE_TIMEOUT`.
 * @example
 * ```ts
 * const response = await awaitInitialize(connection.agent.request(methods.agent.initialize, params), agent, command);
 * ```
 */
export async function awaitInitialize<T>(
  initialize: Promise<T>,
  agent: AgentProcess,
  command: readonly string[],
  options: AwaitInitializeOptions = {},
): Promise<T> {
  const graceMs = options.notAcpGraceMs ?? NON_ACP_GRACE_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS;
  const timers: NodeJS.Timeout[] = [];
  let unsubscribe: () => void = () => undefined;
  const gaveUp = new Promise<AgentProcessError>((resolve) => {
    const startGrace = (preview: string) => {
      unsubscribe();
      timers.push(
        setTimeout(() => {
          resolve(
            new AgentProcessError(
              TestingErrorCode.NotAnAcpAgent,
              `The agent wrote text that is not JSON-RPC to stdout (${JSON.stringify(preview)}) and did not answer ` +
                `initialize within ${seconds(graceMs)}. Is ${quoteCommand(command)} an ACP agent? A stdio ACP agent ` +
                'must write only JSON-RPC to stdout and its logs to stderr.',
            ),
          );
        }, graceMs),
      );
    };
    const first = agent.nonJsonLines[0];
    if (first !== undefined) startGrace(first.preview);
    else unsubscribe = agent.onNonJsonLine((line) => startGrace(line.preview));
    const option = options.timeoutOption === undefined ? '' : ` (${options.timeoutOption})`;
    timers.push(
      setTimeout(() => {
        resolve(
          new AgentProcessError(
            TestingErrorCode.InitializeTimeout,
            `The agent did not answer initialize within ${seconds(timeoutMs)}${option}. Is ` +
              `${quoteCommand(command)} an ACP agent that speaks JSON-RPC on stdout? A mirror (acpkit ` +
              'run --addr, acpremote mirror) waits like this when the remote agent does not answer: see the ' +
              "server's log.",
          ),
        );
      }, timeoutMs),
    );
    const { onWaiting, waitingNoticeMs } = options;
    if (onWaiting !== undefined && waitingNoticeMs !== undefined && waitingNoticeMs < timeoutMs) {
      timers.push(setTimeout(() => onWaiting(waitingNoticeMs), waitingNoticeMs));
    }
  });
  try {
    return await Promise.race([
      initialize,
      gaveUp.then((error) => {
        throw error;
      }),
    ]);
  } finally {
    for (const timer of timers) clearTimeout(timer);
    unsubscribe();
  }
}
