import { basename } from 'node:path';
import type { AgentProcess } from './agent-process.js';
import { AgentProcessError, TestingErrorCode } from './errors.js';

/** How long an agent that wrote non-JSON to stdout still gets to answer `initialize`. */
export const NON_ACP_GRACE_MS = 5_000;

/** Longest command line shown; a longer one keeps its start and its end (where the script name usually is). */
const MAX_COMMAND_CHARACTERS = 80;

/**
 * An agent command as a person reads it: the program's base name, then the arguments (quoted when they hold
 * spaces); a long one is cut in the middle.
 *
 * @example
 * ```ts
 * describeCommand(['/usr/bin/node', 'agent.js', '--name', 'my agent']); // 'node agent.js --name "my agent"'
 * ```
 */
export function describeCommand(command: readonly string[]): string {
  const [program, ...args] = command;
  const words = [basename(program ?? 'agent'), ...args].map((word) =>
    /[\s"']/.test(word) || word === '' ? JSON.stringify(word) : word,
  );
  const text = words.join(' ');
  if (text.length <= MAX_COMMAND_CHARACTERS) return text;
  const head = 30;
  return `${text.slice(0, head)}…${text.slice(text.length - (MAX_COMMAND_CHARACTERS - head - 1))}`;
}

/**
 * Awaits `initialize` sent to a stdio agent, unless the agent wrote a non-JSON line to stdout and then did not
 * answer within {@link NON_ACP_GRACE_MS}: a program that prints text instead of speaking JSON-RPC would otherwise
 * leave the client waiting forever. An agent that only logs a stray line and then answers is fine.
 *
 * @throws {@link AgentProcessError} `NOT_AN_ACP_AGENT` with the line's preview and what to check.
 * @example
 * ```ts
 * const response = await initializeUnlessNotAcp(connection.agent.request(methods.agent.initialize, params), agent, command);
 * ```
 */
export async function initializeUnlessNotAcp<T>(
  initialize: Promise<T>,
  agent: AgentProcess,
  command: readonly string[],
  graceMs: number = NON_ACP_GRACE_MS,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: () => void = () => undefined;
  const notAcp = new Promise<never>((_, reject) => {
    const startGrace = (preview: string) => {
      unsubscribe();
      timer = setTimeout(() => {
        reject(
          new AgentProcessError(
            TestingErrorCode.NotAnAcpAgent,
            `The agent wrote text that is not JSON-RPC to stdout (${JSON.stringify(preview)}) and did not answer ` +
              `initialize within ${graceMs / 1000} s. Is "${describeCommand(command)}" an ACP agent? A stdio ACP ` +
              'agent must write only JSON-RPC to stdout and its logs to stderr.',
          ),
        );
      }, graceMs);
    };
    const first = agent.nonJsonLines[0];
    if (first !== undefined) startGrace(first.preview);
    else unsubscribe = agent.onNonJsonLine((line) => startGrace(line.preview));
  });
  try {
    return await Promise.race([initialize, notAcp]);
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
}
