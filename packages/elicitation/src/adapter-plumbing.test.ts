// The plumbing both adapters share: prompt parts, tool permission requests, question outcomes, initialize.
import { PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { initializeResponse, toolOutputText, toolTextContent } from './agent-turn-content.js';
import { ElicitationUnsupportedError } from './errors.js';
import { promptParts } from './prompt-parts.js';
import { askForOutcome } from './question-outcome.js';
import { ElicitationAccepted, ElicitationCancelled, ElicitationDeclined } from './results.js';
import type { ElicitationClient } from './session-context.js';
import { requestToolPermission, toolPermissionOptions } from './tool-permission.js';

const noMedia = { image: false, audio: false };

describe('promptParts', () => {
  it('reads text, links, embedded text and media the agent takes, in order', () => {
    const parts = promptParts(
      [
        { type: 'text', text: 'Look' },
        { type: 'resource_link', name: 'a.ts', uri: 'file:///a.ts', title: 'A', mimeType: 'text/x-ts' },
        { type: 'resource', resource: { uri: 'file:///b.md', text: 'B' } },
        { type: 'image', data: 'aW1n', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///c.wav', blob: 'd2F2', mimeType: 'audio/wav' } },
        { type: 'resource', resource: { uri: 'file:///d.bin', blob: 'AA==' } },
      ],
      { image: true, audio: false },
    );
    expect(parts).toEqual([
      { type: 'text', text: 'Look' },
      { type: 'text', text: 'Resource link: a.ts <file:///a.ts>\nTitle: A\nMedia type: text/x-ts' },
      { type: 'text', text: '<resource uri="file:///b.md">\nB\n</resource>' },
      { type: 'media', kind: 'image', mediaType: 'image/png', data: 'aW1n' },
      {
        type: 'text',
        text: '<resource uri="file:///c.wav" mediaType="audio/wav">(binary content not shown to the model)</resource>',
      },
      {
        type: 'text',
        text: '<resource uri="file:///d.bin" mediaType="application/octet-stream">(binary content not shown to the model)</resource>',
      },
    ]);
  });

  it('refuses an image or audio block the agent did not advertise with -32602', () => {
    for (const block of [
      { type: 'image', data: 'x', mimeType: 'image/png' },
      { type: 'audio', data: 'x', mimeType: 'audio/wav' },
    ] as const) {
      let thrown: unknown;
      try {
        promptParts([block], noMedia);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RequestError);
      expect(thrown).toMatchObject({ code: -32602, data: { contentType: block.type } });
    }
  });
});

/** A client whose answer to session/request_permission is `answer` (a value, or a function that may throw). */
function clientAnswering(answer: (signal: AbortSignal | undefined) => Promise<unknown>): ElicitationClient & {
  readonly asked: unknown[];
} {
  const asked: unknown[] = [];
  return {
    asked,
    async request(_method, params, options) {
      asked.push(params);
      return answer(options?.cancellationSignal);
    },
    async notify() {},
  };
}

const request = (signal: AbortSignal) => ({
  sessionId: 's',
  toolCall: { toolCallId: 'c', title: 'deploy' },
  options: toolPermissionOptions('deploy'),
  signal,
});

describe('requestToolPermission', () => {
  it('offers allow once, allow always and reject, with extra options between', () => {
    expect(toolPermissionOptions('deploy').map((option) => option.optionId)).toEqual([
      'allow_once',
      'allow_always',
      'reject_once',
    ]);
    expect(toolPermissionOptions('deploy')[1]?.name).toBe('Always allow deploy in this session');
    const extra = [{ optionId: 'edit', name: 'Edit', kind: 'allow_once' } as const];
    expect(toolPermissionOptions('x', { allow: false, extra }).map((option) => option.optionId)).toEqual([
      'edit',
      'reject_once',
    ]);
    expect(toolPermissionOptions('x', { allow: false, reject: false })).toEqual([]);
  });

  it('reads the selected option, a cancellation, a failed request and an unreadable answer', async () => {
    const signal = new AbortController().signal;
    const selected = clientAnswering(async () => ({
      outcome: { outcome: 'selected', optionId: 'allow_once' },
    }));
    expect(await requestToolPermission(selected, request(signal))).toEqual({
      outcome: 'selected',
      optionId: 'allow_once',
    });
    expect(selected.asked[0]).toMatchObject({ sessionId: 's', toolCall: { toolCallId: 'c' } });
    const dismissed = clientAnswering(async () => ({ outcome: { outcome: 'cancelled' } }));
    expect(await requestToolPermission(dismissed, request(signal))).toEqual({ outcome: 'cancelled' });
    const failing = clientAnswering(async () => {
      throw RequestError.internalError(undefined, 'no');
    });
    expect(await requestToolPermission(failing, request(signal))).toEqual({ outcome: 'failed' });
    const garbage = clientAnswering(async () => ({ outcome: 42 }));
    expect(await requestToolPermission(garbage, request(signal))).toEqual({ outcome: 'invalid' });
  });

  it('answers cancelled for a cancelled turn without asking, and when the turn is cancelled while it waits', async () => {
    const cancelled = new AbortController();
    cancelled.abort();
    const never = clientAnswering(() => new Promise(() => undefined));
    expect(await requestToolPermission(never, request(cancelled.signal))).toEqual({ outcome: 'cancelled' });
    expect(never.asked).toEqual([]);
    const turn = new AbortController();
    const waiting = clientAnswering(
      (signal) =>
        new Promise((_resolve, reject) =>
          signal?.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
    );
    const answer = requestToolPermission(waiting, request(turn.signal));
    turn.abort();
    expect(await answer).toEqual({ outcome: 'cancelled' });
  });

  it('rejects only when the connection is gone (not a JSON-RPC error)', async () => {
    const closed = clientAnswering(async () => {
      throw new Error('connection closed');
    });
    await expect(requestToolPermission(closed, request(new AbortController().signal))).rejects.toThrow(
      'connection closed',
    );
  });
});

describe('askForOutcome', () => {
  const messages = { declined: 'D', cancelled: 'C', unsupported: 'U' };

  it('turns each elicitation result, and a client without forms, into an outcome with words', async () => {
    expect(await askForOutcome(async () => new ElicitationAccepted(3), messages)).toEqual({
      status: 'accepted',
      answer: 3,
    });
    expect(await askForOutcome(async () => new ElicitationDeclined(), messages)).toEqual({
      status: 'declined',
      message: 'D',
    });
    expect(await askForOutcome(async () => new ElicitationCancelled(), messages)).toEqual({
      status: 'cancelled',
      message: 'C',
    });
    expect(
      await askForOutcome(async () => {
        throw new ElicitationUnsupportedError('form');
      }, messages),
    ).toEqual({ status: 'unsupported', message: 'U' });
    await expect(
      askForOutcome(async () => {
        throw new Error('closed');
      }, messages),
    ).rejects.toThrow('closed');
  });
});

describe('initializeResponse and tool output', () => {
  it('answers initialize with the lower protocol version, no auth and agentInfo', () => {
    expect(initializeResponse({ protocolVersion: 99 }, { name: 'a', version: '1' }, {})).toEqual({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {},
      authMethods: [],
      agentInfo: { name: 'a', version: '1' },
    });
    expect(
      initializeResponse({ protocolVersion: 0 }, { name: 'a', version: '1', title: 'A' }, {}).agentInfo,
    ).toEqual({ name: 'a', version: '1', title: 'A' });
  });

  it('shows a tool output as text', () => {
    expect(toolOutputText('x')).toBe('x');
    expect(toolOutputText(new Error('boom'))).toBe('boom');
    expect(toolOutputText(undefined)).toBe('(no output)');
    expect(toolOutputText({ a: 1 })).toBe('{\n  "a": 1\n}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(toolOutputText(cyclic)).toBe('[object Object]');
    expect(toolTextContent('t')).toEqual([{ type: 'content', content: { type: 'text', text: 't' } }]);
  });
});
