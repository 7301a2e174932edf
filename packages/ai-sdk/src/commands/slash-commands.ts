// Slash commands: what the author declares (`commands`), their check, the `available_commands_update` that
// announces them, and how a prompt starting with `/name` is matched (the rest of its first text is the input).
import { invalidOption } from '@acpkit/errors';
import type { AvailableCommand, ContentBlock } from '@agentclientprotocol/sdk';
import type { ConfigValue } from '../session-state/session-state.js';

/**
 * What a command's `run` gets: its input (the text after `/name`), the session and a way to talk to the user.
 *
 * @example
 * ```ts
 * import type { AiSdkCommandContext } from '@acpkit/ai-sdk';
 *
 * const run = async ({ input, say }: AiSdkCommandContext) => say(`You said ${input}`);
 * ```
 */
export interface AiSdkCommandContext {
  /** The text after `/name ` (empty when none). */
  readonly input: string;
  readonly sessionId: string;
  readonly cwd: string;
  /** The session's mode id and config values (read-only copies). */
  readonly modeId: string | undefined;
  readonly config: Readonly<Record<string, ConfigValue>>;
  /** The turn's cancellation. */
  readonly signal: AbortSignal;
  /** Sends text to the user (`agent_message_chunk`). */
  say(text: string): Promise<void>;
}

/**
 * A slash command (ACP `availableCommands`): `/name input` either runs `run` (its returned text is the answer) or
 * sends the model `prompt` (a template: `$ARGUMENTS` is replaced by the input; a function gets the input).
 *
 * @example
 * ```ts
 * import type { AiSdkCommand } from '@acpkit/ai-sdk';
 *
 * const review: AiSdkCommand = {
 *   name: 'review',
 *   description: 'Review the changes in a file',
 *   input: { hint: 'path of the file' },
 *   prompt: 'Review $ARGUMENTS for bugs and style; list what to change.',
 * };
 * ```
 */
export interface AiSdkCommand {
  /** The command's name, without `/` (letters, digits, `-`, `_`). */
  readonly name: string;
  readonly description: string;
  /** Shown as a hint for the command's input. */
  readonly input?: { readonly hint: string } | undefined;
  /** Runs the command; a string it returns (or resolves) is the answer shown to the user. */
  readonly run?: ((context: AiSdkCommandContext) => unknown) | undefined;
  readonly prompt?: string | ((input: string) => string) | undefined;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks `commands`: unique names, a description, exactly one of `run` and `prompt`. */
export function resolveCommands(value: unknown): readonly AiSdkCommand[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw invalidOption('commands', 'an array of { name, description, run | prompt }', value);
  const seen = new Set<string>();
  value.forEach((command: unknown, index) => {
    const at = `commands[${index}]`;
    if (!isRecord(command)) throw invalidOption(at, 'an object { name, description, run | prompt }', command);
    if (typeof command.name !== 'string' || !NAME.test(command.name)) {
      throw invalidOption(`${at}.name`, 'a name of letters, digits, - and _ (without /)', command.name);
    }
    if (seen.has(command.name))
      throw invalidOption(`${at}.name`, 'a name no other command has', command.name);
    seen.add(command.name);
    if (typeof command.description !== 'string')
      throw invalidOption(`${at}.description`, 'a string', command.description);
    const hasRun = typeof command.run === 'function';
    const hasPrompt = typeof command.prompt === 'string' || typeof command.prompt === 'function';
    if (hasRun === hasPrompt) throw invalidOption(at, 'exactly one of run (a function) and prompt', command);
    if (command.input !== undefined && !(isRecord(command.input) && typeof command.input.hint === 'string')) {
      throw invalidOption(`${at}.input`, 'an object { hint }', command.input);
    }
  });
  return value as readonly AiSdkCommand[];
}

/** The commands as ACP announces them. */
export function availableCommands(commands: readonly AiSdkCommand[]): AvailableCommand[] {
  return commands.map((command) => ({
    name: command.name,
    description: command.description,
    ...(command.input === undefined ? {} : { input: { hint: command.input.hint } }),
  }));
}

/** The command a prompt invokes (its first block is text starting with `/name`), with its input. */
export function matchCommand(
  commands: readonly AiSdkCommand[],
  prompt: readonly ContentBlock[],
): { readonly command: AiSdkCommand; readonly input: string } | undefined {
  const first = prompt[0];
  if (commands.length === 0 || first?.type !== 'text') return undefined;
  const match = /^\/([A-Za-z0-9][A-Za-z0-9_-]*)(?:\s+([\s\S]*))?$/.exec(first.text.trim());
  if (match === null) return undefined;
  const command = commands.find((candidate) => candidate.name === match[1]);
  return command === undefined ? undefined : { command, input: (match[2] ?? '').trim() };
}

/** The prompt a template command sends the model: its text with the input in place of `$ARGUMENTS`. */
export function expandPrompt(
  command: AiSdkCommand,
  input: string,
  rest: readonly ContentBlock[],
): ContentBlock[] {
  const template = command.prompt;
  const text =
    typeof template === 'function'
      ? template(input)
      : (template ?? '').includes('$ARGUMENTS')
        ? (template ?? '').replaceAll('$ARGUMENTS', input)
        : `${template ?? ''}${input === '' ? '' : `\n\n${input}`}`;
  return [{ type: 'text', text }, ...rest];
}
