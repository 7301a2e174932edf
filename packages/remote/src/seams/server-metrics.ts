// What a server counts, as the transports' acceptors and the connection handlers see it: the interface, and the
// null object of a server with metrics off (the Prometheus implementation is server/metrics.ts).
import { DISCARDED_MESSAGES, type RelayMetrics } from '../relay/relay-metrics.js';
import type { DurableRefusalReason } from '../shared/durable-resume.js';
import type { Transport } from '../shared/transport.js';
import type { RefusalReason } from './refusal-reasons.js';

/**
 * Everything a server counts. A server with metrics off hands out {@link NO_METRICS}; handlers call these methods
 * unconditionally. Resume events are counted by the server's resume registry and read at scrape time.
 */
export interface ServerMetrics extends RelayMetrics {
  /** What the ports of one transport count (this object itself counts the WebSocket's). */
  forTransport(transport: Transport): RelayMetrics;
  /** A new connection accepted: a WebSocket upgrade, or a Streamable HTTP `initialize`. */
  connectionAccepted(transport?: Transport): void;
  /** A new connection refused (the reason the server's admission gave). */
  connectionRefused(reason: RefusalReason, transport?: Transport): void;
  /** A plain HTTP request refused, or an HTTP connection closed at the connection cap (`limit`). */
  requestRefused(reason: RefusalReason): void;
  /** An agent process started (`serveCommand`: one per connection). */
  childStarted(): void;
  /** An agent process ended (its exit code, or the signal that killed it), or never started (`error` set). */
  childExited(exit: { code: number | null; signal: string | null; error?: Error }): void;
  /** A connection terminated because its client answered no ping for 1.5 intervals. */
  heartbeatTimedOut(): void;
  /**
   * A resume of the durable-resume draft answered: a `Last-Event-ID` on Streamable HTTP or a `stream/resume` on the
   * RFD WebSocket, taken (`accepted`) or refused (its reason). `acpkit.resume.v1` resumes are counted by the resume
   * registry.
   */
  durableResume(transport: Transport, outcome: DurableResumeOutcome): void;
}

/** How a resume of the durable-resume draft ended: taken, or the reason it was refused. */
export type DurableResumeOutcome = 'accepted' | DurableRefusalReason;

/** The metrics of a server with metrics off: every method does nothing. */
export const NO_METRICS: ServerMetrics = Object.freeze({
  received: DISCARDED_MESSAGES,
  sent: DISCARDED_MESSAGES,
  frameRefused() {},
  limitReached() {},
  forTransport: () => NO_METRICS,
  connectionAccepted() {},
  connectionRefused() {},
  requestRefused() {},
  childStarted() {},
  childExited() {},
  sendStallClosed() {},
  heartbeatTimedOut() {},
  durableResume() {},
});
