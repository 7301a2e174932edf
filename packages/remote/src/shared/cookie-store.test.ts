import { describe, expect, it } from 'vitest';
import { MemoryCookieStore, mergeCookieHeader } from './cookie-store.js';

describe('MemoryCookieStore', () => {
  it('keeps name=value of each Set-Cookie, the last value of a name winning, attributes ignored', () => {
    const store = new MemoryCookieStore();
    store.store(['route=a; Path=/; HttpOnly', 'AWSALB=xyz; Expires=Wed, 09 Jun 2027 10:18:14 GMT']);
    store.store(['route=b']);
    expect(store.header()).toBe('AWSALB=xyz; route=b');
  });

  it('removes a cookie set with Max-Age=0 and ignores malformed lines', () => {
    const store = new MemoryCookieStore();
    store.store(['a=1', 'b=2']);
    store.store(['a=gone; Max-Age=0', '=nameless', 'no-separator', 'bad name=1', 'c=has space']);
    expect(store.header()).toBe('b=2');
  });

  it('keeps at most 64 cookies, dropping the oldest', () => {
    const store = new MemoryCookieStore();
    store.store(Array.from({ length: 70 }, (_, index) => `c${index}=${index}`));
    const header = store.header() ?? '';
    expect(header.split('; ')).toHaveLength(64);
    expect(header.startsWith('c6=6')).toBe(true);
  });

  it('sends nothing when empty, and nothing after clear()', () => {
    const store = new MemoryCookieStore();
    expect(store.header()).toBeUndefined();
    store.store(['a=1']);
    store.clear();
    expect(store.header()).toBeUndefined();
  });
});

describe('mergeCookieHeader', () => {
  it("merges the store's cookies with the caller's own Cookie header, the caller's winning", () => {
    const store = new MemoryCookieStore();
    store.store(['route=server', 'lb=1']);
    expect(mergeCookieHeader(store, 'route=caller; theme=dark')).toBe('route=caller; lb=1; theme=dark');
    expect(mergeCookieHeader(undefined, undefined)).toBeUndefined();
  });
});
