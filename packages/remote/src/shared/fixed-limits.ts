// Limits shared by the servers and the client socket. A neutral module, so the client side does not import the
// server to learn them.

/**
 * The WebSocket payload cap given to `ws`. It sits above `maxMessageBytes` so that a request slightly over the limit
 * can still be read and answered with a JSON-RPC error; anything above the cap gets a bare 1009 from `ws`.
 */
export function hardPayloadCap(maxMessageBytes: number): number {
  return maxMessageBytes + Math.min(maxMessageBytes, 1024 * 1024);
}

/** Time a client gets to send a complete request head (Node's default is 60 s, checked every 30 s). */
export const HTTP_HEADERS_TIMEOUT_MS = 10_000;
/**
 * Time a client gets to send a complete request, a Streamable HTTP POST's body included (16 MiB in 30 s is a modest
 * 0.6 MB/s).
 */
export const HTTP_REQUEST_TIMEOUT_MS = 30_000;
/**
 * The slowest a request body may arrive, on average after {@link HTTP_BODY_GRACE_MS}: a Streamable HTTP POST body
 * must have `(elapsed - grace) × rate` bytes by then (408 otherwise), and at the connection cap a body below it is
 * closed to make room first. 16 MiB at this rate takes 256 s, more than the request timeout allows: any body that may
 * finish is above it.
 */
export const HTTP_BODY_MIN_BYTES_PER_SECOND = 64 * 1024;
/** How long a request body may take before the minimum rate applies (a client's first bytes, a slow start). */
export const HTTP_BODY_GRACE_MS = 5_000;
/**
 * How long a newly accepted connection may wait for its first request head before the connection cap counts it as
 * idle: a TLS handshake and a round trip over a slow link fit. Within it, the cap closes slow bodies and idle
 * keep-alive connections first, so a legitimate client is not closed between its connect and its head by a churn of
 * slow bodies that are all younger than it.
 */
export const HTTP_FIRST_HEAD_GRACE_MS = 1_000;
/** How long an idle keep-alive connection stays open after a response. */
export const HTTP_KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** How often Node checks the two timeouts above (its default, 30 s, would let a socket live 40 s). */
export const HTTP_TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/**
 * How long a Streamable HTTP `initialize` POST waits for the agent's answer before it gets 504 and the connection ends
 * (the Python SDK's server waits as long): the answer is the POST's body, so a silent agent must not hold it forever.
 */
export const INITIALIZE_TIMEOUT_MS = 30_000;

/**
 * How long a Streamable HTTP connection whose `initialize` was answered waits for its client's first event stream
 * before it ends (every ACP client opens it at once): a client that vanished after `initialize` holds its agent no
 * longer than this, and such a connection is never kept as a detached session.
 */
export const FIRST_STREAM_TIMEOUT_MS = 10_000;

/**
 * How long a Streamable HTTP event stream's response that ended (its connection closed, stalled or was DELETEd) may
 * take to hand its last bytes to the kernel before its socket is destroyed: a reader that stops reading keeps no
 * socket longer than this. A response taken over by a newer GET is destroyed at once when it cannot flush.
 */
export const SSE_CLOSE_FLUSH_MS = 10_000;
