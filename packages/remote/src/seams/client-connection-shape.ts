// What a client's opened connection gives runMirror and connectAcp, whatever the transport (its own module, so the
// transport-specific openers and the one that picks among them import it without importing each other).

import type { FrameLog } from '../relay/frame-log.js';
import type { FramePort } from '../relay/frame-port.js';
import type { ServerMetadata } from '../wire/server-metadata.js';

/** A client's connection to a server: the port its relay or stream runs on, and what it learnt on connecting. */
export interface ClientConnection {
  readonly port: FramePort;
  readonly metadata: ServerMetadata | undefined;
  /** Per-frame warnings of the connection. */
  readonly log: FrameLog;
  /**
   * Whether the connection survives a drop: the server welcomed this client with a resume token (WebSocket), or
   * keeps the events of its streams for `Last-Event-ID` (Streamable HTTP, known once `initialize` was answered).
   */
  readonly resumable: boolean;
  /**
   * Whether resume was agreed when the connection opened (WebSocket: the server selected the resume subprotocol),
   * before any welcome; what the mirror's `mirror connected … resumable=true` line says. Streamable HTTP learns it
   * only from the answer to `initialize`: false here.
   */
  readonly resumeSelected: boolean;
  /**
   * Ends the connection from this side (1000, `reason`): what is queued goes first, and a server that does not
   * answer is cut off after 5 s. During a reconnect, `wait` sends the close after the replay (what was sent last
   * still arrives: the mirror) and `abandon` ends the connection at once (`connectAcp.close()`: nobody wants the
   * resume then).
   */
  close(reason?: string, duringReconnect?: 'wait' | 'abandon'): void;
}
