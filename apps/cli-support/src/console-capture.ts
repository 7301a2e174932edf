import { formatWithOptions } from 'node:util';
import type { RemoteLogger } from '@acpkit/remote';

type ConsoleMethod = 'log' | 'info' | 'debug' | 'warn' | 'error' | 'trace';

const LEVEL_OF: Record<ConsoleMethod, 'info' | 'warn' | 'error'> = {
  log: 'info',
  info: 'info',
  debug: 'info',
  warn: 'warn',
  error: 'error',
  trace: 'error',
};

/**
 * Routes `console.*` output of everything running in this process (the SDK's own diagnostics included, which print
 * peer-controlled values such as a response id) through `logger`, one line per call: the default logger escapes
 * control characters and line breaks and redacts URL credentials, so nobody can forge or split a log line.
 * Nothing goes to stdout any more.
 *
 * @returns A function that restores the original console methods.
 * @example
 * ```ts
 * const restore = routeConsoleToLogger(createStderrLogger('acpremote'));
 * try { await serve(); } finally { restore(); }
 * ```
 */
export function routeConsoleToLogger(logger: RemoteLogger): () => void {
  const methods = Object.keys(LEVEL_OF) as ConsoleMethod[];
  const original = Object.fromEntries(methods.map((method) => [method, console[method]]));
  for (const method of methods) {
    const level = LEVEL_OF[method];
    console[method] = (...parameters: unknown[]) => {
      const text = formatWithOptions({ colors: false }, ...parameters);
      logger[level](method === 'trace' ? `Trace: ${text} ${new Error().stack ?? ''}` : text);
    };
  }
  return () => {
    Object.assign(console, original);
  };
}
