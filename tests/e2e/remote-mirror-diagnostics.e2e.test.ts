// What the built mirror commands (`acpremote mirror`, `acpkit run --addr`) say when they cannot connect, asserted by
// text: a missing vs a wrong token (naming --token-env), a wrong path (the server's real endpoint, or where it
// usually is), no URL credentials in any line, and wss:// to a server whose certificate comes from a private CA
// (--ca FILE, or NODE_EXTRA_CA_CERTS).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type RemoteServer, serveCommand, silentLogger } from '@acpkit/remote';
import { afterEach, describe, expect, it } from 'vitest';
import { INITIALIZE_WITH_FORMS } from './support/json-rpc-peer.js';
import { fixturePath, repositoryRoot } from './support/paths.js';
import { reapAll, runCliToExit } from './support/processes.js';
import { type MirrorCli, mirrorArguments, spawnMirrorPeer, startExpose } from './support/remote-servers.js';

const TOKEN = 'mirror-diagnostics-token-42';
const TOKEN_VARIABLE = 'ACPKIT_E2E_MIRROR_TOKEN';
const probeAgent = fixturePath('remote-probe-agent.js');
const MIRRORS: readonly MirrorCli[] = ['acpremote mirror', 'acpkit run --addr'];

const inProcessServers: RemoteServer[] = [];

afterEach(async () => {
  await Promise.all(inProcessServers.splice(0).map((server) => server.close()));
  await reapAll();
});

async function runMirrorToExit(mirror: MirrorCli, url: string, flags: readonly string[], env = {}) {
  const cli = mirror === 'acpremote mirror' ? 'acpremote' : 'acpkit';
  return runCliToExit(cli, mirrorArguments(mirror, url, flags), { env });
}

