// Which messages a client sent on its RFD WebSocket the server is known to have read: a ping after them answered by
// its pong (frames are read in order), or a request's answer. The rest were cut in flight when the socket drops.
import type { WebSocket } from 'ws';
import type { RouteKeys } from '../../wire/route-keys.js';

/** A message sent whose arrival is not confirmed yet. */
export interface UnconfirmedMessage {
  readonly payload: Buffer | string;
  readonly keys: RouteKeys;
  /** Its number among the messages sent (from 1). */
  readonly index: number;
  readonly bytes: number;
}

/** The prefix of a confirmation ping's payload, so our pongs are told from a peer's unsolicited ones. */
const PING_PREFIX = 'acpkit-sent:';

/**
 * The messages a client sent on the current socket that the server has not confirmed reading. The durable-resume
 * draft has no client→server cursor, so the client asks: a ping sent after a burst of messages (one per event-loop
 * turn at most, one outstanding at a time) carries how many were sent before it, and the server's pong (RFC 6455
 * echoes the payload; `ws` and Python's `websockets` do it by themselves) confirms every one of them, since a
 * WebSocket peer reads frames in order. A request's answer confirms that request. What is left when the socket drops
 * is what the cut may have lost ({@link takeCut}). Bounded by `boundBytes`: past it the oldest are let go (taken for
 * delivered: a server that answers no ping for that long is read by nobody's rule).
 *
 * @example
 * ```ts
 * const confirmations = new DeliveryConfirmations(16 << 20);
 * confirmations.bind(socket);
 * confirmations.sent(payload, keys); // a ping follows this turn; its pong confirms the message
 * ```
 */
export class DeliveryConfirmations {
  private readonly pending: UnconfirmedMessage[] = [];
  private pendingBytes = 0;
  private sentCount = 0;
  private socket: WebSocket | undefined;
  /** A ping is on its way (its pong not back yet), or scheduled for the end of this turn. */
  private pinging = false;
  private scheduled: NodeJS.Immediate | undefined;

  constructor(private readonly boundBytes: number) {}

  /** Messages sent and not confirmed (what {@link takeCut} would return now). */
  get unconfirmed(): number {
    return this.pending.length;
  }

  /** Watches `socket` (the one messages are sent on now) for pongs. */
  bind(socket: WebSocket): void {
    this.unbind();
    this.socket = socket;
    socket.on('pong', this.onPong);
  }

  /** The socket dropped: nothing more is confirmed on it (what is pending stays, for {@link takeCut}). */
  unbind(): void {
    clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.pinging = false;
    this.socket?.off('pong', this.onPong);
    this.socket = undefined;
  }

  /** A message was written on the bound socket: kept until confirmed, and a ping asked for. */
  sent(payload: Buffer | string, keys: RouteKeys): void {
    this.sentCount += 1;
    const bytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
    this.pending.push({ payload, keys, index: this.sentCount, bytes });
    this.pendingBytes += bytes;
    while (this.pendingBytes > this.boundBytes && this.pending.length > 1)
      this.pendingBytes -= this.pending.shift()!.bytes;
    this.schedulePing();
  }

  /** The answer to request `id` arrived: that request reached the server. */
  answered(id: string): void {
    const at = this.pending.findIndex((message) => message.keys.kind === 'request' && message.keys.id === id);
    if (at < 0) return;
    this.pendingBytes -= this.pending[at]!.bytes;
    this.pending.splice(at, 1);
  }

  /** What was sent and never confirmed, in the order sent; forgotten here. */
  takeCut(): UnconfirmedMessage[] {
    this.pendingBytes = 0;
    return this.pending.splice(0);
  }

  private schedulePing(): void {
    if (this.pinging || this.socket === undefined) return;
    this.pinging = true;
    // At the end of the turn: one ping covers every message written in it.
    this.scheduled = setImmediate(() => {
      this.scheduled = undefined;
      const socket = this.socket;
      if (socket === undefined || socket.readyState !== socket.OPEN) {
        this.pinging = false;
        return;
      }
      socket.ping(Buffer.from(`${PING_PREFIX}${this.sentCount}`));
    });
  }

  private readonly onPong = (data: Buffer): void => {
    const text = data.toString('latin1');
    if (!text.startsWith(PING_PREFIX)) return;
    const through = Number(text.slice(PING_PREFIX.length));
    if (!Number.isSafeInteger(through)) return;
    let confirmed = 0;
    while (confirmed < this.pending.length && this.pending[confirmed]!.index <= through)
      this.pendingBytes -= this.pending[confirmed++]!.bytes;
    this.pending.splice(0, confirmed);
    this.pinging = false;
    if (this.pending.length > 0 && this.sentCount > through) this.schedulePing();
  };
}
