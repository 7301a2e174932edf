import type { RemoteLogger } from './logger.js';

/** Lines per window before further per-frame warnings of a connection are counted instead of written. */
const BURST_LINES = 10;
const WINDOW_MS = 10_000;

/**
 * Per-frame warnings of one connection (an invalid frame, a refused method, ...), rate-limited: a peer that sends
 * thousands of bad frames a second gets {@link BURST_LINES} lines per {@link WINDOW_MS}, then one line saying how
 * many were suppressed. Connection-level events (opened, closed, stalled) go to the logger directly.
 *
 * @example
 * ```ts
 * const log = new FrameLog(logger, { connection: 7 });
 * log.warn('invalid message (parse)');
 * ```
 */
export class FrameLog {
  private windowStart = 0;
  private written = 0;
  private suppressed = 0;

  constructor(
    readonly logger: RemoteLogger,
    readonly fields: Readonly<Record<string, unknown>> = {},
  ) {}

  warn(message: string, fields?: Record<string, unknown>): void {
    const now = Date.now();
    if (now - this.windowStart >= WINDOW_MS) {
      this.flush();
      this.windowStart = now;
      this.written = 0;
    }
    if (this.written < BURST_LINES) {
      this.written += 1;
      this.logger.warn(message, fields === undefined ? this.fields : { ...this.fields, ...fields });
    } else {
      this.suppressed += 1;
    }
  }

  /** Writes the count of suppressed warnings, if any (at the end of a window and when the connection ends). */
  flush(): void {
    if (this.suppressed === 0) return;
    this.logger.warn('suppressed similar per-message warnings', {
      ...this.fields,
      suppressed: this.suppressed,
      windowMs: WINDOW_MS,
    });
    this.suppressed = 0;
  }
}
