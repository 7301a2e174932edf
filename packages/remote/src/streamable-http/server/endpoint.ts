// ACP's Streamable HTTP on a server's mount path: POST, GET (SSE) and DELETE after admission let the request in,
// the CORS preflight, and the registry of the connections this server holds (with why the ended ones ended).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PortClose } from '../../relay/frame-port.js';
import { type Refusal, type RefusalReason, refuse } from '../../seams/refusal.js';
import { clientIdentity, isSameClient, type SessionKeeper } from '../../sessions/session-keeper.js';
import { newConnectionId } from '../../shared/connection-id.js';
import {
  advertiseRetention,
  DurableRefusalReason,
  RESUME_REFUSED_HTTP_HEADER,
  type ResumableRetention,
} from '../../shared/durable-resume.js';
import { HTTP_BODY_GRACE_MS, HTTP_BODY_MIN_BYTES_PER_SECOND } from '../../shared/fixed-limits.js';
import { compileWatch } from '../../wire/frame-scan.js';
import { FrameChecks } from '../../wire/inbound.js';
import { checkInitialize } from '../../wire/initialize.js';
import { errorResponseText, type WireError, wireErrors } from '../../wire/json-rpc.js';
import { ROUTE_WATCH, type RouteNodes, readRouteKeys, routeNodesOf } from '../../wire/route-keys.js';
import {
  acceptsEventStream,
  CONNECTION_ID_HEADER,
  EVENT_STREAM_MEDIA_TYPE,
  isJsonContentType,
  JSON_MEDIA_TYPE,
  LAST_EVENT_ID_HEADER,
  MAX_ID_LENGTH,
  namesEventStream,
  parseLastEventId,
  RESUME_WINDOW_HEADER,
  SESSION_ID_HEADER,
} from '../protocol.js';
import { corsPreflight, corsResponseHeaders } from './cors.js';
import type { HttpServerPort } from './http-server-port.js';
import { type BodyPace, readRequestBody } from './request-body.js';

/** What the endpoint needs of its server. */
export interface StreamableHttpHost {
  readonly maxMessageBytes: number;
  /** The prefix of the connection ids (`ServeOptions.instanceId`), when set. */
  readonly instanceId: string | undefined;
  /** CORS is on for these origins (normalised); empty: no CORS headers at all. */
  readonly allowedOrigins: ReadonlySet<string>;
  /** `Acpkit-Resume-Window-Ms` of the initialize answer: how long streams may be reopened with `Last-Event-ID`. */
  readonly resumeWindowMs: number;
  /**
   * What `initialize` advertises as `agentCapabilities._meta["acp/transport"].resumable` (the durable-resume draft);
   * undefined when streams keep nothing (no resume window).
   */
  readonly retention: ResumableRetention | undefined;
  /** Who is the same client, and how ended connections ended (the server's, shared with the WebSocket's resume). */
  readonly sessions: SessionKeeper;
  /** How long `initialize` may take the agent (ms). */
  readonly initializeTimeoutMs: number;
  /**
   * A new connection for an `initialize` POST: the server's admission (shutdown, drain, `maxConnections`), then a
   * port with the connection handler (agent spawned, or app connected) running on it; or the refusal.
   */
  openConnection(request: IncomingMessage, connectionId: string): HttpServerPort | Refusal;
  /** Logs (rate-limited) and counts a refusal. */
  refused(request: IncomingMessage, refusal: Refusal): void;
  /**
   * A GET's response became an SSE stream: its socket leaves the plain-HTTP connection cap and counts against the
   * server's `maxEventStreams` until it closes.
   */
  streamStarted(request: IncomingMessage): void;
  /** Whether one more event stream fits under `maxEventStreams` (false: the GET gets 503 `limit`). */
  eventStreamFits(): boolean;
  /** A `Last-Event-ID` resume was answered: taken (`accepted`) or refused with a 409 (its reason). */
  durableResumed(outcome: 'accepted' | DurableRefusalReason): void;
}

/** What {@link StreamableHttpEndpoint.handle} did with a request. */
export type EndpointHandling = 'handled' | 'not-mine';

