// How long a client waits before it tries again to reach a server it lost: one schedule for every transport.
const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 5_000;

/**
 * The wait before reconnect attempt `attempt` (1-based), for a WebSocket resume and a Streamable HTTP stream reopened
 * with `Last-Event-ID` alike: the first at once, then 250 ms, 500 ms, 1 s, ... at most 5 s, each with jitter (half to
 * all of it), so clients that lost one server together do not come back in step.
 *
 * @example
 * ```ts
 * reconnectBackoffMs(1); // 0
 * reconnectBackoffMs(3); // between 250 and 500
 * ```
 */
export function reconnectBackoffMs(attempt: number, random: () => number = Math.random): number {
  if (attempt <= 1) return 0;
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 2));
  return ceiling * (0.5 + random() / 2);
}
