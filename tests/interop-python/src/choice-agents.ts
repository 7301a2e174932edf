// Drives the two choice agents (the real Python `ask_choice` and our `askChoice`) over stdio with a raw JSON-RPC
// peer, so every `elicitation/create` is captured exactly as sent (an SDK client would strip unknown keys).
import { type JsonRpcPeer, ndjsonPeer, type WireMessage } from '../../e2e/support/json-rpc-peer.js';
import { type ProcessExit, type SpawnedProcess, spawnProcess } from '../../e2e/support/processes.js';
import type { ChoiceCase, ClientAnswer } from './choice-cases.js';
import { interopPaths, python } from './paths.js';

/** Which implementation of the choice agent. */
export type Implementation = 'python' | 'typescript';

/** What a choice agent reported for one `/choose` prompt (the same JSON shape from both agents). */
export type ChoiceOutcome =
  | { readonly outcome: 'accepted'; readonly value: unknown }
  | { readonly outcome: 'declined' }
  | { readonly outcome: 'cancelled' }
  | {
      readonly outcome: 'error';
      readonly type: string;
      readonly code?: string | number;
      readonly message: string;
    };

/** One prompt turn as the client saw it: the forms it received (in order), the agent's text, the stop reason. */
export interface PromptTurn {
  readonly elicitations: readonly Record<string, unknown>[];
  readonly text: string;
  readonly stopReason: string;
}

/** One `/choose` turn: the `elicitation/create` params the client received (in order) and the agent's outcome. */
export interface ChoiceTurn {
  readonly elicitations: readonly Record<string, unknown>[];
  readonly outcome: ChoiceOutcome;
}

/** The `clientInfo` the raw test client sends in `initialize`. */
export const INTEROP_CLIENT_INFO = { name: 'acpkit-interop-client', version: '0.0.0' } as const;

/** The `initialize` client capabilities of a client that renders forms. */
export const FORM_CLIENT_CAPABILITIES = { elicitation: { form: {} } } as const;

/** JSON with every non-ASCII character escaped, so a prompt argument crosses every hop unchanged. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * One ACP client session over any NDJSON stdio pair (an agent process, or a mirror in front of a remote one), driven
 * with raw JSON-RPC so every `elicitation/create` is seen exactly as sent. `ask` sends a choice agent's
 * `/choose <case>` and returns the forms received plus the agent's outcome.
 */
export class RawClientSession {
  #nextId = 1;

  private constructor(
    readonly peer: JsonRpcPeer,
    readonly sessionId: string,
    /** The agent's `initialize` result. */
    readonly initializeResult: Record<string, unknown>,
  ) {}

  /**
   * initialize (with `clientCapabilities`) → session/new (with `cwd`, default the current directory), over `peer`.
   * Throws a JSON-RPC error as an Error.
   */
  static async open(
    peer: JsonRpcPeer,
    clientCapabilities: Record<string, unknown> = FORM_CLIENT_CAPABILITIES,
    cwd: string = process.cwd(),
  ): Promise<RawClientSession> {
    const initialized = resultOf(
      await peer.request('initialize', 'initialize', {
        protocolVersion: 1,
        clientCapabilities,
        clientInfo: INTEROP_CLIENT_INFO,
      }),
      'initialize',
    );
    const created = resultOf(
      await peer.request('session/new', 'session/new', { cwd, mcpServers: [] }),
      'session/new',
    );
    return new RawClientSession(peer, String(created.sessionId), initialized);
  }

