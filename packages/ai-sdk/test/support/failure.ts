// The JSON-RPC error a request must fail with, for the tests that expect one.
import { RequestError } from '@agentclientprotocol/sdk';
import { expect } from 'vitest';

/** Awaits `promise` and returns the `RequestError` it rejected with; fails the test when it resolved. */
export async function failure(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RequestError);
    return error as RequestError;
  }
  throw new Error('expected a JSON-RPC error');
}
