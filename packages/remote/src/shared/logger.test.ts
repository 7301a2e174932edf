// Unit tests of the stderr logger, redaction and the rate limiter.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createStderrLogger,
  formatLogLine,
  type RemoteLogger,
  rateLimitLogger,
  redactUrls,
  sanitizeLogText,
} from './logger.js';

function capture(): { lines: () => string[]; output: { write(text: string): void } } {
  let text = '';
  return {
    output: {
      write(chunk: string) {
        text += chunk;
      },
    },
    lines: () => text.split('\n').slice(0, -1),
  };
}

describe('redactUrls', () => {
  it.each([
    ['ws://user:password@host:8080/acp/ws', 'ws://***@host:8080/acp/ws'],
    ['wss://host/acp/ws?access_token=abc&x=1', 'wss://host/acp/ws?access_token=***&x=***'],
    ['ws://a:b@host/p?t=s#frag', 'ws://***@host/p?t=***#frag'],
    ['ws://a@b:c@host/', 'ws://***@host/'],
    [
      'cannot connect to ws://u:p@h/acp/ws: ECONNREFUSED',
      'cannot connect to ws://***@h/acp/ws: ECONNREFUSED',
    ],
    ['"url":"ws://u:p@h/ws?k=v"', '"url":"ws://***@h/ws?k=***"'],
    ['no url here', 'no url here'],
    ['http://host/path/plain', 'http://host/path/plain'],
  ])('redacts %s', (input, expected) => {
    expect(redactUrls(input)).toBe(expected);
  });
});

describe('sanitizeLogText', () => {
  it('escapes newlines, carriage returns, escape sequences, C1 controls and line separators', () => {
    expect(sanitizeLogText('a\nb\rc\td\u001b[31me\u0085f\u2028g\u2029h\u0000')).toBe(
      'a\\nb\\rc\\td\\u001b[31me\\u0085f\\u2028g\\u2029h\\u0000',
    );
  });
});

describe('formatLogLine', () => {
  it('keeps numbers and booleans bare and quotes strings', () => {
    expect(formatLogLine('opened', { connection: 3, secure: false, remoteAddress: '::1' })).toBe(
      'opened connection=3 secure=false remoteAddress="::1"',
    );
  });

  it('never throws on values JSON cannot serialise', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(formatLogLine('x', { big: 10n, circular, error: new Error('boom\nforged') })).toBe(
      'x big=10 circular="[object Object]" error="boom\\nforged"',
    );
  });

  it('escapes hostile keys and values, and skips undefined fields', () => {
    expect(formatLogLine('m', { 'a\nb': 'v\u2028', gone: undefined })).toBe('m "a\\nb"="v\\u2028"');
  });
});

describe('createStderrLogger', () => {
  it('writes exactly one line per event, whatever the message and fields contain', () => {
    const { output, lines } = capture();
    const logger = createStderrLogger('acpremote', output);
    logger.warn('response to unknown request 1\nacpremote info: forged', {
      id: '7\r\nacpremote error: also forged',
      url: 'ws://me:secret@host/acp/ws?access_token=tok',
    });
    logger.info('plain');
    expect(lines()).toEqual([
      'acpremote warn: response to unknown request 1\\nacpremote info: forged id="7\\r\\nacpremote error: also forged" url="ws://***@host/acp/ws?access_token=***"',
      'acpremote info: plain',
    ]);
  });
});

describe('rateLimitLogger', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function recording(): { logger: RemoteLogger; calls: Array<[string, string, unknown]> } {
    const calls: Array<[string, string, unknown]> = [];
    return {
      calls,
      logger: {
        info: (message, fields) => calls.push(['info', message, fields]),
        warn: (message, fields) => calls.push(['warn', message, fields]),
        error: (message, fields) => calls.push(['error', message, fields]),
      },
    };
  }

  it('lets linesPerWindow lines of one key through, then summarises the rest when the window ends', () => {
    vi.useFakeTimers();
    const { logger, calls } = recording();
    const limited = rateLimitLogger(logger, { linesPerWindow: 3, windowMs: 1_000 });
    for (let index = 0; index < 1_000; index += 1) limited.warn('rejected frame', { connection: index });
    limited.info('other key', { n: 1 });
    expect(calls).toHaveLength(4);
    expect(calls.slice(0, 3).map(([, , fields]) => fields)).toEqual([
      { connection: 0 },
      { connection: 1 },
      { connection: 2 },
    ]);
    vi.advanceTimersByTime(1_000);
    expect(calls.at(-1)).toEqual([
      'warn',
      'rejected frame',
      { suppressed: 997, windowMs: 1_000, connection: 999 },
    ]);
    limited.warn('rejected frame', { connection: 'again' });
    expect(calls.at(-1)).toEqual(['warn', 'rejected frame', { connection: 'again' }]);
  });

  it('writes no summary when nothing was suppressed', () => {
    vi.useFakeTimers();
    const { logger, calls } = recording();
    const limited = rateLimitLogger(logger, { linesPerWindow: 2, windowMs: 100 });
    limited.error('once');
    vi.advanceTimersByTime(1_000);
    expect(calls).toEqual([['error', 'once', undefined]]);
  });

  it('bounds the keys it tracks: messages beyond maxKeys share one budget', () => {
    vi.useFakeTimers();
    const { logger, calls } = recording();
    const limited = rateLimitLogger(logger, { linesPerWindow: 1, windowMs: 1_000, maxKeys: 2 });
    for (let index = 0; index < 100; index += 1) limited.info(`distinct message ${index}`);
    // Two tracked keys plus the overflow budget: three lines, the other 97 suppressed.
    expect(calls.map(([, message]) => message)).toEqual([
      'distinct message 0',
      'distinct message 1',
      'distinct message 2',
    ]);
    vi.advanceTimersByTime(1_000);
    expect(calls.at(-1)?.[2]).toMatchObject({ suppressed: 97 });
  });

  it('takes the key from keyOf, e.g. one budget per refusal reason', () => {
    vi.useFakeTimers();
    const { logger, calls } = recording();
    const limited = rateLimitLogger(logger, {
      linesPerWindow: 1,
      keyOf: (message, fields) => `${message} ${String(fields?.reason)}`,
    });
    for (const reason of ['auth', 'auth', 'limit', 'limit', 'auth'])
      limited.info('connection refused', { reason });
    expect(calls.map(([, , fields]) => fields)).toEqual([{ reason: 'auth' }, { reason: 'limit' }]);
  });

  it('keeps debug optional, as the wrapped logger has it or not', () => {
    expect(rateLimitLogger(recording().logger).debug).toBeUndefined();
    const debug = vi.fn();
    rateLimitLogger({ ...recording().logger, debug }).debug?.('paused');
    expect(debug).toHaveBeenCalledWith('paused', undefined);
  });
});
