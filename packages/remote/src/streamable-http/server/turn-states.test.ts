// The turn state of a session as the durable-resume advisory tells it, read from route keys as messages pass.
import { describe, expect, it } from 'vitest';
import { TurnStates } from './turn-states.js';

const prompt = (id: string, sessionId = 's') =>
  ({ kind: 'request', id, method: 'session/prompt', sessionId }) as const;

describe('TurnStates', () => {
  it('idle before any prompt; running while one is in progress; idle with its stopReason after', () => {
    const turns = new TurnStates();
    expect(turns.of('s')).toEqual({ state: 'idle' });
    turns.inbound(prompt('3'));
    expect(turns.of('s')).toEqual({ state: 'running', promptRequestId: 3 });
    turns.outbound(
      { kind: 'response', id: '3' },
      '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}',
    );
    expect(turns.of('s')).toEqual({ state: 'idle', stopReason: 'cancelled' });
    expect(turns.of('other')).toEqual({ state: 'idle' });
  });

  it('requires_action while the agent waits on the client, running again once answered', () => {
    const turns = new TurnStates();
    turns.inbound(prompt('"p"'));
    turns.outbound({ kind: 'request', id: '7', method: 'session/request_permission', sessionId: 's' }, '{}');
    expect(turns.of('s')).toEqual({ state: 'requires_action', promptRequestId: 'p' });
    turns.inbound({ kind: 'response', id: '7' });
    expect(turns.of('s')).toEqual({ state: 'running', promptRequestId: 'p' });
  });

  it('stays bounded under a flood of unanswered agent requests', () => {
    const turns = new TurnStates();
    turns.inbound(prompt('1'));
    for (let id = 0; id < 10_000; id += 1)
      turns.outbound({ kind: 'request', id: String(id + 100), method: '_ask', sessionId: 's' }, '{}');
    expect(turns.of('s').state).toBe('requires_action');
    turns.outbound({ kind: 'response', id: '1' }, '{"id":1,"result":{"stopReason":"end_turn"}}');
    expect(turns.of('s')).toEqual({ state: 'idle', stopReason: 'end_turn' });
  });
  it('names the session prompted last and lists every session followed', () => {
    const turns = new TurnStates();
    expect(turns.latestSession).toBeUndefined();
    turns.inbound(prompt('1', 'a'));
    turns.inbound(prompt('2', '__proto__'));
    expect(turns.latestSession).toBe('__proto__');
    const all = turns.all();
    expect(Object.keys(all)).toEqual(['a', '__proto__']);
    expect(all.a).toEqual({ state: 'running', promptRequestId: 1 });
    expect(JSON.stringify(all)).toContain('"__proto__":{"state":"running","promptRequestId":2}');
  });
});
