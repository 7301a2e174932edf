// DurableSocket: the durable-resume draft's side of one RFD WebSocket connection under its WebSocketPort (cursors on
// every message, retention advertised in initialize, turn states), the PortResume a `stream/resume` takes over.
import type { PortClose } from '../../relay/frame-port.js';
import type { DetachedSession } from '../../sessions/session-keeper.js';
import { advertiseRetention, type ResumableRetention, type TurnState } from '../../shared/durable-resume.js';
import { RetentionBudget } from '../../streamable-http/server/sse-stream.js';
import { TurnStates } from '../../streamable-http/server/turn-states.js';
import {
  CURSOR_META_KEY,
  type CursorNodes,
  type CursorSlot,
  cursorNodesOf,
  readCursorSlot,
} from '../../wire/cursor-slot.js';
import { compileWatch, FrameScanner, type WatchSpec } from '../../wire/frame-scan.js';
import { InitializeAnswers } from '../../wire/initialize.js';
import { type RouteKeys, type RouteNodes, readRouteKeys, routeNodesOf } from '../../wire/route-keys.js';
import type { PortResume, WebSocketPort } from '../websocket-port.js';
import { type CursorCheck, CursorStream } from './cursor-stream.js';

/**
 * What the port's relay records of each frame it sends (the relay's one scan): the route keys the turn states read,
 * and where the cursor goes.
 */
export const DURABLE_SOCKET_WATCH: WatchSpec = {
  id: true,
  method: true,
  params: { sessionId: true, _meta: { [CURSOR_META_KEY]: true } },
  result: { sessionId: true, _meta: { [CURSOR_META_KEY]: true } },
};

/** What a server keeps for the RFD WebSockets it can resume: the Streamable HTTP streams' bounds, advertised alike. */
export interface DurableSocketSettings {
  /** Retention bound per connection, overhead included (`resumeBufferBytes` plus one message). */
  readonly maxBytes: number;
  /** The part of `maxBytes` that is room for one message (`maxMessageBytes`). */
  readonly messageBytes: number;
  /** How long a written message is kept, and a dropped connection waits for its client (`resumeWindowMs`). */
  readonly windowMs: number;
  /** What `initialize`'s answer advertises (`agentCapabilities._meta["acp/transport"].resumable`). */
  readonly advertised: ResumableRetention;
}

/** Who keeps the connection across a drop (the server's registry). */
export interface DurableSocketOwner {
  detached(socket: DurableSocket, close: PortClose): void;
  ended(socket: DurableSocket, close: PortClose): void;
}

/** A scanner of whole frames (one per direction: they may interleave) and the nodes of its watch. */
class FrameReader {
  readonly scanner: FrameScanner;
  readonly routes: RouteNodes;
  readonly cursors: CursorNodes;

  constructor() {
    const watch = compileWatch(DURABLE_SOCKET_WATCH);
    this.scanner = new FrameScanner(watch);
    this.routes = routeNodesOf(watch);
    this.cursors = cursorNodesOf(watch)!;
  }

  /** Scans `frame`; false when it is not one JSON object. */
  scan(frame: Buffer): boolean {
    return this.scanner.scan(frame);
  }
}

/**
 * The durable-resume draft on one RFD WebSocket connection, as its {@link WebSocketPort}'s {@link PortResume}: every
 * message sent is numbered and carries its cursor in `_meta["acp/cursor"]` ({@link CursorStream}), the answer to
 * `initialize` advertises the retention, and the turn of each session is followed ({@link TurnStates}) for the
 * advisory a resume is answered with. An unclean drop of an established connection detaches it (its owner keeps it
 * in the server's session keeper); {@link resumed} puts the connection back on the socket a `stream/resume` came on.
 * Nothing here parses a message: the relay's scan hands over the route keys and the cursor slot, and a frame sent
 * without them (the SDK stream's, the relay's own answers) is scanned once.
 */
export class DurableSocket implements PortResume {
  readonly routeWatch = DURABLE_SOCKET_WATCH;
  /** Frames go on the wire whenever a socket is attached: a resume is decided before its socket is. */
  readonly live = true;
  /** The draft has no acknowledgements: messages are kept within the retention bounds, not until acknowledged. */
  readonly peerAcknowledges = false;
  /** The port the connection runs on (set when the port is made). */
  port: WebSocketPort | undefined;
  /** What the server's session keeper holds while the connection waits for its client. */
  waiting: DetachedSession | undefined;
  /** When the socket dropped (`performance.now()`), while detached. */
  detachedAt: number | undefined;
  readonly replay: PortResume['replay'];
  private readonly stream: CursorStream;
  private readonly turns = new TurnStates();
  private readonly handshake = new InitializeAnswers();
  private readonly inbound = new FrameReader();
  private outbound: FrameReader | undefined;
  private established = false;
  private over = false;

