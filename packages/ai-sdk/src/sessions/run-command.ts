// A slash command with `run`: the user's `/name input` and the command's answer, shown and kept like a turn, without
// a model call (the history gets both, so the model knows what was done).
import type { AcpSessionContext } from '@acpkit/elicitation';
import { type ContentBlock, RequestError, type StopReason } from '@agentclientprotocol/sdk';
import type { AiSdkCommand } from '../commands/slash-commands.js';
import type { SessionState } from '../session-state/session-state.js';
import type { Transcript } from './transcript.js';

/** What a command's run needs of its open session (a `LiveSession`). */
export interface CommandHost {
  readonly sessionId: string;
  readonly cwd: string;
  readonly transcript: Transcript;
  readonly state: SessionState;
  /** Keeps the user's text and the command's answer in the model's history. */
  recordExchange(userText: string, answer: string): void;
}

/** Runs `command` in `live` for the prompt `prompt`; a command that throws fails the prompt with its message. */
export async function runCommand(
  live: CommandHost,
  session: AcpSessionContext,
  command: AiSdkCommand,
  input: string,
  prompt: readonly ContentBlock[],
): Promise<StopReason> {
  for (const content of prompt) live.transcript.record({ sessionUpdate: 'user_message_chunk', content });
  const said: string[] = [];
  const say = async (text: string): Promise<void> => {
    if (text === '') return;
    said.push(text);
    const update = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } as const;
    live.transcript.record(update);
    await session.update(update);
  };
  let answer: unknown;
  try {
    answer = await command.run?.({
      input,
      sessionId: live.sessionId,
      cwd: live.cwd,
      modeId: live.state.modeId,
      config: Object.fromEntries(live.state.config),
      signal: session.signal,
      say,
    });
  } catch (error) {
    throw RequestError.internalError(
      { command: command.name },
      `the command /${command.name} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (typeof answer === 'string') await say(answer);
  const userText = prompt.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  live.recordExchange(userText, said.join(''));
  return session.cancelled ? 'cancelled' : 'end_turn';
}
