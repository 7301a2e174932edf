import type { SendRequestOptions } from '@agentclientprotocol/sdk';
import { expect, vi } from 'vitest';
import { AcpSessionContext, type ElicitationClient } from '../../src/session-context.js';

export interface SentRequest {
  method: string;
  params: unknown;
  options: SendRequestOptions | undefined;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** A client double that records every request and lets the test answer it. */
export function fakeClient() {
  const requests: SentRequest[] = [];
  const notifications: Array<{ method: string; params: unknown }> = [];
  const client: ElicitationClient = {
    request(method, params, options) {
      return new Promise((resolve, reject) => {
        requests.push({ method, params, options, resolve, reject });
      });
    },
    async notify(method, params) {
      notifications.push({ method, params });
    },
  };
  return { client, requests, notifications };
}

/** A session context on a client double, with the capabilities given as they were recorded. */
export function sessionWith(clientCapabilities: unknown, client: ElicitationClient = fakeClient().client) {
  return new AcpSessionContext({
    sessionId: 'session-1',
    client,
    clientCapabilities: clientCapabilities as AcpSessionContext['clientCapabilities'],
  });
}

export async function nextRequest(requests: SentRequest[]): Promise<SentRequest> {
  await vi.waitFor(() => expect(requests.length).toBeGreaterThan(0));
  return requests.at(-1) as SentRequest;
}
