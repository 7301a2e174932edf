import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { client, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { AcpRemoteError, AcpRemoteErrorCode, connectAcp, runMirror, serveCommand } from '../src/index.js';
import { Cleanup, ECHO_AGENT, recordingLogger } from './support/helpers.js';

// A self-signed certificate for localhost / 127.0.0.1, made for these tests only (valid for 100 years).
const key = readFileSync(fileURLToPath(new URL('./fixtures/tls-key.pem', import.meta.url)));
const cert = readFileSync(fileURLToPath(new URL('./fixtures/tls-cert.pem', import.meta.url)));

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

describe('wss://', () => {
  it('serves TLS and relays a real SDK session over wss:// with the metadata fetched over https', async () => {
    const server = await serveCommand([process.execPath, ECHO_AGENT], {
      port: 0,
      tls: { key, cert },
      bearerToken: 'tls-token',
      logger: recordingLogger().logger,
    });
    cleanup.add(() => server.close());
    expect(server.url).toBe(`wss://127.0.0.1:${server.port}/acp/ws`);
    const remote = await connectAcp(server.url, { ca: cert, bearerToken: 'tls-token' });
    cleanup.add(() => remote.close());
    expect(remote.metadata?.auth_required).toBe(true);
    const connection = client({ name: 'tls-client' }).connect(remote.stream);
    const result = await connection.agent.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    expect(result.protocolVersion).toBe(PROTOCOL_VERSION);
  });

  it('refuses an untrusted certificate, and the mirror connects once the CA is given', async () => {
    const server = await serveCommand([process.execPath, ECHO_AGENT], {
      port: 0,
      tls: { key, cert },
      logger: recordingLogger().logger,
    });
    cleanup.add(() => server.close());
    const untrusted = await connectAcp(server.url).catch((error: unknown) => error);
    expect(AcpRemoteError.isInstance(untrusted) && untrusted.code).toBe(AcpRemoteErrorCode.ConnectionFailed);
    const input = new PassThrough();
    const exitCode = runMirror(server.url, {
      ca: cert,
      input,
      output: new PassThrough(),
      logger: recordingLogger().logger,
    });
    input.end();
    expect(await exitCode).toBe(0);
  });

  it('rejects a tls option without both key and cert', async () => {
    const error = await serveCommand([process.execPath, ECHO_AGENT], {
      port: 0,
      tls: { key, cert: '' },
    }).catch((caught: unknown) => caught);
    expect(AcpRemoteError.isInstance(error) && error.code).toBe(AcpRemoteErrorCode.InvalidOption);
  });
});
