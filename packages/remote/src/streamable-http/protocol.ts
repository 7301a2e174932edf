// Names and small rules of ACP's Streamable HTTP transport (the RFD), shared by our server and client: header names,
// media types, the Accept and Content-Type checks, Last-Event-ID.

/** The connection header: returned by `initialize`, required on every later request of the connection. */
export const CONNECTION_ID_HEADER = 'Acp-Connection-Id';
/** The session header: on session-scoped POSTs and on a session stream's GET. */
export const SESSION_ID_HEADER = 'Acp-Session-Id';
/** The standard SSE reconnect header: the last event id a client received on that stream. */
export const LAST_EVENT_ID_HEADER = 'Last-Event-ID';
/** Sent by our server on `initialize`: how long (ms) an SSE stream may be reopened with `Last-Event-ID`. */
export const RESUME_WINDOW_HEADER = 'Acpkit-Resume-Window-Ms';
export const JSON_MEDIA_TYPE = 'application/json';
export const EVENT_STREAM_MEDIA_TYPE = 'text/event-stream';
/** The longest connection id, session id or request id a server keeps in its routing tables (as the TS SDK). */
export const MAX_ID_LENGTH = 1024;

/** Whether a `Content-Type` is JSON (`application/json`, parameters such as `charset=utf-8` allowed). */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  return value.split(';', 1)[0]!.trim().toLowerCase() === JSON_MEDIA_TYPE;
}

/**
 * Whether an `Accept` header admits an event stream: `text/event-stream`, `text/*` or `*\/*` with a non-zero
 * quality. The TS SDK's server wants `text/event-stream` literally; Python's also takes `*\/*`; we take both.
 */
export function acceptsEventStream(value: string | undefined): boolean {
  if (value === undefined) return false;
  for (const range of value.split(',')) {
    const [type = '', ...parameters] = range.split(';');
    const media = type.trim().toLowerCase();
    if (media !== EVENT_STREAM_MEDIA_TYPE && media !== 'text/*' && media !== '*/*') continue;
    const quality = parameters
      .map((parameter) => parameter.trim().toLowerCase())
      .find((p) => p.startsWith('q='));
    if (quality === undefined || Number(quality.slice(2)) > 0) return true;
  }
  return false;
}

/** Whether an `Accept` header names an event stream explicitly (a GET for SSE, not for the metadata document). */
export function namesEventStream(value: string | undefined): boolean {
  return value?.toLowerCase().includes(EVENT_STREAM_MEDIA_TYPE) ?? false;
}

/** A `Last-Event-ID` our server can have sent (a decimal event number), else undefined; absent → null. */
export function parseLastEventId(value: string | undefined): number | null | undefined {
  if (value === undefined) return null;
  const trimmed = value.trim();
  return /^\d{1,15}$/.test(trimmed) ? Number(trimmed) : undefined;
}