/**
 * A connection this server holds: its port, and who opened it ({@link clientIdentity}). A request naming the
 * connection with another identity gets the same 404 as an unknown id, so a connection id alone (logged by a proxy,
 * say) is not enough to join someone's connection.
 */
interface HeldConnection {
  readonly port: HttpServerPort;
  readonly identity: Buffer;
}

/** How slowly a POST body may arrive (then 408): its deadline grows with its size. */
const BODY_PACE: BodyPace = { graceMs: HTTP_BODY_GRACE_MS, bytesPerSecond: HTTP_BODY_MIN_BYTES_PER_SECOND };

function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return typeof value === 'string' ? value : undefined;
}

/** A refusal with a one-line `text/plain` explanation. */
function refusal(
  status: number,
  reason: RefusalReason,
  text: string,
  headers?: Record<string, string>,
): Refusal {
  return refuse(status, reason, `${text}\n`, headers);
}

/** A refusal whose body is a JSON-RPC error answer (a batch, a failed `initialize`). */
function jsonRefusal(status: number, reason: RefusalReason, id: string, error: WireError): Refusal {
  return { ok: false, status, reason, body: errorResponseText(id, error), contentType: JSON_MEDIA_TYPE };
}

/**
 * Serves ACP's Streamable HTTP (the RFD transport) on the mount path, for the {@link HttpServerPort}s it holds:
 * `POST` (an `initialize` without `Acp-Connection-Id` opens a connection: 200 with the agent's answer and the new
 * id; any other message 202), `GET` with `Accept: text/event-stream` (the connection stream, or with
 * `Acp-Session-Id` a session's, from `Last-Event-ID` on when given), `DELETE` (202, the connection ends), and the
 * CORS preflight. Every refusal has its status, a one-line `text/plain` reason (a JSON-RPC body where a JSON-RPC
 * answer exists: batches, `initialize` failures) and a stable reason for logs and metrics; docs/remote-transport.md
 * lists them. Admission (Host, Origin, token, method) has run before any of this.
 *
 * @example
 * ```ts
 * if (endpoint.handle(request, response) === 'not-mine') serveMetadata(request, response);
 * ```
 */
export class StreamableHttpEndpoint {
  private readonly connections = new Map<string, HeldConnection>();
  /** One check per POST body (UTF-8, one JSON object, line breaks), recording what routing reads. */
  private readonly checks: FrameChecks;
  private readonly nodes: RouteNodes;

  constructor(private readonly host: StreamableHttpHost) {
    const watch = compileWatch(ROUTE_WATCH);
    // Bodies become lines on an agent's stdin: no raw line break may survive.
    this.checks = new FrameChecks({ utf8: 'refuse', singleLine: true, watch });
    this.nodes = routeNodesOf(watch);
  }

  /** Connections held now (open or closing). */
  get size(): number {
    return this.connections.size;
  }

  /**
   * Handles a request on the mount path, except a `GET`/`HEAD` that names neither a connection nor an event stream:
   * that one is the metadata document's (`not-mine`).
   */
  handle(request: IncomingMessage, response: ServerResponse): EndpointHandling {
    const method = request.method ?? '';
    if ((method === 'GET' || method === 'HEAD') && !this.isStreamRequest(request)) return 'not-mine';
    const origin = headerValue(request, 'origin');
    for (const [name, value] of Object.entries(corsResponseHeaders(origin, this.host.allowedOrigins)))
      response.setHeader(name, value);
    if (method === 'POST') void this.post(request, response);
    else if (method === 'GET') this.get(request, response);
    else if (method === 'HEAD')
      this.refuse(request, response, refusal(400, 'invalid', 'HEAD cannot open an event stream'));
    else if (method === 'DELETE') this.delete(request, response);
    else {
      const preflight = corsPreflight(
        origin,
        headerValue(request, 'access-control-request-method'),
        this.host.allowedOrigins,
      );
      if (preflight !== undefined) response.writeHead(204, preflight).end();
      else this.refuse(request, response, refusal(400, 'invalid', 'OPTIONS is only for a CORS preflight'));
    }
    return 'handled';
  }

  private isStreamRequest(request: IncomingMessage): boolean {
    return (
      request.headers[CONNECTION_ID_HEADER.toLowerCase()] !== undefined ||
      namesEventStream(headerValue(request, 'accept'))
    );
  }

