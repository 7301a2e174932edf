// The web server's gate over real HTTP: the one-time token, the HttpOnly cookie, the bearer token off loopback, and
// the Host and Origin checks that keep other sites and DNS rebinding out.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  WebClientError,
  WebClientErrorCode,
  WebClientOptionError,
  type WebClientServer,
} from '../dist/index.js';
import { startScenarioWeb } from './support/browser.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One raw HTTP request (any Host, any headers), so the tests send what a browser or an attacker would. */
function send(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, path, method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** A request written by hand on a socket: Node's client will not send a header twice, an attacker's will. */
function sendRaw(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(head));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

const servers: WebClientServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: Parameters<typeof startScenarioWeb>[0] = {}) {
  const web = await startScenarioWeb(options);
  servers.push(web);
  const token = new URL(web.url).searchParams.get('token') as string;
  return { web, token, host: `127.0.0.1:${web.port}` };
}

async function signIn(port: number, token: string, host: string): Promise<string> {
  const answer = await send(port, `/?token=${token}`, { host });
  expect(answer.status).toBe(303);
  expect(answer.headers.location).toBe('/');
  const cookie = String(answer.headers['set-cookie']);
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Strict/);
  return cookie.split(';')[0] as string;
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: 1, clientCapabilities: {} },
});

describe('the web server gate', () => {
  it('answers nothing without the token: not the page, its assets, its config or the agent', async () => {
    const { web, host } = await start();
    for (const path of ['/', '/assets/app.js', '/assets/app.css', '/config.json', '/acp', '/nope']) {
      const answer = await send(web.port, path, { host });
      expect(answer.status, path).toBe(401);
      expect(answer.body).toMatch(/open the URL acpkit web printed/);
    }
    const post = await send(
      web.port,
      '/acp',
      { host, 'content-type': 'application/json' },
      'POST',
      initialize,
    );
    expect(post.status).toBe(401);
  });

  it('exchanges the one-time token for an HttpOnly cookie, then refuses the token again', async () => {
    const { web, token, host } = await start();
    expect(web.url).toBe(`http://127.0.0.1:${web.port}/?token=${token}`);
    expect(token.length).toBeGreaterThanOrEqual(40);
    const cookie = await signIn(web.port, token, host);
    const spent = await send(web.port, `/?token=${token}`, { host });
    expect(spent.status).toBe(401);
    expect(spent.body).toMatch(/spent or wrong/);
    const wrong = await send(web.port, '/?token=guess', { host });
    expect(wrong.status).toBe(401);

    const page = await send(web.port, '/', { host, cookie });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script type="module" src="/assets/app.js">');
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    const script = await send(web.port, '/assets/app.js', { host, cookie });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    // The page never learns the relay's token: only the cwd and a title reach it.
    const config = JSON.parse((await send(web.port, '/config.json', { host, cookie })).body);
    expect(Object.keys(config).sort()).toEqual(['cwd', 'title']);

    const init = await send(
      web.port,
      '/acp',
      { host, cookie, 'content-type': 'application/json' },
      'POST',
      initialize,
    );
    expect(init.status).toBe(200);
    expect(init.headers['acp-connection-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(init.body).result.agentInfo.name).toBe('web-scenario-agent');
    // Another cookie value is no session.
    const forged = await send(web.port, '/', { host, cookie: `${cookie.split('=')[0]}=forged` });
    expect(forged.status).toBe(401);
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin, even with a valid cookie', async () => {
    const { web, token, host } = await start();
    const cookie = await signIn(web.port, token, host);
    const rebound = await send(web.port, '/', { host: `attacker.example:${web.port}`, cookie });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toMatch(/not this server's/);
    const tokenViaRebound = await send(web.port, `/?token=${token}`, {
      host: `attacker.example:${web.port}`,
    });
    expect(tokenViaRebound.status).toBe(403);
    for (const origin of ['http://attacker.example', 'null', `http://localhost:${web.port + 1}`]) {
      const answer = await send(
        web.port,
        '/acp',
        { host, cookie, origin, 'content-type': 'application/json' },
        'POST',
        initialize,
      );
      expect(answer.status, origin).toBe(403);
    }
    const crossSite = await send(web.port, '/config.json', { host, cookie, 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const sameOrigin = await send(web.port, '/config.json', { host, cookie, origin: `http://${host}` });
    expect(sameOrigin.status).toBe(200);
    for (const name of ['localhost', '[::1]']) {
      const loopbackName = await send(web.port, '/config.json', { host: `${name}:${web.port}`, cookie });
      expect(loopbackName.status, name).toBe(200);
    }
    const twoHosts = await sendRaw(
      web.port,
      `GET /config.json HTTP/1.1\r\nHost: ${host}\r\nHost: attacker.example\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`,
    );
    expect(twoHosts).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('refuses an empty command and a token with spaces, naming the option and never echoing the token', async () => {
    const { serveWebClient } = await import('../dist/index.js');
    for (const [options, option] of [
      [{ command: [] }, 'command'],
      [{ command: ['node'], bearerToken: 'secret with spaces' }, 'bearerToken'],
    ] as const) {
      const refused = await serveWebClient(options).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(WebClientOptionError.isInstance(refused)).toBe(true);
      expect(WebClientError.isInstance(refused)).toBe(true);
      expect(refused).toMatchObject({ code: WebClientErrorCode.InvalidOption, option });
      expect(String((refused as Error).message)).not.toContain('secret');
    }
  });

  it('off loopback: requires a bearer token, accepts it as a header or to sign a browser in, any number of times', async () => {
    await expect(startScenarioWeb({ host: '0.0.0.0' })).rejects.toSatisfy(
      (error: unknown) =>
        WebClientError.isInstance(error) && error.code === WebClientErrorCode.UnauthenticatedPublicBind,
    );
    const bearer = 'device-token-0123456789';
    const { web } = await start({ host: '0.0.0.0', bearerToken: bearer });
    const host = `192.0.2.10:${web.port}`;
    expect((await send(web.port, '/config.json', { host })).status).toBe(401);
    expect((await send(web.port, '/config.json', { host, authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await send(web.port, '/config.json', { host, authorization: `Bearer ${bearer}` })).status).toBe(
      200,
    );
    await signIn(web.port, bearer, host);
    await signIn(web.port, bearer, host);
    const foreignOrigin = await send(web.port, '/config.json', {
      host,
      authorization: `Bearer ${bearer}`,
      origin: 'http://attacker.example',
    });
    expect(foreignOrigin.status).toBe(403);
  });
});