  constructor(
    /** The connection's `Acp-Connection-Id` (what a `stream/resume` names). */
    readonly connectionId: string,
    /** Who opened it ({@link clientIdentity}): only the same client may resume it. */
    readonly identity: Buffer,
    /** The connection's number in the server's log lines. */
    readonly connection: number,
    private readonly settings: DurableSocketSettings,
    private readonly owner: DurableSocketOwner,
  ) {
    this.stream = new CursorStream(
      // Kept as written: the budget's ring holds SSE text, not WebSocket messages.
      new RetentionBudget(settings.maxBytes, settings.windowMs, settings.messageBytes, false),
    );
    const stream = this.stream;
    this.replay = {
      get isFull() {
        return stream.isFull;
      },
      get bytes() {
        return stream.heldBytes;
      },
      acknowledged: 0,
    };
  }

  /** An unclean drop detaches the connection once its agent answered `initialize`, until it ended. */
  get canDetach(): boolean {
    return this.established && !this.over;
  }

  start(port: WebSocketPort): void {
    this.port = port;
  }

  establish(): void {
    this.established = true;
  }

  /** A frame from the client: `initialize` and prompts are noted (a scan of frames within the message limit). */
  dataReceived(frame: Buffer): boolean {
    if (frame.length > this.settings.messageBytes || !this.inbound.scan(frame)) return true;
    const keys = readRouteKeys(this.inbound.scanner, this.inbound.routes);
    if (keys.kind === 'request' && keys.method === 'initialize' && keys.id !== undefined)
      this.handshake.request(keys.id);
    this.turns.inbound(keys);
    return true;
  }

  /** A message to the client: numbered, written with its cursor when a socket is attached, kept for a resume. */
  send(payload: Buffer | string, route: RouteKeys | undefined): void {
    let bytes = payload;
    let keys = route;
    // The relay's scan of these very bytes found the slot (or that there is none); otherwise one scan here finds it.
    let slotRead = route !== undefined && 'cursorSlot' in route;
    if (keys === undefined) {
      bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
      keys = this.keysOf(bytes as Buffer);
      slotRead = true;
    }
    if (!this.handshake.answered && keys.kind === 'response' && this.handshake.answers(keys.id)) {
      bytes = advertiseRetention(bytes, this.settings.advertised);
      slotRead = false;
    }
    this.turns.outbound(keys, bytes);
    let slot = keys.cursorSlot;
    if (!slotRead) {
      // The SDK stream's messages come with their keys only (read from the object): the slot alone is read.
      const buffer = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
      slot = this.slotOf(buffer);
      bytes = buffer;
    }
    const port = this.port!;
    this.stream.push(bytes, slot, port.isLive ? port : undefined);
  }

  /** Whether a client that processed every message through `cursor` can be resumed (see {@link CursorStream.check}). */
  check(cursor: number): CursorCheck {
    return this.stream.check(cursor);
  }

  /**
   * The connection is back on a socket just attached to its port: `answer` (the `stream/resume` answer, if any) goes
   * first, then every message after `cursor` as first sent, then live delivery. Returns how many were sent again.
   */
  resumed(cursor: number, answer: string | undefined): number {
    const port = this.port!;
    if (answer !== undefined) port.writeData(answer);
    const replayed = this.stream.resume(cursor, port);
    port.replayWritten();
    return replayed;
  }

  /** The turn-state advisory: the session prompted last (with its id), and every session by id. */
  turnStates(): {
    latest: (TurnState & { readonly sessionId: string }) | undefined;
    all: Record<string, TurnState>;
  } {
    const latest = this.turns.latestSession;
    return {
      latest: latest === undefined ? undefined : { sessionId: latest, ...this.turns.of(latest) },
      all: this.turns.all(),
    };
  }

  detached(close: PortClose): void {
    this.owner.detached(this, close);
  }

  ended(close: PortClose): void {
    if (this.over) return;
    this.over = true;
    this.stream.end();
    this.owner.ended(this, close);
  }

  /** Route keys and cursor slot of a frame sent without its scan (a relay's own answer). */
  private keysOf(frame: Buffer): RouteKeys {
    const reader = this.outboundReader();
    if (!reader.scan(frame)) return { kind: 'response', cursorSlot: undefined };
    return {
      ...readRouteKeys(reader.scanner, reader.routes),
      cursorSlot: readCursorSlot(reader.scanner, reader.cursors),
    };
  }

  /** The cursor slot of a frame (undefined when it has none). */
  private slotOf(frame: Buffer): CursorSlot | undefined {
    const reader = this.outboundReader();
    return reader.scan(frame) ? readCursorSlot(reader.scanner, reader.cursors) : undefined;
  }

  private outboundReader(): FrameReader {
    this.outbound ??= new FrameReader();
    return this.outbound;
  }
}
