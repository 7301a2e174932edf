// What a served connection is to the server, whatever its transport: the handler it runs, the values it gets, and the
// one path through which every transport's acceptor opens one (ConnectionOpener).
import type { FrameLog } from '../relay/frame-log.js';
import type { FramePort } from '../relay/frame-port.js';
import type { RemoteLogger } from '../shared/logger.js';
import type { Transport } from '../shared/transport.js';
import type { ServerMetrics } from './server-metrics.js';

/** Close reason when the server stops (close() without a grace), and of a handshake completed meanwhile. */
export const SHUTDOWN_REASON = 'server shutting down';

/**
 * One relayed connection: resolves `done` after everything it owns (child process included) is gone. A session
 * that outlives its socket (a detached session waiting for its client to come back) stays in the server's set until
 * `done`, so a drain waits for it like for a connected one and `shutdown` must end it.
 */
export interface ConnectionSession {
  readonly done: Promise<void>;
  /** Requests from the client that wait for the agent's answer now (for the metrics; absent: none are kept). */
  readonly pendingRequests?: number;
  /**
   * Ends the connection because the server is shutting down or the drain grace ran out: 1001 with `reason` when a
   * client is attached, at once when a kept session waits for its client.
   */
  shutdown(reason: string): void;
}

/** Per-connection values handed to a connection handler. */
export interface ConnectionContext {
  readonly maxMessageBytes: number;
  /** Requests from the client that may wait for the agent's answer at once (where the handler keeps them). */
  readonly maxPendingRequests: number;
  readonly logger: RemoteLogger;
  readonly connectionId: number;
  /** The server's metrics (a no-op object when off; the connection's port counts its frames on it already). */
  readonly metrics: ServerMetrics;
  /** Per-frame warnings of the connection (rate-limited, carrying its id). */
  readonly log: FrameLog;
}

/**
 * Serves one connection on its port, whatever its transport (a WebSocket, on `<mount>/ws` or `<mount>`, or a
 * Streamable HTTP connection). The port is the server's: it keeps the session across a drop when the client asked for
 * it, so a handler sees one continuous connection whatever happens to the sockets or streams under it.
 */
export type ConnectionHandler = (port: FramePort, context: ConnectionContext) => ConnectionSession;

/** What an acceptor hands the server to open a connection it admitted. */
export interface ConnectionOpening {
  readonly transport: Transport;
  readonly remoteAddress: string | undefined;
  /** Extra fields of the `connection opened` line (`resumable: true`, ...). */
  readonly logFields?: Record<string, unknown>;
  /** The connection's port, made once its number and frame log exist. */
  makePort(connectionId: number, log: FrameLog): MadePort;
}

/**
 * A port an acceptor made, and what it set up around the port that must be undone when the connection ends (a
 * heartbeat). The server keeps `onEnded` for the connection's life, so it must hold nothing the connection may let go
 * of meanwhile (a socket a resumed session left behind).
 */
export interface MadePort {
  readonly port: FramePort;
  readonly onEnded?: () => void;
}

/** The server as its acceptors see it: where an admitted connection is opened, and what it is told about. */
export interface ConnectionOpener {
  readonly metrics: ServerMetrics;
  readonly logger: RemoteLogger;
  /** Whether new connections are still opened (false once the server closes). */
  readonly accepting: boolean;
  /**
   * Opens the connection: counts it, numbers it, logs it, runs the connection handler on its port and keeps it until
   * its teardown ends. A handler that throws ends the port with 1011 `connection setup failed`. Returns the port, or
   * undefined when the handler failed.
   */
  open(opening: ConnectionOpening): FramePort | undefined;
  /** An upgrade or connection the acceptor held ended without a connection: a drain waiting for idleness looks again. */
  settled(): void;
}
