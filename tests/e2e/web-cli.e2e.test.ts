// `acpkit web` as a person runs it: the built CLI in a real process, its printed URL, the one-time token, the agent
// (a stdio command, or a remote `acpremote expose` through --addr with its token kept server side) over real HTTP.
import { afterEach, describe, expect, it } from 'vitest';
import { deployTarget } from './support/paths.js';
import { reapAll, runCliToExit, type SpawnedProcess, spawnCli } from './support/processes.js';
import { startExpose } from './support/remote-servers.js';

const URL_LINE = / {2}(http:\/\/127\.0\.0\.1:(\d+))\/\?token=(\S+)\n/;

afterEach(async () => {
  await reapAll();
});

async function signedIn(web: SpawnedProcess): Promise<{ origin: string; cookie: string; token: string }> {
  const match = await web.waitForStderr(URL_LINE);
  const origin = match[1] as string;
  const token = match[3] as string;
  expect((await fetch(`${origin}/`)).status).toBe(401);
  const exchange = await fetch(`${origin}/?token=${token}`, { redirect: 'manual' });
  expect(exchange.status).toBe(303);
  const cookie = (exchange.headers.get('set-cookie') ?? '').split(';')[0] as string;
  expect((await fetch(`${origin}/?token=${token}`, { redirect: 'manual' })).status).toBe(401);
  return { origin, cookie, token };
}

async function initializeThrough(origin: string, cookie: string): Promise<Record<string, unknown>> {
  const answer = await fetch(`${origin}/acp`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: 1, clientCapabilities: { elicitation: { form: {} } } },
    }),
  });
  expect(answer.status).toBe(200);
  return (await answer.json()) as Record<string, unknown>;
}

describe('acpkit web', () => {
  it('serves a stdio agent behind a one-time token and stops it on SIGINT', async () => {
    const web = spawnCli('acpkit', ['web', '--', process.execPath, deployTarget.stdioAgent]);
    const { origin, cookie } = await signedIn(web);
    expect(web.stderr()).toMatch(/nothing is opened for you/);
    const page = await fetch(`${origin}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/assets/app.js');
    const answer = await initializeThrough(origin, cookie);
    expect(JSON.stringify(answer)).toContain('"protocolVersion":1');
    const refused = await fetch(`${origin}/config.json`, {
      headers: { cookie, origin: 'http://attacker.example' },
    });
    expect(refused.status).toBe(403);
    web.child.kill('SIGINT');
    const exit = await web.exited;
    expect(exit.code).toBe(130);
    expect(await reapAll()).toEqual([]);
  });

  it('with --addr, reaches a remote agent through our mirror; the remote token never reaches the page', async () => {
    const remoteToken = 'remote-secret-token-0123456789';
    const remote = await startExpose(
      [process.execPath, deployTarget.stdioAgent],
      ['--token-env', 'REMOTE_TOKEN'],
      {
        env: { REMOTE_TOKEN: remoteToken },
      },
    );
    const web = spawnCli('acpkit', ['web', '--addr', remote.url, '--addr-token-env', 'REMOTE_TOKEN'], {
      env: { REMOTE_TOKEN: remoteToken },
    });
    const { origin, cookie } = await signedIn(web);
    const answer = await initializeThrough(origin, cookie);
    expect(JSON.stringify(answer)).toContain('"protocolVersion":1');
    for (const path of ['/', '/config.json', '/assets/app.js']) {
      const body = await (await fetch(`${origin}${path}`, { headers: { cookie } })).text();
      expect(body, path).not.toContain(remoteToken);
    }
    expect(web.stderr()).not.toContain(remoteToken);
    web.child.kill('SIGTERM');
    expect((await web.exited).code).toBe(143);
  });

  it('refuses a command line without an agent, and another device without a token', async () => {
    const none = await runCliToExit('acpkit', ['web']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Give exactly one of -- COMMAND\.\.\. or --addr URL/);
    const open = await runCliToExit('acpkit', ['web', '--host', '0.0.0.0', '--', process.execPath, '-e', '']);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/give a bearer token \(--token-env VAR or --token-file FILE\)/);
  });
});
