// The start of a serveCommand session: the client's `initialize`, and whether its agent answers it or writes text.
import { checkInitialize, InitializeAnswers } from '../wire/initialize.js';
import { idKey, recoverRequestHead, type WireId } from '../wire/json-rpc.js';

/** How much of a frame or line is scanned for its `id` and `method` (the start of a session only). */
const HEAD_BYTES = 64 * 1024;

/** What the handshake tells its session. */
export interface AgentHandshakeEvents {
  /** The agent answered `initialize`: the session is worth keeping for a resume. */
  established(): void;
  /**
   * The agent wrote text that is not JSON-RPC to stdout and did not answer `initialize` within the grace period:
   * `initializeIds` are the ids (JSON tokens, as the client wrote them) of the requests still waiting.
   */
  notSpeakingAcp(initializeIds: string[], preview: string): void;
}

function headOf(payload: Buffer): string {
  return payload.toString('utf8', 0, Math.min(payload.length, HEAD_BYTES));
}

/**
 * Watches the start of a `serveCommand` session, until its agent answers the client's `initialize`: the client's
 * frames for `initialize` requests, the agent's lines for the answer, and the agent's stdout lines that are not
 * JSON-RPC. An agent that wrote such text while an `initialize` waits, and does not answer within `graceMs`, is
 * not speaking ACP (an agent that logs a stray line and then answers is fine): the local test client's rule
 * (`NOT_AN_ACP_AGENT`), so a remote client learns it as fast. Only the head of each frame is read (with
 * `recoverRequestHead`), and only until the handshake is over; the relay then forwards without a policy.
 *
 * @example
 * ```ts
 * const handshake = new AgentHandshake(2_000, { established: () => port.markEstablished(), notSpeakingAcp });
 * handshake.clientFrame(Buffer.from('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}'));
 * ```
 */
export class AgentHandshake {
  private readonly initialize = new InitializeAnswers();
  private preview: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private over = false;

  constructor(
    private readonly graceMs: number,
    private readonly events: AgentHandshakeEvents,
  ) {}

  /** A frame from the client, relayed to the agent. */
  clientFrame(payload: Buffer): void {
    if (this.over) return;
    const { idToken, method } = recoverRequestHead(headOf(payload));
    const check = checkInitialize(method, idToken === undefined ? undefined : keyOf(idToken));
    if (check.kind !== 'initialize') return;
    this.initialize.request(check.id, idToken);
    this.arm();
  }

  /** A JSON-RPC line from the agent, relayed to the client. */
  agentLine(payload: Buffer): void {
    if (this.over) return;
    const { idToken, method } = recoverRequestHead(headOf(payload));
    if (method !== undefined || idToken === undefined || !this.initialize.answers(keyOf(idToken))) return;
    this.end();
    this.events.established();
  }

  /** A stdout line from the agent that is not JSON-RPC (`preview`: its first characters). */
  agentText(preview: string): void {
    if (this.over) return;
    this.preview ??= preview;
    this.arm();
  }

  /** Stops watching (the session ended). */
  end(): void {
    this.over = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.timer !== undefined || this.preview === undefined || this.initialize.waiting.size === 0) return;
    this.timer = setTimeout(() => {
      const ids = [...this.initialize.waiting.values()];
      const preview = this.preview!;
      this.end();
      this.events.notSpeakingAcp(ids, preview);
    }, this.graceMs);
    this.timer.unref();
  }
}

/** The tracking key of an id written as a JSON token (`1` and `1.0` are one id, `"1"` another). */
function keyOf(idToken: string): string {
  return idKey(JSON.parse(idToken) as WireId);
}
