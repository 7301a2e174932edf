// Routes, tokens and metadata of the two servers side by side: Python `acpremote expose` 1.10 and our
// `acpremote expose`, both started with the same bearer token and working directory. Every request of the route
// table in docs/remote-transport.md goes to both and must get the statuses the table lists; the metadata documents
// must share every Python key with the same JSON type (ours may add keys, never rename one), and differ only where
// the metadata table says.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployTarget, repositoryRoot } from '../../e2e/support/paths.js';
import { reapAll } from '../../e2e/support/processes.js';
import { type RunningServer, startExpose } from '../../e2e/support/remote-servers.js';
import { closeAllWebSockets, openWebSocket } from '../../e2e/support/websocket.js';
import { codeSpans, readMarkedTable } from '../src/compatibility-tables.js';
import { interopPaths } from '../src/paths.js';
import { getOnFreshConnection, type HttpReply, startPythonExpose } from '../src/remote-processes.js';
import { failEveryTestWithoutPythonVenv } from './support/venv.js';

const pythonReady = failEveryTestWithoutPythonVenv();

const TOKEN_VARIABLE = 'ACPKIT_INTEROP_TOKEN';
const token = randomBytes(16).toString('hex');
const bearer = { Authorization: `Bearer ${token}` };
const serverCwd = resolve(repositoryRoot);

type Implementation = 'python' | 'typescript';
const servers = {} as Record<Implementation, RunningServer>;

/** Status of a WebSocket upgrade: 101 when accepted, else the HTTP status of the refusal. */
async function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  const outcome = await openWebSocket(url, headers);
  if ('refused' in outcome) return outcome.refused.status;
  outcome.socket.close();
  return 101;
}

/** The requests of the route table, by the exact text of its first cell. */
const probes: Record<string, (server: RunningServer) => Promise<number>> = {
  '`GET /healthz`': async (server) => (await getOnFreshConnection(`${server.origin}/healthz`)).status,
  '`GET /acp` without a token': async (server) => (await getOnFreshConnection(`${server.origin}/acp`)).status,
  '`GET /acp` with the token': async (server) =>
    (await getOnFreshConnection(`${server.origin}/acp`, bearer)).status,
  '`GET /acp/nope`': async (server) =>
    (await getOnFreshConnection(`${server.origin}/acp/nope`, bearer)).status,
  '`GET /acp/ws` without an upgrade': async (server) =>
    (await getOnFreshConnection(`${server.origin}/acp/ws`, bearer)).status,
  'WebSocket `/acp/ws` without a token': (server) => upgradeStatus(server.url, {}),
  'WebSocket `/acp/ws` with a wrong token': (server) =>
    upgradeStatus(server.url, { Authorization: `Bearer ${token}x` }),
  'WebSocket `/acp/ws` with the token': (server) => upgradeStatus(server.url, bearer),
  'WebSocket `/acp/ws` with `bearer <token>` (lower-case scheme)': (server) =>
    upgradeStatus(server.url, { Authorization: `bearer ${token}` }),
  'WebSocket `/acp/ws` with `Bearer  <token>` (two spaces)': (server) =>
    upgradeStatus(server.url, { Authorization: `Bearer  ${token}` }),
  'WebSocket `/acp` with the token': (server) => upgradeStatus(server.url.replace(/\/ws$/, ''), bearer),
  'WebSocket `/acp/ws` with the token and `Origin: https://evil.example`': (server) =>
    upgradeStatus(server.url, { ...bearer, Origin: 'https://evil.example' }),
  'WebSocket `/acp/ws` with the token and `Host: evil.example`': (server) =>
    upgradeStatus(server.url, { ...bearer, Host: 'evil.example' }),
};

function tableStatus(cell: string): number {
  const [status] = codeSpans(cell);
  return Number(status);
}

beforeAll(async () => {
  if (!pythonReady) return;
  const environment = { [TOKEN_VARIABLE]: token };
  [servers.python, servers.typescript] = await Promise.all([
    startPythonExpose(['--token-env', TOKEN_VARIABLE, '--cwd', serverCwd], environment),
    startExpose(
      [process.execPath, deployTarget.directory],
      ['--token-env', TOKEN_VARIABLE, '--cwd', serverCwd],
      { env: environment },
    ),
  ]);
});

