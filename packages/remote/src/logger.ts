/**
 * Structured logger used by the servers and the mirror. Payloads are never passed to it by default.
 *
 * @example
 * ```ts
 * const logger: RemoteLogger = { info() {}, warn: console.warn, error: console.error };
 * ```
 */
export interface RemoteLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Optional: flow-control events (pauses and resumes). The default logger leaves it out to stay quiet. */
  debug?(message: string, fields?: Record<string, unknown>): void;
}

function formatFields(fields: Record<string, unknown> | undefined): string {
  if (!fields) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    // JSON.stringify escapes control characters, so a hostile value cannot forge extra log lines.
    parts.push(
      `${key}=${typeof value === 'number' || typeof value === 'boolean' ? value : JSON.stringify(value)}`,
    );
  }
  return parts.length > 0 ? ` ${parts.join(' ')}` : '';
}

/**
 * Creates the default logger: one line per event on `process.stderr` (never stdout, which carries JSON-RPC).
 *
 * @param prefix - Text put before each line, `acpremote` by default.
 * @example
 * ```ts
 * const logger = createStderrLogger('my-relay');
 * logger.warn('client closed early', { code: 1006 });
 * ```
 */
export function createStderrLogger(prefix = 'acpremote'): RemoteLogger {
  const write = (level: string, message: string, fields?: Record<string, unknown>) => {
    process.stderr.write(`${prefix} ${level}: ${message}${formatFields(fields)}\n`);
  };
  return {
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

/**
 * A logger that drops everything (useful in tests and embedders with their own reporting).
 *
 * @example
 * ```ts
 * await serveAcp(() => makeAgent(), { port: 0, logger: silentLogger });
 * ```
 */
export const silentLogger: RemoteLogger = Object.freeze({
  info() {},
  warn() {},
  error() {},
});
