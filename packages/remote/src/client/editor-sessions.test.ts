import { describe, expect, it } from 'vitest';
import { routeKeysOf } from '../wire/route-keys.js';
import { EditorSessions, MAX_TRACKED_SERVER_REQUESTS, MAX_TRACKED_SESSIONS } from './editor-sessions.js';

/** Hands one message to the tracker the way the carried port does: its route keys and its bytes. */
function sent(sessions: EditorSessions, message: Record<string, unknown>): void {
  sessions.sent(routeKeysOf(message), JSON.stringify({ jsonrpc: '2.0', ...message }));
}
function received(sessions: EditorSessions, message: Record<string, unknown>): void {
  sessions.received(routeKeysOf(message), JSON.stringify({ jsonrpc: '2.0', ...message }));
}

function initialized(): EditorSessions {
  const sessions = new EditorSessions();
  sent(sessions, {
    id: 0,
    method: 'initialize',
    params: { protocolVersion: 1, clientCapabilities: { x: 1 } },
  });
  received(sessions, { id: 0, result: { protocolVersion: 1 } });
  return sessions;
}

describe('EditorSessions', () => {
  it('keeps initialize params only once the agent answered them', () => {
    const sessions = new EditorSessions();
    sent(sessions, { id: 0, method: 'initialize', params: { protocolVersion: 1 } });
    expect(sessions.initializeParams).toBeUndefined();
    received(sessions, { id: 0, error: { code: -32603, message: 'no' } });
    expect(sessions.initializeParams).toBeUndefined();
    expect(initialized().initializeParams).toEqual({ protocolVersion: 1, clientCapabilities: { x: 1 } });
  });

  it('keeps the last authenticate the agent accepted, never a refused one', () => {
    const sessions = initialized();
    sent(sessions, { id: 1, method: 'authenticate', params: { methodId: 'wrong' } });
    received(sessions, { id: 1, error: { code: -32602, message: 'no such method' } });
    expect(sessions.authenticateParams).toBeUndefined();
    sent(sessions, { id: 2, method: 'authenticate', params: { methodId: 'token' } });
    expect(sessions.authenticateParams).toBeUndefined();
    received(sessions, { id: 2, result: {} });
    expect(sessions.authenticateParams).toEqual({ methodId: 'token' });
    sent(sessions, { id: 3, method: 'authenticate', params: { methodId: 'other' } });
    received(sessions, { id: 3, error: { code: -32000, message: 'Authentication required' } });
    expect(sessions.authenticateParams).toEqual({ methodId: 'token' });
  });

  it('opens sessions from session/new, load and resume answers, with what reopening them needs', () => {
    const sessions = initialized();
    sent(sessions, { id: 1, method: 'session/new', params: { cwd: '/a', mcpServers: [{ name: 'm' }] } });
    received(sessions, { id: 1, result: { sessionId: 's1' } });
    sent(sessions, { id: 2, method: 'session/load', params: { sessionId: 's2', cwd: '/b', mcpServers: [] } });
    received(sessions, { id: 2, result: null });
    sent(sessions, {
      id: 'r',
      method: 'session/resume',
      params: { sessionId: 's3', cwd: '/c', additionalDirectories: ['/d'] },
    });
    received(sessions, { id: 'r', result: {} });
    expect([...sessions.open]).toEqual([
      ['s1', { cwd: '/a', mcpServers: [{ name: 'm' }] }],
      ['s2', { cwd: '/b', mcpServers: [] }],
      ['s3', { cwd: '/c', mcpServers: [], additionalDirectories: ['/d'] }],
    ]);
  });

  it('a refused opening opens nothing; close and delete forget (only when they succeed)', () => {
    const sessions = initialized();
    sent(sessions, { id: 1, method: 'session/load', params: { sessionId: 'x', cwd: '/a', mcpServers: [] } });
    received(sessions, { id: 1, error: { code: -32002, message: 'not found' } });
    expect(sessions.open.size).toBe(0);
    for (const [id, sessionId] of [
      [2, 's1'],
      [3, 's2'],
    ] as const) {
      sent(sessions, { id, method: 'session/new', params: { cwd: '/a', mcpServers: [] } });
      received(sessions, { id, result: { sessionId } });
    }
    sent(sessions, { id: 4, method: 'session/close', params: { sessionId: 's1' } });
    received(sessions, { id: 4, error: { code: -32603, message: 'busy' } });
    expect([...sessions.open.keys()]).toEqual(['s1', 's2']);
    sent(sessions, { id: 5, method: 'session/close', params: { sessionId: 's1' } });
    received(sessions, { id: 5, result: {} });
    sent(sessions, { id: 6, method: 'session/delete', params: { sessionId: 's2' } });
    received(sessions, { id: 6, result: {} });
    expect(sessions.open.size).toBe(0);
  });

  it('cut() hands back the editor requests and the server requests still waiting, and forgets them', () => {
    const sessions = initialized();
    sent(sessions, { id: 7, method: 'session/prompt', params: { sessionId: 's', prompt: [] } });
    sent(sessions, { id: '8', method: 'session/prompt', params: { sessionId: 's', prompt: [] } });
    received(sessions, { id: 7, result: { stopReason: 'end_turn' } });
    received(sessions, { id: 40, method: 'session/request_permission', params: { sessionId: 's' } });
    received(sessions, { id: 41, method: 'elicitation/create', params: { sessionId: 's' } });
    sent(sessions, { id: 41, result: { action: 'cancel' } });
    expect(sessions.cut()).toEqual({ editorRequests: ['"8"'], serverRequests: ['40'] });
    expect(sessions.cut()).toEqual({ editorRequests: [], serverRequests: [] });
  });

  it('remembers at most MAX_TRACKED_SESSIONS sessions, the oldest going first', () => {
    const sessions = initialized();
    for (let index = 0; index <= MAX_TRACKED_SESSIONS; index += 1) {
      sent(sessions, { id: index + 1, method: 'session/new', params: { cwd: '/a', mcpServers: [] } });
      received(sessions, { id: index + 1, result: { sessionId: `s${index}` } });
    }
    expect(sessions.open.size).toBe(MAX_TRACKED_SESSIONS);
    expect(sessions.open.has('s0')).toBe(false);
    expect(sessions.open.has(`s${MAX_TRACKED_SESSIONS}`)).toBe(true);
  });

  it('remembers at most MAX_TRACKED_SERVER_REQUESTS unanswered server requests, the oldest going first', () => {
    const sessions = initialized();
    for (let id = 0; id <= MAX_TRACKED_SERVER_REQUESTS; id += 1)
      received(sessions, { id, method: 'session/request_permission', params: { sessionId: 's' } });
    const { serverRequests } = sessions.cut();
    expect(serverRequests).toHaveLength(MAX_TRACKED_SERVER_REQUESTS);
    expect(serverRequests[0]).toBe('1');
  });
});