describe.each(MIRRORS)('%s', (mirror) => {
  it('says a token is required and names --token-env when none was given', async () => {
    const server = await startExpose([process.execPath, probeAgent], ['--token-env', TOKEN_VARIABLE], {
      env: { [TOKEN_VARIABLE]: TOKEN },
    });
    const run = await runMirrorToExit(mirror, server.url, []);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `Error: the server at ${server.url} requires a bearer token (HTTP 401). Pass --token-env VAR naming the ` +
        "environment variable that holds the server's token (or --token-file FILE).\n",
    );
  });

  it('says the token from --token-env is the wrong one', async () => {
    const server = await startExpose([process.execPath, probeAgent], ['--token-env', TOKEN_VARIABLE], {
      env: { [TOKEN_VARIABLE]: TOKEN },
    });
    const run = await runMirrorToExit(mirror, server.url, ['--token-env', 'WRONG_TOKEN'], {
      WRONG_TOKEN: 'nope',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error: the server at ${server.url} refused the bearer token from --token-env WRONG_TOKEN (HTTP 401): ` +
        "WRONG_TOKEN does not hold the server's token.\n",
    );
  });

  it('after a 404 names the endpoint from the server metadata', async () => {
    const server = await startExpose([process.execPath, probeAgent], ['--mount-path', '/agents/deploy']);
    const base = `ws://127.0.0.1:${server.port}`;
    const run = await runMirrorToExit(mirror, `${base}/agents/deploy/socket`, []);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error: the server at ${base} has no ACP WebSocket endpoint at /agents/deploy/socket (HTTP 404); ` +
        `its endpoint is ${base}/agents/deploy/ws\n`,
    );
  });

  it('after a 404 it cannot explain from metadata, says the endpoint is usually /acp/ws', async () => {
    const server = await startExpose([process.execPath, probeAgent], ['--token-env', TOKEN_VARIABLE], {
      env: { [TOKEN_VARIABLE]: TOKEN },
    });
    const base = `ws://127.0.0.1:${server.port}`;
    const run = await runMirrorToExit(mirror, `${base}/`, []);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error: the server at ${base} has no ACP WebSocket endpoint at / (HTTP 404); the endpoint is usually ` +
        `/acp/ws, e.g. ${base}/acp/ws\n`,
    );
  });

  it('never writes URL credentials or query values to stderr', async () => {
    const server = await startExpose([process.execPath, probeAgent]);
    const url = server.url.replace('ws://', 'ws://editor:hunter2@').concat('?access_token=hunter3');
    const { mirror: mirrorProcess, peer } = spawnMirrorPeer(mirror, url);
    expect((await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS)).result).toBeDefined();
    mirrorProcess.child.stdin?.end();
    await mirrorProcess.closed;
    const redacted = server.url.replace('ws://', 'ws://***@').concat('?access_token=***');
    // Each CLI logs under its own name.
    const prefix = mirror === 'acpremote mirror' ? 'acpremote' : 'acpkit';
    expect(mirrorProcess.stderr()).toContain(`${prefix} info: mirror connected url="${redacted}"`);
    expect(mirrorProcess.stderr()).not.toMatch(/hunter/);
    const unreachable = await runMirrorToExit(
      mirror,
      'ws://editor:hunter2@127.0.0.1:1/acp/ws?access_token=hunter3',
      [],
    );
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toBe(
      'Error: cannot connect to ws://***@127.0.0.1:1/acp/ws?access_token=***: connect ECONNREFUSED 127.0.0.1:1\n',
    );
  });
});

/** What Node 24 adds to OpenSSL's message for an untrusted certificate (Node 20 and 22 add nothing). */
const NODE_24_SYSTEM_CA_HINT =
  '; if the root CA is installed locally, try running Node.js with --use-system-ca';

describe('wss:// with a private CA', () => {
  const certificate = join(repositoryRoot, 'packages/remote/test/fixtures/tls-cert.pem');
  const key = join(repositoryRoot, 'packages/remote/test/fixtures/tls-key.pem');

  async function tlsServer(): Promise<RemoteServer> {
    const server = await serveCommand([process.execPath, probeAgent], {
      port: 0,
      tls: { key: readFileSync(key), cert: readFileSync(certificate) },
      logger: silentLogger,
    });
    inProcessServers.push(server);
    return server;
  }

  it.each(MIRRORS)(
    '%s refuses an untrusted certificate and names --ca and NODE_EXTRA_CA_CERTS',
    async (mirror) => {
      const server = await tlsServer();
      const run = await runMirrorToExit(mirror, server.url, []);
      expect(run.code).toBe(1);
      // Node 24 ends its own message with a hint of its own ("self-signed certificate; if the root CA is installed
      // locally, try running Node.js with --use-system-ca"); ours follows it unchanged.
      const nodeHint = Number(process.versions.node.split('.')[0]) >= 24 ? NODE_24_SYSTEM_CA_HINT : '';
      expect(run.stderr).toBe(
        `Error: cannot connect to ${server.url}: self-signed certificate${nodeHint}; if the server's certificate ` +
          'comes from a private CA, pass its certificate with --ca FILE (or set NODE_EXTRA_CA_CERTS=FILE).\n',
      );
    },
  );

  it.each(MIRRORS)('%s connects with --ca FILE', async (mirror) => {
    const server = await tlsServer();
    const { peer } = spawnMirrorPeer(mirror, server.url, ['--ca', certificate]);
    expect((await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS)).result).toBeDefined();
  });

  it('connects with NODE_EXTRA_CA_CERTS instead', async () => {
    const server = await tlsServer();
    const { peer } = spawnMirrorPeer('acpremote mirror', server.url, [], {
      env: { NODE_EXTRA_CA_CERTS: certificate },
    });
    expect((await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS)).result).toBeDefined();
  });

  it('refuses a --ca file that holds no certificate (exit 2)', async () => {
    const server = await tlsServer();
    const run = await runMirrorToExit('acpremote mirror', server.url, ['--ca', probeAgent]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `Error: --ca ${probeAgent} holds no PEM certificate (a "-----BEGIN CERTIFICATE-----" block).\n`,
    );
  });
});
