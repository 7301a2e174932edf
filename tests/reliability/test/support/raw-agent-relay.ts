// The setups the relay hardening tests share: the built `acpremote mirror` in front of `acpremote expose` running the
// raw-agent fixture, and `serveCommand` through the library with a chosen ping interval.
import { spawn } from 'node:child_process';
import {
  ACPREMOTE_CLI,
  fixturePath,
  type RunningServer,
  spawnStdioPeer,
  startAcpremote,
  track,
  waitFor,
} from './processes.js';

/**
 * `acpremote expose -- node raw-agent.mjs` with `acpremote mirror [flags] URL` in front, the test being the editor.
 * `answer(idToken)` waits for the line answering that id (as written, e.g. `"i1"` or `12345678901234567890`).
 *
 * @example
 * ```ts
 * const { editor, send, answer } = await startRawAgentMirror(['--latency-meta'], servers);
 * send('{"jsonrpc":"2.0","id":"i1","method":"initialize","params":{}}');
 * await answer('"i1"');
 * ```
 */
export async function startRawAgentMirror(mirrorFlags: readonly string[], servers: RunningServer[]) {
  const server = await startAcpremote(['expose', '--', process.execPath, fixturePath('raw-agent.mjs')]);
  servers.push(server);
  const editor = spawnStdioPeer(process.execPath, [ACPREMOTE_CLI, 'mirror', ...mirrorFlags, server.url]);
  const answer = async (idToken: string) => {
    const prefix = `{"jsonrpc":"2.0","id":${idToken},`;
    await waitFor(
      () => editor.lines.some((line) => line.startsWith(prefix)),
      10_000,
      () => `no answer with id ${idToken}: ${editor.lines.join('\n').slice(-2_000)} ${editor.stderr()}`,
    );
    return editor.lines.find((line) => line.startsWith(prefix))!;
  };
  return { server, editor, send: (line: string) => editor.child.stdin.write(`${line}\n`), answer };
}

/**
 * `serveCommand` (the library, in its own process) with a ping interval the CLI has no flag for; `env` may set
 * `ACPKIT_TEST_STALL_TIMEOUT_MS`. Resolves once it listens.
 *
 * @example
 * ```ts
 * const { url, stderr } = await startServeCommandHost(200, [process.execPath, fixturePath('raw-agent.mjs')]);
 * ```
 */
export async function startServeCommandHost(
  pingIntervalMs: number,
  command: readonly string[],
  env: Record<string, string> = {},
) {
  const host = track(
    spawn(
      process.execPath,
      [fixturePath('serve-command-host.mjs'), String(pingIntervalMs), '--', ...command],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, ...env },
      },
    ),
  );
  let stderr = '';
  host.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  await waitFor(
    () => /listening (\S+)/.test(stderr),
    10_000,
    () => stderr,
  );
  return { host, url: /listening (\S+)/.exec(stderr)![1]!, stderr: () => stderr };
}
