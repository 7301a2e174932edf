import { describe, expect, it } from 'vitest';
import { corsPreflight, corsResponseHeaders } from './cors.js';

describe('CORS', () => {
  const allowed = new Set(['https://app.example']);
  it('echoes an allowed origin with credentials and exposes the Acp-* headers', () => {
    expect(corsResponseHeaders('https://app.example', allowed)).toMatchObject({
      'Access-Control-Allow-Origin': 'https://app.example',
      'Access-Control-Allow-Credentials': 'true',
      'Access-Control-Expose-Headers': expect.stringContaining('Acp-Connection-Id'),
    });
  });
  it('adds nothing without an allow-list or without an Origin, and answers no preflight then', () => {
    expect(corsResponseHeaders('https://app.example', new Set())).toEqual({});
    expect(corsResponseHeaders(undefined, allowed)).toEqual({});
    expect(corsPreflight('https://app.example', 'POST', new Set())).toBeUndefined();
    expect(corsPreflight('https://app.example', undefined, allowed)).toBeUndefined();
  });
  it('allows the methods and headers a page needs in a preflight', () => {
    expect(corsPreflight('https://app.example', 'POST', allowed)).toMatchObject({
      'Access-Control-Allow-Methods': 'GET, POST, DELETE',
      'Access-Control-Allow-Headers': expect.stringContaining('Acp-Session-Id'),
      'Access-Control-Max-Age': '600',
    });
  });
});
