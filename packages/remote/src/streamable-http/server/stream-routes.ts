// Which SSE stream of a Streamable HTTP connection each agent message goes to, and what a client POST may carry.
import type { RouteKeys } from '../../wire/route-keys.js';
import { MAX_ID_LENGTH } from '../protocol.js';

/** The key of a connection's connection-scoped stream (session streams are keyed by their session id). */
export const CONNECTION_STREAM = '';

/** Requests whose answer names a session the client has no stream for yet: answered on the connection stream. */
const SESSION_OPENING_METHODS = new Set(['session/new', 'session/load', 'session/resume', 'session/fork']);

/** Why a client POST is refused (400). */
export type PostRouteRefusal = 'mismatched-session' | 'id-too-long';

/** Bounds of {@link StreamRoutes}. */
export interface StreamRouteLimits {
  /** Session streams per connection; messages of further sessions go to the connection stream. */
  readonly maxSessionStreams: number;
  /** Client requests whose route is remembered until answered; past it, answers go to the connection stream. */
  readonly maxPendingRoutes: number;
  /**
   * Memory those remembered routes may take, each counted as {@link routeBytes} (its id, as two bytes a character,
   * plus {@link ROUTE_OVERHEAD_BYTES}); past it, as past `maxPendingRoutes`, answers go to the connection stream.
   */
  readonly maxPendingRouteBytes: number;
}

export const DEFAULT_STREAM_ROUTE_LIMITS: StreamRouteLimits = {
  maxSessionStreams: 64,
  maxPendingRoutes: 65_536,
  maxPendingRouteBytes: 8 * 1024 * 1024,
};

/**
 * What remembering one route costs beyond its id's characters: the id string's header and the table's entry (the
 * route itself is the session's one string, shared by every route to it). Measured at ~50 bytes on Node 20, rounded
 * up.
 */
export const ROUTE_OVERHEAD_BYTES = 96;

/** What one remembered route counts against `maxPendingRouteBytes`. */
export function routeBytes(id: string): number {
  return 2 * id.length + ROUTE_OVERHEAD_BYTES;
}

/**
 * The routing rules of one connection (docs/internal/contracts.md, "Streamable HTTP"): a client request's answer
 * goes back on the stream its request named (the `Acp-Session-Id` header, else `params.sessionId`, else the
 * connection stream; answers that open a session on the connection stream); an agent request or notification with
 * `params.sessionId` goes to that session's stream; everything else to the connection stream. A client's
 * **response** needs no header: it goes to the agent whatever it carries (the Python client sends none). Both
 * SDK clients read every stream they opened into one message feed, so a message routed to the connection stream
 * (a table full, an unknown id) still arrives; routing only decides which stream carries it.
 *
 * @example
 * ```ts
 * const routes = new StreamRoutes();
 * routes.inbound({ kind: 'request', id: '3', method: 'session/prompt', sessionId: 's1' }, 's1'); // { ok: true }
 * routes.outbound({ kind: 'response', id: '3' }); // 's1'
 * ```
 */
export class StreamRoutes {
  private readonly pending = new Map<string, string>();
  private pendingBytes = 0;
  /** Each session with a stream, mapped to its one copy of the id (every route to it shares that string). */
  private readonly sessions = new Map<string, string>();

  constructor(
    private readonly limits: StreamRouteLimits = DEFAULT_STREAM_ROUTE_LIMITS,
    /** Told each time a request's route is not remembered (the table is full): its answer goes to the connection stream. */
    private readonly onFull: () => void = () => {},
  ) {}

  /** Memory the remembered routes count now (see {@link routeBytes}). */
  get routeBytes(): number {
    return this.pendingBytes;
  }

  /** Session streams this connection has (or may open: `claimSession` said yes). */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /**
   * Checks a client message POSTed with the session header `headerSession`, and remembers where the answer to a
   * request goes. A header that names another session than `params.sessionId` is refused: the answer would go to a
   * stream the client does not expect it on.
   */
  inbound(
    keys: RouteKeys,
    headerSession: string | undefined,
  ): { ok: true } | { ok: false; refusal: PostRouteRefusal } {
    if ((keys.id?.length ?? 0) > MAX_ID_LENGTH || (keys.sessionId?.length ?? 0) > MAX_ID_LENGTH)
      return { ok: false, refusal: 'id-too-long' };
    if (keys.kind === 'response') return { ok: true };
    if (headerSession !== undefined && keys.sessionId !== undefined && headerSession !== keys.sessionId)
      return { ok: false, refusal: 'mismatched-session' };
    if (keys.kind === 'request' && keys.id !== undefined) {
      const session = headerSession ?? keys.sessionId;
      const route =
        session === undefined || SESSION_OPENING_METHODS.has(keys.method ?? '') || !this.claimSession(session)
          ? CONNECTION_STREAM
          : this.sessions.get(session)!;
      this.remember(keys.id, route);
    }
    return { ok: true };
  }

  /** The stream an agent message goes to: {@link CONNECTION_STREAM} or a session id. */
  outbound(keys: RouteKeys): string {
    if (keys.kind === 'response') {
      if (keys.id === undefined) return CONNECTION_STREAM;
      const route = this.pending.get(keys.id);
      if (route === undefined) return CONNECTION_STREAM;
      this.pending.delete(keys.id);
      this.pendingBytes -= routeBytes(keys.id);
      return route;
    }
    const session = keys.sessionId;
    return session !== undefined && this.claimSession(session) ? session : CONNECTION_STREAM;
  }

  /** Whether `session` has, or may now have, a stream of its own (within the limit); claims it if so. */
  claimSession(session: string): boolean {
    if (this.sessions.has(session)) return true;
    if (this.sessions.size >= this.limits.maxSessionStreams || session.length > MAX_ID_LENGTH) return false;
    this.sessions.set(session, session);
    return true;
  }

  /** Remembers where the answer to request `id` goes, within the table's bounds (else it goes to the connection stream). */
  private remember(id: string, route: string): void {
    if (this.pending.has(id)) {
      this.pending.set(id, route);
      return;
    }
    const bytes = routeBytes(id);
    if (
      this.pending.size >= this.limits.maxPendingRoutes ||
      this.pendingBytes + bytes > this.limits.maxPendingRouteBytes
    ) {
      this.onFull();
      return;
    }
    this.pending.set(id, route);
    this.pendingBytes += bytes;
  }
}