  private async post(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!isJsonContentType(headerValue(request, 'content-type'))) {
      this.refuse(request, response, refusal(415, 'media_type', 'Content-Type must be application/json'));
      return;
    }
    const connectionId = headerValue(request, CONNECTION_ID_HEADER);
    const held = connectionId === undefined ? undefined : this.find(request, connectionId);
    if (connectionId !== undefined && held === undefined) {
      this.refuseUnknown(request, response, connectionId);
      return;
    }
    // A POST counts as the client being there; its body waits while the agent cannot take more.
    const finished = held?.port.postStarted();
    response.once('close', () => finished?.());
    await held?.port.whenReading();
    const body = await readRequestBody(request, this.host.maxMessageBytes, BODY_PACE);
    if (!body.ok) {
      if (body.reason === 'size') {
        const text = `message exceeds the ${this.host.maxMessageBytes}-byte limit`;
        this.refuse(request, response, refusal(413, 'size', text, { Connection: 'close' }));
      } else if (body.reason === 'slow') {
        const text = `the body arrived slower than ${HTTP_BODY_MIN_BYTES_PER_SECOND} bytes/s after ${HTTP_BODY_GRACE_MS} ms (${body.bytes} bytes read); send it at once`;
        this.refuse(request, response, refusal(408, 'timeout', text, { Connection: 'close' }));
      }
      return;
    }
    const frame = this.checks.check(body.body);
    if (frame === undefined) {
      const failed = this.checks.refusal!;
      this.checks.release();
      if (failed.reason === 'batch')
        this.refuse(request, response, jsonRefusal(501, 'batch', 'null', failed.error));
      else {
        const what =
          failed.reason === 'utf8'
            ? 'not UTF-8'
            : failed.reason === 'parse'
              ? 'not JSON'
              : 'not a JSON object';
        this.refuse(
          request,
          response,
          refusal(400, 'invalid', `the body is ${what}: one JSON-RPC message expected`),
        );
      }
      return;
    }
    const keys = readRouteKeys(this.checks.scanner, this.nodes);
    this.checks.release();
    const session = headerValue(request, SESSION_ID_HEADER);
    if ((session?.length ?? 0) > MAX_ID_LENGTH) {
      this.refuse(request, response, refusal(400, 'session', `${SESSION_ID_HEADER} is too long`));
      return;
    }
    const initialize = checkInitialize(keys.method, keys.id);
    if (held === undefined) {
      if (initialize.kind === 'other') {
        const text = `${CONNECTION_ID_HEADER} is missing: POST initialize first, then send its ${CONNECTION_ID_HEADER} on every request`;
        this.refuse(request, response, refusal(400, 'invalid', text));
      } else if (initialize.kind === 'missing-id') {
        this.refuse(request, response, refusal(400, 'invalid', 'initialize must be a request with an id'));
      } else await this.initialize(request, response, frame, initialize.id);
      return;
    }
    if (initialize.kind !== 'other') {
      this.refuse(
        request,
        response,
        refusal(400, 'invalid', 'initialize is not allowed on an existing connection'),
      );
      return;
    }
    const posted = held.port.post(frame, keys, session);
    if (posted.ok) response.writeHead(202).end();
    else if (posted.refusal === 'ended') this.refuseUnknown(request, response, connectionId!);
    else if (posted.refusal === 'mismatched-session') {
      const text = `${SESSION_ID_HEADER} names another session than params.sessionId`;
      this.refuse(request, response, refusal(400, 'session', text));
    } else
      this.refuse(
        request,
        response,
        refusal(400, 'invalid', 'an id or sessionId is longer than 1024 characters'),
      );
  }

  private async initialize(
    request: IncomingMessage,
    response: ServerResponse,
    frame: Buffer,
    id: string,
  ): Promise<void> {
    const connectionId = newConnectionId(this.host.instanceId);
    const opened = this.host.openConnection(request, connectionId);
    if ('ok' in opened) {
      // Counted and logged by the server as a refused connection.
      this.respond(request, response, opened);
      return;
    }
    const port = opened;
    this.connections.set(connectionId, { port, identity: clientIdentity(request.headers) });
    void port.closed.then((close) => this.forget(connectionId, close));
    const finished = port.postStarted();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.host.initializeTimeoutMs);
      timer.unref();
    });
    const fail = (status: number, why: string) => {
      port.terminate({ code: 1011, reason: `initialize failed: ${why}` });
      this.refuse(
        request,
        response,
        jsonRefusal(status, 'initialize', id, wireErrors.internalError(why, 'Initialize failed')),
      );
    };
    try {
      const answer = await Promise.race([port.initialize(frame, id), timedOut]);
      if (answer === 'timeout')
        fail(504, `the agent did not answer within ${this.host.initializeTimeoutMs} ms`);
      else if (response.destroyed)
        port.terminate({ code: 1001, reason: 'the client went away during initialize' });
      else {
        const body =
          this.host.retention === undefined ? answer : advertiseRetention(answer, this.host.retention);
        response.writeHead(200, {
          'Content-Type': JSON_MEDIA_TYPE,
          'Content-Length': Buffer.byteLength(body),
          'Cache-Control': 'no-store',
          [CONNECTION_ID_HEADER]: connectionId,
          [RESUME_WINDOW_HEADER]: String(this.host.resumeWindowMs),
        });
        response.end(body);
      }
    } catch (error) {
      fail(502, (error as Error).message);
    } finally {
      clearTimeout(timer);
      finished();
    }
  }

  private get(request: IncomingMessage, response: ServerResponse): void {
    if (!acceptsEventStream(headerValue(request, 'accept'))) {
      this.refuse(
        request,
        response,
        refusal(406, 'accept', `Accept must include ${EVENT_STREAM_MEDIA_TYPE}`),
      );
      return;
    }
    if (headerValue(request, CONNECTION_ID_HEADER) === undefined) {
      // How a client (ours, before `initialize`) tells an ACP endpoint from anything else: answered 400 like any
      // ACP endpoint does, but it is a probe, not a refusal to log or count.
      this.respond(request, response, refusal(400, 'invalid', `${CONNECTION_ID_HEADER} is missing`));
      return;
    }
    const resuming = headerValue(request, LAST_EVENT_ID_HEADER) !== undefined;
    // A resume naming a connection this server does not hold is refused as a resume (409), never a live stream.
    const held = resuming
      ? this.resumedConnection(request, response)
      : this.namedConnection(request, response);
    if (held === undefined) return;
    const lastEventId = parseLastEventId(headerValue(request, LAST_EVENT_ID_HEADER));
    const session = headerValue(request, SESSION_ID_HEADER);
    if (lastEventId === undefined) {
      this.refuseResume(
        request,
        response,
        'unknown',
        `${LAST_EVENT_ID_HEADER} is not a cursor this server issued`,
      );
      return;
    }
    if ((session?.length ?? 0) > MAX_ID_LENGTH) {
      this.refuse(request, response, refusal(400, 'session', `${SESSION_ID_HEADER} is too long`));
      return;
    }
    if (!this.host.eventStreamFits()) {
      this.refuse(request, response, refusal(503, 'limit', 'too many event streams on this server'));
      return;
    }
    const attached = held.port.attachStream(session, response, lastEventId ?? undefined, () => {
      // An event stream's socket is never reused: once its response ends, the socket closes (no idle keep-alive
      // socket outside every cap).
      response.shouldKeepAlive = false;
      response.writeHead(200, {
        'Content-Type': EVENT_STREAM_MEDIA_TYPE,
        'Cache-Control': 'no-cache, no-transform',
        'X-Accel-Buffering': 'no',
      });
      response.flushHeaders();
      this.host.streamStarted(request);
    });
    if (attached.ok) {
      if (resuming) this.host.durableResumed('accepted');
      return;
    }
    if (attached.refusal === 'ended') {
      if (resuming) this.refuseResume(request, response, 'ended', 'the connection is ending');
      else this.refuseUnknown(request, response, held.port.connectionId);
    } else if (attached.refusal === 'session-limit') {
      this.refuse(request, response, refusal(503, 'limit', 'too many session streams on this connection'));
    } else if (attached.refusal === 'gap' && attached.gap === 'overflow') {
      const text = 'the events after Last-Event-ID are no longer kept (past retention)';
      this.refuseResume(request, response, 'expired', text);
    } else {
      this.refuseResume(
        request,
        response,
        'unknown',
        `${LAST_EVENT_ID_HEADER} names an event this stream never sent`,
      );
    }
  }

  /**
   * Refuses a `Last-Event-ID` resume as the durable-resume draft says: 409, never a live stream. The reason is in
   * `Acpkit-Resume-Refused`; the client falls back to `session/resume` or `session/load` on a new connection.
   */
  private refuseResume(
    request: IncomingMessage,
    response: ServerResponse,
    reason: DurableRefusalReason,
    why: string,
  ): void {
    const text = `resume refused (${reason}): ${why}; open a new connection and resume the sessions (session/resume or session/load)`;
    this.host.durableResumed(reason);
    this.refuse(request, response, refusal(409, 'resume', text, { [RESUME_REFUSED_HTTP_HEADER]: reason }));
  }

  /** The connection a resume names; else refused (409 `ended` when it is known to have ended, else `unknown`). */
  private resumedConnection(request: IncomingMessage, response: ServerResponse): HeldConnection | undefined {
    const connectionId = headerValue(request, CONNECTION_ID_HEADER)!;
    const held = this.find(request, connectionId);
    if (held !== undefined) return held;
    const ended = this.host.sessions.endOf(connectionId)?.close;
    if (ended !== undefined)
      this.refuseResume(
        request,
        response,
        'ended',
        `the connection ended (${ended.code}${ended.reason ? `: ${ended.reason}` : ''})`,
      );
    else
      this.refuseResume(
        request,
        response,
        DurableRefusalReason.Unknown,
        'this server does not hold that connection (a restart, another instance)',
      );
    return undefined;
  }

  private delete(request: IncomingMessage, response: ServerResponse): void {
    const held = this.namedConnection(request, response);
    if (held === undefined) return;
    held.port.terminate({ code: 1000, reason: 'the client ended the connection (DELETE)' });
    response.writeHead(202).end();
  }

  /** The connection a GET or DELETE names, or undefined once it was refused (400 without the header, else 404). */
  private namedConnection(request: IncomingMessage, response: ServerResponse): HeldConnection | undefined {
    const connectionId = headerValue(request, CONNECTION_ID_HEADER);
    if (connectionId === undefined) {
      this.refuse(request, response, refusal(400, 'invalid', `${CONNECTION_ID_HEADER} is missing`));
      return undefined;
    }
    const held = this.find(request, connectionId);
    if (held === undefined) this.refuseUnknown(request, response, connectionId);
    return held;
  }

  private find(request: IncomingMessage, connectionId: string): HeldConnection | undefined {
    const held = this.connections.get(connectionId);
    return held !== undefined && isSameClient(held.identity, clientIdentity(request.headers))
      ? held
      : undefined;
  }

  private refuseUnknown(request: IncomingMessage, response: ServerResponse, connectionId: string): void {
    const ended = this.host.sessions.endOf(connectionId)?.close;
    const why = ended
      ? `the connection ended (${ended.code}${ended.reason ? `: ${ended.reason}` : ''})`
      : 'unknown connection: it ended long ago, or this server never opened it (a restart, another instance)';
    this.refuse(request, response, refusal(404, 'connection', `${CONNECTION_ID_HEADER}: ${why}`));
  }

  private forget(connectionId: string, close: PortClose): void {
    this.connections.delete(connectionId);
    this.host.sessions.remember(connectionId, { reason: 'ended', close });
  }

  private refuse(request: IncomingMessage, response: ServerResponse, answer: Refusal): void {
    this.host.refused(request, answer);
    this.respond(request, response, answer);
  }

  private respond(request: IncomingMessage, response: ServerResponse, answer: Refusal): void {
    if (response.headersSent || response.destroyed) return;
    response.writeHead(answer.status, {
      'Content-Type': answer.contentType ?? 'text/plain; charset=utf-8',
      'Content-Length': Buffer.byteLength(answer.body),
      ...answer.headers,
    });
    response.end(request.method === 'HEAD' ? undefined : answer.body);
  }
}
