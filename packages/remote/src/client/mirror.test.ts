// Unit tests of the mirror's rewrites: host ownership of initialize and the session cwd.
import { describe, expect, it } from 'vitest';
import { applyHostOwnership, rewriteSessionCwd } from './mirror.js';

describe('applyHostOwnership', () => {
  const params = {
    protocolVersion: 1,
    clientCapabilities: {
      fs: { readTextFile: true, writeTextFile: true, _meta: { keep: 1 } },
      terminal: true,
      elicitation: { form: {}, url: {} },
      futureCap: { x: 1 },
      _meta: { client: 'editor' },
    },
    _meta: { top: true },
  };

  it('turns off host-backed capabilities and keeps every other field in remote mode', () => {
    expect(applyHostOwnership(params, 'remote')).toEqual({
      protocolVersion: 1,
      clientCapabilities: {
        fs: { readTextFile: false, writeTextFile: false, _meta: { keep: 1 } },
        terminal: false,
        elicitation: { form: {}, url: {} },
        futureCap: { x: 1 },
        _meta: { client: 'editor' },
      },
      _meta: { top: true },
    });
  });

  it('adds the host-owned fields when the client sent no capabilities', () => {
    expect(applyHostOwnership({ protocolVersion: 1 }, 'remote')).toEqual({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
  });

  it('changes nothing in client-passthrough mode or for non-object params', () => {
    expect(applyHostOwnership(params, 'client-passthrough')).toBeUndefined();
    expect(applyHostOwnership(null, 'remote')).toBeUndefined();
  });
});

describe('rewriteSessionCwd', () => {
  it('replaces the cwd of session requests that carry one', () => {
    expect(rewriteSessionCwd('session/new', { cwd: '/local', mcpServers: [] }, '/remote')).toEqual({
      cwd: '/remote',
      mcpServers: [],
    });
    expect(rewriteSessionCwd('session/load', { cwd: '/local', sessionId: 's' }, '/remote')).toEqual({
      cwd: '/remote',
      sessionId: 's',
    });
  });

  it('leaves requests without a cwd, non-session methods and a missing remote cwd alone', () => {
    expect(rewriteSessionCwd('session/list', {}, '/remote')).toBeUndefined();
    expect(rewriteSessionCwd('_vendor/x', { cwd: '/local' }, '/remote')).toBeUndefined();
    expect(rewriteSessionCwd('session/new', { cwd: '/local' }, undefined)).toBeUndefined();
  });
});
