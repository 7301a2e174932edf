// Per-frame warnings of one connection: rate-limited, carrying the connection's fields.
import { type RemoteLogger, rateLimitLogger } from '../shared/logger.js';

/**
 * Per-frame warnings of one connection (an invalid frame, a refused method, a dropped line): a peer can trigger
 * them at will, so they go through {@link rateLimitLogger} (10 lines per message per 10 s, then one line with the
 * number suppressed), always carrying the connection's fields. Connection-level events (closing, stalled) use
 * {@link logger} directly.
 *
 * @example
 * ```ts
 * const log = new FrameLog(logger, { connection: 7 });
 * log.warn('client sent an invalid message (parse)');
 * ```
 */
export class FrameLog {
  private readonly limited: RemoteLogger;

  constructor(
    readonly logger: RemoteLogger,
    readonly fields: Readonly<Record<string, unknown>> = {},
  ) {
    this.limited = rateLimitLogger(logger);
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.limited.warn(message, fields === undefined ? this.fields : { ...this.fields, ...fields });
  }
}