  /**
   * Sends a `session/prompt` with `text`, answers every `elicitation/create` with `answer`, and resolves with the
   * forms received and the agent's text once the prompt is answered (a JSON-RPC error rejects).
   */
  async prompt(text: string, answer: ClientAnswer): Promise<PromptTurn> {
    const id = `prompt-${this.#nextId++}`;
    this.peer.send({
      jsonrpc: '2.0',
      id,
      method: 'session/prompt',
      params: { sessionId: this.sessionId, prompt: [{ type: 'text', text }] },
    });
    const elicitations: Record<string, unknown>[] = [];
    let agentReply = '';
    for (;;) {
      const message = await this.peer.next(
        (candidate) =>
          candidate.method === 'elicitation/create' ||
          candidate.method === 'session/update' ||
          (candidate.id === id && !('method' in candidate)),
      );
      if (message.method === 'elicitation/create') {
        elicitations.push(message.params as Record<string, unknown>);
        this.peer.send({ jsonrpc: '2.0', id: message.id, ...answer } as WireMessage);
      } else if (message.method === 'session/update') {
        agentReply += agentText(message);
      } else {
        const result = resultOf(message, 'session/prompt');
        return { elicitations, text: agentReply, stopReason: String(result.stopReason) };
      }
    }
  }

  /** Asks one choice case through the choice agent's `/choose` command and parses its outcome. */
  async ask(choiceCase: ChoiceCase, answer: ClientAnswer): Promise<ChoiceTurn> {
    const turn = await this.prompt(`/choose ${asciiJson(choiceCase)}`, answer);
    return { elicitations: turn.elicitations, outcome: parseOutcome(turn.text) };
  }
}

function resultOf(message: WireMessage, method: string): Record<string, unknown> {
  if (message.error) throw new Error(`${method} failed: ${JSON.stringify(message.error)}`);
  return message.result as Record<string, unknown>;
}

function agentText(message: WireMessage): string {
  const update = (message.params as { update?: { sessionUpdate?: string; content?: { text?: unknown } } })
    .update;
  return update?.sessionUpdate === 'agent_message_chunk' && typeof update.content?.text === 'string'
    ? update.content.text
    : '';
}

function parseOutcome(text: string): ChoiceOutcome {
  try {
    return JSON.parse(text) as ChoiceOutcome;
  } catch {
    throw new Error(`the agent did not reply with an outcome: ${JSON.stringify(text)}`);
  }
}

/** A spawned choice agent (stdio) with one open session. */
export interface RunningChoiceAgent {
  readonly implementation: Implementation;
  readonly process: SpawnedProcess;
  readonly session: RawClientSession;
  /** Ends stdin and resolves when the agent exited. */
  close(): Promise<ProcessExit>;
}

/** The argv that runs a choice agent over stdio. */
export function choiceAgentCommand(implementation: Implementation): [string, ...string[]] {
  return implementation === 'python'
    ? [python.interpreter, interopPaths.pythonChoiceAgent]
    : [process.execPath, interopPaths.typescriptChoiceAgent];
}

/** Spawns a choice agent and opens a session on it (reaped by the e2e `reapAll` if the test does not close it). */
export async function startChoiceAgent(
  implementation: Implementation,
  clientCapabilities: Record<string, unknown> = FORM_CLIENT_CAPABILITIES,
): Promise<RunningChoiceAgent> {
  const [command, ...args] = choiceAgentCommand(implementation);
  const agentProcess = spawnProcess(command, args, { collectStdout: false });
  const { stdin, stdout } = agentProcess.child;
  if (!stdin || !stdout) throw new Error('choice agent has no stdio pipes');
  let session: RawClientSession;
  try {
    session = await RawClientSession.open(ndjsonPeer(stdin, stdout), clientCapabilities);
  } catch (error) {
    throw new Error(
      `${implementation} choice agent failed to start: ${String(error)}\n${agentProcess.stderr()}`,
    );
  }
  return {
    implementation,
    process: agentProcess,
    session,
    close: () => {
      stdin.end();
      return agentProcess.exited;
    },
  };
}

/** Replaces the session id (random per run) with a placeholder after checking it is the session's own. */
export function withoutSessionId(
  params: Record<string, unknown>,
  sessionId: string,
): Record<string, unknown> {
  if (params.sessionId !== sessionId) {
    throw new Error(`elicitation/create names session ${String(params.sessionId)}, not ${sessionId}`);
  }
  return { ...params, sessionId: '<session>' };
}
