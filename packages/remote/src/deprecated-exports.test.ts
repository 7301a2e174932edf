import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyHostOwnership, PACKAGE_VERSION, rewriteSessionCwd, tokensMatch } from './index.js';
import { buildServerPaths } from './options/mount-path.js';
import { buildServerMetadata } from './wire/server-metadata.js';

describe('deprecated exports', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('keep working and warn once per process with their own ACPKIT_DEP code', () => {
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    for (let round = 0; round < 2; round += 1) {
      expect(tokensMatch('secret', 'secret')).toBe(true);
      expect(applyHostOwnership({ clientCapabilities: {} }, 'remote')).toMatchObject({
        clientCapabilities: { terminal: false },
      });
      expect(rewriteSessionCwd('session/new', { cwd: '/here' }, '/there')).toEqual({ cwd: '/there' });
    }
    const codes = emitWarning.mock.calls.map(([, options]) => (options as { code: string }).code);
    expect(codes).toEqual(['ACPKIT_DEP003', 'ACPKIT_DEP004', 'ACPKIT_DEP005']);
    for (const [, options] of emitWarning.mock.calls) {
      expect(options).toMatchObject({ type: 'DeprecationWarning' });
    }
  });

  it('PACKAGE_VERSION is the version the metadata reports', () => {
    const metadata = buildServerMetadata({
      paths: buildServerPaths('/acp'),
      authRequired: false,
      maxMessageBytes: 1,
      remoteCwd: undefined,
      useUnstableProtocol: false,
    });
    expect(PACKAGE_VERSION).toBe(metadata.package_version);
  });
});
