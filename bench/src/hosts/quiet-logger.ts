import { createStderrLogger, type RemoteLogger } from '@acpkit/remote';

const stderrLogger = createStderrLogger();

/**
 * The default stderr logger without `info` lines: churn opens thousands of connections and the bench output
 * should show warnings and errors, not one line per connection. Formatting still costs what it costs for warnings.
 *
 * @example
 * ```ts
 * await serveAcp(factory, { port: 0, logger: quietLogger });
 * ```
 */
export const quietLogger: RemoteLogger = {
  info: () => {},
  warn: (message, fields) => stderrLogger.warn(message, fields),
  error: (message, fields) => stderrLogger.error(message, fields),
};
