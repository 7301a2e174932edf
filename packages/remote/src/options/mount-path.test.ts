// Unit tests of mount path normalisation and the server paths built from it.
import { describe, expect, it } from 'vitest';
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import { buildServerPaths, normalizeMountPath } from './mount-path.js';

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return AcpRemoteError.isInstance(error) ? error.code : 'not-remote-error';
  }
  return undefined;
}

describe('normalizeMountPath', () => {
  it.each([
    ['acp', '/acp'],
    ['/acp/', '/acp'],
    ['  /acp//  ', '/acp'],
    ['/', '/'],
    ['///', '/'],
    ['nested/mount/', '/nested/mount'],
  ])('normalises %j to %j', (input, expected) => {
    expect(normalizeMountPath(input)).toBe(expected);
  });

  it.each(['', '   ', '/healthz', 'healthz/', '/readyz', 'readyz/', '/a b', '/acp?x=1', '/acp#frag'])(
    'rejects %j with INVALID_OPTION',
    (input) => {
      expect(codeOf(() => normalizeMountPath(input))).toBe(AcpRemoteErrorCode.InvalidOption);
    },
  );
});

describe('buildServerPaths', () => {
  it('puts the WebSocket route under the mount path', () => {
    expect(buildServerPaths('/acp')).toEqual({
      metadata: '/acp',
      websocket: '/acp/ws',
      health: '/healthz',
      readiness: '/readyz',
    });
  });

  it('uses /ws when mounted at the root', () => {
    expect(buildServerPaths('/')).toEqual({
      metadata: '/',
      websocket: '/ws',
      health: '/healthz',
      readiness: '/readyz',
    });
  });
});
