// Unit tests of the metadata document.
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { buildServerPaths } from '../options/mount-path.js';
import {
  buildServerMetadata,
  metadataUrlFor,
  PACKAGE_VERSION,
  parseServerMetadata,
} from './server-metadata.js';

describe('buildServerMetadata', () => {
  it('uses the Python ACP Kit keys, sorted, plus unstable_protocol and acp_protocol_version', () => {
    const metadata = buildServerMetadata({
      paths: buildServerPaths('/acp'),
      authRequired: true,
      maxMessageBytes: 4096,
      remoteCwd: '/srv/project',
      useUnstableProtocol: true,
    });
    expect(metadata).toEqual({
      acp_protocol_version: PROTOCOL_VERSION,
      auth_required: true,
      compression: null,
      health_path: '/healthz',
      max_queue: 16,
      max_size: 4096,
      metadata_path: '/acp',
      package_version: PACKAGE_VERSION,
      remote_cwd: '/srv/project',
      supported_agent_families: [],
      supported_auth_modes: ['bearer'],
      transport_kind: 'websocket',
      transport_version: 1,
      unstable_protocol: true,
      websocket_path: '/acp/ws',
    });
    const keys = Object.keys(metadata);
    expect(keys).toEqual([...keys].sort());
  });

  it('reports no auth modes and a null remote_cwd when neither is configured', () => {
    const metadata = buildServerMetadata({
      paths: buildServerPaths('/'),
      authRequired: false,
      maxMessageBytes: 1,
      remoteCwd: undefined,
      useUnstableProtocol: false,
    });
    expect(metadata.supported_auth_modes).toEqual([]);
    expect(metadata.remote_cwd).toBeNull();
    expect(metadata.websocket_path).toBe('/ws');
  });

  it('matches the version in package.json', async () => {
    const { default: packageJson } = await import('../../package.json', { with: { type: 'json' } });
    expect(PACKAGE_VERSION).toBe(packageJson.version);
  });
});

describe('metadataUrlFor', () => {
  it.each([
    ['ws://127.0.0.1:8080/acp/ws', 'http://127.0.0.1:8080/acp'],
    ['wss://example.com/acp/ws?x=1', 'https://example.com/acp'],
    ['ws://127.0.0.1:8080/acp', 'http://127.0.0.1:8080/acp'],
    ['ws://127.0.0.1:8080/ws', 'http://127.0.0.1:8080/'],
    ['http://127.0.0.1:8080/acp', 'http://127.0.0.1:8080/acp'],
    ['https://example.com/acp?x=1', 'https://example.com/acp'],
  ])('maps %s to %s', (input, expected) => {
    expect(metadataUrlFor(input)).toBe(expected);
  });

  it('returns undefined for other schemes and garbage', () => {
    expect(metadataUrlFor('ftp://example.com/acp/ws')).toBeUndefined();
    expect(metadataUrlFor('not a url')).toBeUndefined();
  });
});

describe('parseServerMetadata', () => {
  it('rejects documents that are not websocket metadata', () => {
    expect(parseServerMetadata(null)).toBeUndefined();
    expect(parseServerMetadata([])).toBeUndefined();
    expect(parseServerMetadata({ transport_kind: 'http' })).toBeUndefined();
  });

  it('reads a blank remote_cwd as null and filters non-string lists', () => {
    const metadata = parseServerMetadata({
      transport_kind: 'websocket',
      remote_cwd: '',
      supported_auth_modes: ['bearer', 3],
    });
    expect(metadata?.remote_cwd).toBeNull();
    expect(metadata?.supported_auth_modes).toEqual(['bearer']);
  });
});
