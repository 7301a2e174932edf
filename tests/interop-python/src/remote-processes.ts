// Starting the remote-transport CLIs of both implementations for the interop tests: Python's `acpremote` /
// `acpkit` from the venv, ours from apps/*/dist (through the e2e helpers).
import { request } from 'node:http';
import { type JsonRpcPeer, ndjsonPeer } from '../../e2e/support/json-rpc-peer.js';
import { type SpawnedProcess, spawnProcess, waitForBanner } from '../../e2e/support/processes.js';
import type { RunningServer } from '../../e2e/support/remote-servers.js';
import { interopPaths, python } from './paths.js';

/**
 * Starts Python `acpremote expose --port 0 [flags] -- <venv python> python/choice_agent.py` and waits for its banner
 * (Python's acpremote binds port 0 and prints the real port in the same banner format as ours).
 */
export async function startPythonExpose(
  flags: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<RunningServer> {
  const server = spawnProcess(
    python.acpremote,
    ['expose', '--port', '0', ...flags, '--', python.interpreter, interopPaths.pythonChoiceAgent],
    { env },
  );
  return { process: server, ...(await waitForBanner(server)) };
}

/** The Python SDK's ASGI app (Streamable HTTP + WebSocket on one endpoint) under uvicorn, and its endpoint. */
export interface RunningPythonAsgiApp {
  readonly process: SpawnedProcess;
  /** `http://127.0.0.1:PORT/acp` with the real port. */
  readonly endpoint: string;
}

/**
 * Starts `python/asgi_agent_server.py` (the Python SDK's `create_asgi_app` under uvicorn, on a port the OS chooses,
 * serving an agent that asks one single choice per prompt) and waits for the line naming its endpoint.
 */
export async function startPythonAsgiApp(): Promise<RunningPythonAsgiApp> {
  const server = spawnProcess(python.interpreter, [interopPaths.pythonAsgiServer]);
  const match = await server.waitForStderr(/Python ASGI app at (http:\/\/\S+)\n/);
  return { process: server, endpoint: match[1] as string };
}

/** What `python/rfd_client.py` printed: the turn, or why it failed. */
export interface PythonRfdTurn {
  readonly forms?: Array<{ message: string; requestedSchema: Record<string, unknown> }>;
  readonly text?: string;
  readonly stopReason?: string;
  readonly error?: string;
}

/**
 * Runs one prompt turn per target with the Python SDK's own RFD client transports (`python/rfd_client.py`, one
 * process for all of them, concurrently): connects over each transport to its URL, answers every elicitation by
 * accepting the option titled `title`, and returns the turns in the order of `targets`.
 */
export async function runPythonRfdTurns(
  targets: ReadonlyArray<{ readonly transport: 'http' | 'ws'; readonly url: string }>,
  prompt: string,
  title: string,
): Promise<PythonRfdTurn[]> {
  const client = spawnProcess(python.interpreter, [
    interopPaths.pythonRfdClient,
    prompt,
    title,
    ...targets.flatMap(({ transport, url }) => [transport, url]),
  ]);
  client.child.stdin?.end();
  const { code } = await client.closed;
  const output = client.stdout().trim();
  try {
    return JSON.parse(output) as PythonRfdTurn[];
  } catch {
    const error = `rfd_client.py exited ${code} without its JSON line; stdout: ${output}; stderr: ${client.stderr()}`;
    return targets.map(() => ({ error }));
  }
}

/** The Python mirror commands: `acpremote mirror URL …` and `acpkit run --addr URL …`. */
export type PythonMirror = 'python acpremote mirror' | 'python acpkit run --addr';

/** Spawns a Python mirror with its stdio wrapped in a raw JSON-RPC peer. */
export function spawnPythonMirror(
  mirror: PythonMirror,
  url: string,
  flags: readonly string[],
  env: Record<string, string> = {},
): { mirror: SpawnedProcess; peer: JsonRpcPeer } {
  const [command, args] =
    mirror === 'python acpremote mirror'
      ? [python.acpremote, ['mirror', url, ...flags]]
      : [python.acpkit, ['run', '--addr', url, ...flags]];
  const mirrorProcess = spawnProcess(command, args, { env, collectStdout: false });
  const { stdin, stdout } = mirrorProcess.child;
  if (!stdin || !stdout) throw new Error('mirror has no stdio pipes');
  return { mirror: mirrorProcess, peer: ndjsonPeer(stdin, stdout) };
}

/** Status, headers and body of a plain HTTP GET. */
export interface HttpReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/**
 * A GET on a fresh connection. Python's server (websockets) closes the connection after answering a plain HTTP
 * request without saying so, so a keep-alive agent reusing that socket would fail with ECONNRESET.
 */
export function getOnFreshConnection(url: string, headers: Record<string, string> = {}): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { agent: false, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}
