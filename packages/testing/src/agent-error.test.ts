// Unit tests of the agent error detail: what each shape of JSON-RPC `data` adds to the message.
import { RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { agentErrorDetail, withAgentErrorDetail } from './agent-error.js';

describe('agentErrorDetail', () => {
  it.each([
    ['a string', 'disk full', 'disk full'],
    ["the SDK's details", { details: 'boom' }, 'boom'],
    [
      'the class and code acpSessions().prompt adds',
      { name: 'FormSchemaError', code: 'UNSUPPORTED_TYPE', details: 'z.map() is not supported' },
      'FormSchemaError UNSUPPORTED_TYPE: z.map() is not supported',
    ],
    ['a message', { message: 'quota exceeded' }, 'quota exceeded'],
    ['anything else, as JSON', { field: ['bad'] }, '{"field":["bad"]}'],
  ])('reads %s', (_case, data, detail) => {
    expect(agentErrorDetail(data)).toBe(detail);
  });

  it('has nothing to add without data', () => {
    expect(agentErrorDetail(undefined)).toBeUndefined();
    expect(agentErrorDetail(null)).toBeUndefined();
    expect(agentErrorDetail('')).toBeUndefined();
  });
});

describe('withAgentErrorDetail', () => {
  it('puts the detail in the message and keeps code and data', () => {
    const data = { name: 'FormSchemaError', code: 'UNSUPPORTED_TYPE', details: 'z.map() is not supported' };
    const explained = withAgentErrorDetail(new RequestError(-32603, 'Internal error', data));
    expect(explained).toBeInstanceOf(RequestError);
    expect(explained).toMatchObject({
      code: -32603,
      data,
      message: 'Internal error (-32603): FormSchemaError UNSUPPORTED_TYPE: z.map() is not supported',
    });
  });

  it('returns an error without data as it is', () => {
    const bare = new RequestError(-32601, 'Method not found');
    expect(withAgentErrorDetail(bare)).toBe(bare);
  });
});