afterAll(async () => {
  closeAllWebSockets();
  await reapAll();
});

describe('routes and tokens', () => {
  const rows = readMarkedTable(interopPaths.remoteTransportDocs, 'remote-routes');

  it('the route table lists exactly the requests this test sends', () => {
    expect(rows.map(([request]) => request).sort()).toEqual(Object.keys(probes).sort());
  });

  it.each(rows.map((row) => [row[0] as string, row] as const))('%s', async (request, row) => {
    const probe = probes[request];
    if (probe === undefined) throw new Error(`no probe for the table row ${request}`);
    const [python, typescript] = [await probe(servers.python), await probe(servers.typescript)];
    expect({ python, typescript }).toEqual({
      python: tableStatus(row[1] as string),
      typescript: tableStatus(row[2] as string),
    });
  });

  it('refuses a missing or wrong token on the WebSocket with the same 401 body and challenge', async () => {
    const refusals: HttpReply[] = [];
    for (const server of [servers.python, servers.typescript]) {
      for (const headers of [{}, { Authorization: `Bearer ${token}x` }] as Record<string, string>[]) {
        const outcome = await openWebSocket(server.url, headers);
        if (!('refused' in outcome)) throw new Error(`${server.url} accepted a bad token`);
        refusals.push(outcome.refused);
      }
    }
    for (const refusal of refusals) {
      expect(refusal.status).toBe(401);
      expect(refusal.body).toBe('missing or invalid bearer token\n');
      expect(refusal.headers['www-authenticate']).toBe('Bearer realm="acpremote"');
    }
  });
});

describe('metadata', () => {
  interface DocumentedValue {
    readonly python: string;
    readonly typescript: string;
  }
  let theirs: Record<string, unknown>;
  let ours: Record<string, unknown>;
  const documented = new Map<string, DocumentedValue>();

  beforeAll(async () => {
    if (!pythonReady) return;
    const fetchMetadata = async (server: RunningServer) =>
      JSON.parse((await getOnFreshConnection(`${server.origin}/acp`, bearer)).body) as Record<
        string,
        unknown
      >;
    [theirs, ours] = [await fetchMetadata(servers.python), await fetchMetadata(servers.typescript)];
    for (const [keyCell = '', python = '', typescript = ''] of readMarkedTable(
      interopPaths.remoteTransportDocs,
      'remote-metadata',
    )) {
      documented.set(codeSpans(keyCell)[0] ?? keyCell, { python, typescript });
    }
  });

  /** The JSON type of a value: `null`, `array`, or its `typeof`. */
  const jsonType = (value: unknown) =>
    value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  /** A cell that is exactly one code span holding JSON, parsed; otherwise undefined (prose). */
  const cellValue = (cell: string): unknown => {
    const [span] = codeSpans(cell);
    return span !== undefined && cell === `\`${span}\`` ? JSON.parse(span) : undefined;
  };

  it("Python's document has the 13 keys of acpremote 1.10, and ours has every one with the same JSON type", () => {
    expect(Object.keys(theirs)).toHaveLength(13);
    for (const key of Object.keys(theirs)) {
      expect(ours, `our metadata lacks Python's key ${key}`).toHaveProperty(key);
      expect(jsonType(ours[key]), key).toBe(jsonType(theirs[key]));
    }
    expect(theirs).toMatchObject({
      auth_required: true,
      supported_auth_modes: ['bearer'],
      remote_cwd: serverCwd,
    });
  });

  it('differs only where the metadata table says', () => {
    const differing = new Set<string>();
    for (const key of new Set([...Object.keys(theirs), ...Object.keys(ours)])) {
      if (isDeepStrictEqual(theirs[key], ours[key])) continue;
      differing.add(key);
      const row = documented.get(key);
      expect(
        row,
        `undocumented metadata difference: ${key}: ${JSON.stringify(theirs[key])} vs ${JSON.stringify(ours[key])}`,
      ).toBeDefined();
      if (row === undefined) continue;
      if (key in theirs) expect(cellValue(row.python)).toEqual(theirs[key]);
      else expect(row.python).toBe('absent');
      const oursDocumented = cellValue(row.typescript);
      if (oursDocumented !== undefined) expect(ours[key]).toEqual(oursDocumented);
    }
    expect([...documented.keys()].sort()).toEqual([...differing].sort());
  });
});
