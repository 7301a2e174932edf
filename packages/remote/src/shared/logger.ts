// Logging: the RemoteLogger interface, the one-line stderr logger, redaction, and the rate limiter for peer-driven
// lines.
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

/** Where {@link createStderrLogger} writes: anything with a `write(text)` (a `Writable`, `process.stderr`). */
export interface LogOutput {
  write(text: string): unknown;
}

// C0 controls, DEL, C1 controls and the Unicode line/paragraph separators: anything a terminal or a log viewer may
// treat as a line break or a control sequence. A peer controls much of what is logged (ids, methods, previews).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeCharacter(character: string): string {
  return NAMED_ESCAPES[character] ?? `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
}

// scheme://[userinfo@]rest[?query]: the credentials and the query values are what must not reach a log.
const URL_PATTERN = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'<>`]*@)?([^\s?#"'<>`]*)(\?[^\s#"'<>`]*)?/gi;
const QUERY_VALUE = /([?&;][^=&;#]*=)[^&;#]*/g;

/**
 * Hides the secrets a URL may carry: the userinfo (`user:password@`) and every query value
 * (`?access_token=…` → `?access_token=***`). Works on any text, so URLs inside messages are redacted too.
 *
 * @example
 * ```ts
 * redactUrls('ws://me:pw@host/acp/ws?token=abc'); // 'ws://***@host/acp/ws?token=***'
 * ```
 */
export function redactUrls(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(
    URL_PATTERN,
    (_match, scheme: string, userinfo: string | undefined, rest: string, query: string | undefined) =>
      `${scheme}${userinfo ? '***@' : ''}${rest}${query ? query.replace(QUERY_VALUE, '$1***') : ''}`,
  );
}

/**
 * Makes text safe for one log line: URL credentials and query values redacted, control characters and line
 * separators escaped (`\n`, `\u001b`, ...), so whoever wrote the text cannot forge or split log lines.
 *
 * @example
 * ```ts
 * sanitizeLogText('id 1\nacpremote info: forged'); // 'id 1\\nacpremote info: forged'
 * ```
 */
export function sanitizeLogText(text: string): string {
  return redactUrls(text).replace(UNSAFE_CHARACTERS, escapeCharacter);
}

function stringifyValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  if (value instanceof Error) return JSON.stringify(value.message);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // Circular structures and the like: a log line must never throw.
    return JSON.stringify(String(value));
  }
}

/**
 * Formats a message and its fields as one line (no trailing newline): `message key=value ...`, strings quoted as
 * JSON, everything passed through {@link sanitizeLogText}.
 *
 * @example
 * ```ts
 * formatLogLine('connection refused', { reason: 'auth', status: 401 }); // 'connection refused reason="auth" status=401'
 * ```
 */
export function formatLogLine(message: string, fields?: Record<string, unknown>): string {
  let line = sanitizeLogText(String(message));
  if (fields) {
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      const name = /^[\w.-]+$/.test(key) ? key : JSON.stringify(key);
      line += ` ${sanitizeLogText(name)}=${sanitizeLogText(stringifyValue(value))}`;
    }
  }
  return line;
}

/**
 * Creates the default logger: one line per event on `process.stderr` (never stdout, which carries JSON-RPC).
 * Every line is exactly one line, whoever wrote its text: control characters and line separators are escaped, and
 * URL credentials and query values are redacted, in the message and in every field.
 *
 * @param prefix - Text put before each line, `acpremote` by default.
 * @param output - Where lines go (default `process.stderr`).
 * @example
 * ```ts
 * const logger = createStderrLogger('my-relay');
 * logger.warn('client closed early', { code: 1006 });
 * // my-relay warn: client closed early code=1006
 * ```
 */
export function createStderrLogger(prefix = 'acpremote', output: LogOutput = process.stderr): RemoteLogger {
  const safePrefix = sanitizeLogText(prefix);
  const write = (level: string, message: string, fields?: Record<string, unknown>) => {
    output.write(`${safePrefix} ${level}: ${formatLogLine(message, fields)}\n`);
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

/** Limits of {@link rateLimitLogger}. */
export interface LogRateLimit {
  /** Lines allowed per key in each window (default 10). */
  readonly linesPerWindow?: number;
  /** Window length in milliseconds (default 10 000). */
  readonly windowMs?: number;
  /** Most distinct keys tracked at once; further keys share one budget (default 256). */
  readonly maxKeys?: number;
  /**
   * What counts as "the same line" (default: the message text). E.g. `(message, fields) => \`${message} ${fields?.reason}\``
   * gives each refusal reason its own budget.
   */
  readonly keyOf?: (message: string, fields: Record<string, unknown> | undefined) => string;
}

type LogLevel = 'info' | 'warn' | 'error' | 'debug';

interface RateWindow {
  logged: number;
  suppressed: number;
  lastFields: Record<string, unknown> | undefined;
  timer: NodeJS.Timeout;
}

const OVERFLOW_KEY = '\u0000overflow';

/**
 * Wraps a logger so that no single kind of line can flood it: each key (by default the level plus the message text,
 * so keep variable data in `fields`) may log `linesPerWindow` lines per `windowMs`; the rest are counted, and when
 * the window ends one summary line says how many were suppressed. Memory stays bounded by `maxKeys`. Used for lines
 * a peer can trigger at will (refused connections, rejected frames).
 *
 * @example
 * ```ts
 * const limited = rateLimitLogger(logger, { linesPerWindow: 5, windowMs: 1_000 });
 * for (let i = 0; i < 1_000; i += 1) limited.warn('rejected frame', { connection: 1 });
 * // 5 lines now, then: rejected frame suppressed=995 windowMs=1000 connection=1
 * ```
 */
export function rateLimitLogger(logger: RemoteLogger, limit: LogRateLimit = {}): RemoteLogger {
  const linesPerWindow = limit.linesPerWindow ?? 10;
  const windowMs = limit.windowMs ?? 10_000;
  const maxKeys = limit.maxKeys ?? 256;
  const keyOf = limit.keyOf ?? ((message: string) => message);
  const windows = new Map<string, RateWindow>();

  const emit = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (level === 'debug') logger.debug?.(message, fields);
    else logger[level](message, fields);
  };

  const log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    let key = `${level}\u0000${keyOf(message, fields)}`;
    if (!windows.has(key) && windows.size >= maxKeys) key = `${level}${OVERFLOW_KEY}`;
    let window = windows.get(key);
    if (window === undefined) {
      const opened: RateWindow = {
        logged: 0,
        suppressed: 0,
        lastFields: undefined,
        timer: setTimeout(() => {
          windows.delete(key);
          if (opened.suppressed > 0) {
            emit(level, message, { suppressed: opened.suppressed, windowMs, ...opened.lastFields });
          }
        }, windowMs),
      };
      opened.timer.unref();
      window = opened;
      windows.set(key, window);
    }
    if (window.logged < linesPerWindow) {
      window.logged += 1;
      emit(level, message, fields);
      return;
    }
    window.suppressed += 1;
    window.lastFields = fields;
  };

  return {
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
    ...(logger.debug
      ? { debug: (message: string, fields?: Record<string, unknown>) => log('debug', message, fields) }
      : {}),
  };
}
