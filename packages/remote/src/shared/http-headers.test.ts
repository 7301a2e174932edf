// Unit tests of the header and host readers: loopback hosts, Host names, origins.
import { describe, expect, it } from 'vitest';
import { isLoopbackHost, normalizeOrigin, parseHostHeader } from './http-headers.js';

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', 'LOCALHOST'])(
    'treats %s as loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );
  it.each(['0.0.0.0', '::', '192.168.1.2', 'example.com', '10.0.0.1'])('treats %s as public', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('parseHostHeader / normalizeOrigin', () => {
  it('parses host names with ports and IPv6 brackets', () => {
    expect(parseHostHeader('LocalHost:8080')).toBe('localhost');
    expect(parseHostHeader('[::1]:80')).toBe('[::1]');
    expect(parseHostHeader('a b')).toBeUndefined();
    expect(parseHostHeader('user@host')).toBeUndefined();
    expect(parseHostHeader('[::1')).toBeUndefined();
  });

  it('normalises origins and rejects malformed ones', () => {
    expect(normalizeOrigin('HTTPS://Editor.Example:443')).toBe('https://editor.example');
    expect(normalizeOrigin('null')).toBe('null');
    expect(normalizeOrigin('not an origin')).toBeUndefined();
  });
});
