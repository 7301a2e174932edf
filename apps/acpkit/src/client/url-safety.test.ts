import { describe, expect, it } from 'vitest';
import { reviewUrl } from './url-safety.js';

describe('reviewUrl', () => {
  it('names the host of a plain https URL without warnings', () => {
    expect(reviewUrl('https://auth.example.com:8443/login?x=1')).toEqual({
      url: 'https://auth.example.com:8443/login?x=1',
      host: 'auth.example.com:8443',
      warnings: [],
    });
  });

  it('warns about punycode hosts and shows how they display', () => {
    const review = reviewUrl('https://xn--pple-43d.com/login');
    expect(review.host).toBe('xn--pple-43d.com');
    expect(review.unicodeHost).toBe('аpple.com');
    expect(review.warnings).toEqual([
      'The host xn--pple-43d.com is punycode; it displays as аpple.com. Check that it is the site you expect.',
    ]);
  });

  it('warns about plain http, other schemes, credentials and unparsable URLs', () => {
    expect(reviewUrl('http://example.com/').warnings).toEqual([
      'The URL is not encrypted (http, not https).',
    ]);
    expect(reviewUrl('javascript:alert(1)').warnings).toEqual([
      'The URL uses the javascript: scheme, not https.',
    ]);
    expect(reviewUrl('https://user:secret@example.com/').warnings).toEqual([
      'The URL carries a user name or password.',
    ]);
    expect(reviewUrl('not a url')).toEqual({
      url: 'not a url',
      warnings: ['The agent sent a URL that does not parse; do not open it.'],
    });
  });
});
