// Every reason a server refuses a request or a new connection, declared once: the admission decisions, the metric
// label values (and their zero series) and the docs' lists all come from this table.

/**
 * Where a refusal reason is counted: `webSocket`, a refused upgrade (`acpremote_connections_total`,
 * `transport="websocket"`); `streamableHttp`, a refused Streamable HTTP `initialize` (the same series,
 * `transport="streamable_http"`); `request`, a refused plain request (`acpremote_http_requests_refused_total`).
 */
interface RefusalCounting {
  readonly webSocket?: true;
  readonly streamableHttp?: true;
  readonly request?: true;
}

/**
 * The refusal reasons with their statuses and where each is counted: `malformed` 400, `host`/`origin` 403, `path`
 * 404, `method` 405, `auth` 401, `limit` 503 (or a closed socket), `draining` 503 with `Retry-After` (the server
 * drains before it stops), `shutdown` 503, `timeout` 408, `resume` 410 or 400 on a WebSocket upgrade, 409 on a Streamable HTTP
 * `Last-Event-ID` resume (the resume reason is in the `Acpkit-Resume-Refused` header). The Streamable HTTP endpoint adds `media_type` 415, `accept` 406, `size` 413,
 * `connection` 404 (an unknown or ended `Acp-Connection-Id`), `session` 400 (a session header that does not fit), `batch` 501, `invalid` 400 (a body that is not one JSON-RPC message, a missing header,
 * `initialize` where it does not belong) and `initialize` 502/504 (the agent failed or did not answer `initialize`).
 */
export const REFUSAL_REASONS = {
  auth: { webSocket: true, request: true },
  origin: { webSocket: true, request: true },
  host: { webSocket: true, request: true },
  path: { webSocket: true, request: true },
  method: { request: true },
  malformed: { webSocket: true, request: true },
  timeout: { request: true },
  limit: { webSocket: true, streamableHttp: true, request: true },
  draining: { webSocket: true, streamableHttp: true },
  resume: { webSocket: true, request: true },
  shutdown: { webSocket: true, streamableHttp: true },
  media_type: { request: true },
  accept: { request: true },
  size: { request: true },
  connection: { request: true },
  session: { request: true },
  batch: { request: true },
  invalid: { request: true },
  initialize: { request: true },
} as const satisfies Record<string, RefusalCounting>;

/** Why the server refused a request or connection: a stable string per refusal point, for logs and metrics. */
export type RefusalReason = keyof typeof REFUSAL_REASONS;

/** The reasons counted where `where` says, in declaration order. */
export function refusalReasons(where: keyof RefusalCounting): RefusalReason[] {
  return (Object.keys(REFUSAL_REASONS) as RefusalReason[]).filter(
    (reason) => (REFUSAL_REASONS[reason] as RefusalCounting)[where] === true,
  );
}
