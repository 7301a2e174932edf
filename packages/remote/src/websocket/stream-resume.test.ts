// The durable-resume draft's `stream/resume` as our RFD WebSocket reads it, answers it and refuses it.
import { describe, expect, it } from 'vitest';
import {
  mayBeStreamResume,
  readStreamResume,
  STREAM_RESUME_REFUSED_CODE,
  streamResumeAnswer,
  streamResumeRefusal,
  streamResumeRefusalFrames,
} from './stream-resume.js';

const frame = (message: object) => Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }));

describe('readStreamResume', () => {
  it('reads the connection id and the cursor, in either spelling', () => {
    const params = { connectionId: 'c-1', cursor: '7' };
    expect(readStreamResume(frame({ id: 1, method: 'stream/resume', params }))).toEqual({
      ok: true,
      id: '1',
      connectionId: 'c-1',
      cursor: '7',
    });
    const spelled = { connectionId: 'c-1', cursors: { connection: '7' } };
    expect(readStreamResume(frame({ id: 'r', method: 'stream/resume', params: spelled }))).toMatchObject({
      ok: true,
      id: '"r"',
      cursor: '7',
    });
    // A notification, and a client that processed nothing yet.
    expect(readStreamResume(frame({ method: 'stream/resume', params: { connectionId: 'c-1' } }))).toEqual({
      ok: true,
      id: undefined,
      connectionId: 'c-1',
      cursor: undefined,
    });
  });

  it('says why malformed params are invalid, and is undefined for anything else', () => {
    for (const params of [
      undefined,
      [],
      { cursor: '1' },
      { connectionId: '' },
      { connectionId: 'c', cursor: 7 },
      { connectionId: 'c', cursors: 'x' },
      { connectionId: 'c', cursor: '1', cursors: { connection: '2' } },
      { connectionId: 'x'.repeat(1025) },
    ])
      expect(readStreamResume(frame({ id: 1, method: 'stream/resume', params }))).toMatchObject({
        ok: false,
        id: '1',
      });
    expect(readStreamResume(frame({ id: 0, method: 'initialize', params: {} }))).toBeUndefined();
    expect(readStreamResume(Buffer.from('not json stream/resume'))).toBeUndefined();
    expect(mayBeStreamResume(frame({ id: 0, method: 'initialize' }))).toBe(false);
  });
});

describe('streamResumeRefusalFrames', () => {
  it('is stream/resume_failed, then the error answer for a request; the notification alone otherwise', () => {
    const refusal = { reason: 'expired', message: 'too late' } as const;
    expect(streamResumeRefusalFrames('"r"', refusal).map((text) => JSON.parse(text))).toEqual([
      { jsonrpc: '2.0', method: 'stream/resume_failed', params: refusal },
      {
        jsonrpc: '2.0',
        id: 'r',
        error: { code: STREAM_RESUME_REFUSED_CODE, message: 'stream resume refused', data: refusal },
      },
    ]);
    expect(streamResumeRefusalFrames(undefined, refusal)).toHaveLength(1);
    expect(JSON.parse(streamResumeRefusal({ method: 'stream/resume' })![0]!).params.reason).toBe(
      'unsupported',
    );
  });
});

describe('streamResumeAnswer', () => {
  it('carries the advisory of the session prompted last, and every session, in _meta', () => {
    const answer = streamResumeAnswer(
      '5',
      { sessionId: 's', state: 'running', promptRequestId: 3 },
      { s: { state: 'running', promptRequestId: 3 }, t: { state: 'idle', stopReason: 'end_turn' } },
    );
    expect(JSON.parse(answer)).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: {
        _meta: {
          'acp/turnState': { sessionId: 's', state: 'running', promptRequestId: 3 },
          'acp/turnStates': {
            s: { state: 'running', promptRequestId: 3 },
            t: { state: 'idle', stopReason: 'end_turn' },
          },
        },
      },
    });
    expect(JSON.parse(streamResumeAnswer('5', undefined, {})).result._meta['acp/turnState']).toEqual({
      state: 'idle',
    });
  });
});
