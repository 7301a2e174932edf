import { type JsonRpcPeer, ndjsonPeer } from './json-rpc-peer.js';
import type { cliPaths } from './paths.js';
import { type SpawnedProcess, type SpawnProcessOptions, spawnCli, waitForBanner } from './processes.js';

/** A started `serve`/`expose` process and its real address. */
export interface RunningServer {
  readonly process: SpawnedProcess;
  /** `ws://127.0.0.1:PORT/acp/ws` with the real port. */
  readonly url: string;
  readonly port: number;
  /** `http://127.0.0.1:PORT` for the plain HTTP routes. */
  readonly origin: string;
}

/**
 * Starts `acpremote expose [flags] -- COMMAND...` on port 0 and waits for the banner. The flags come before `--`.
 */
export async function startExpose(
  command: readonly string[],
  flags: readonly string[] = [],
  options: SpawnProcessOptions = {},
): Promise<RunningServer> {
  const server = spawnCli('acpremote', ['expose', '--port', '0', ...flags, '--', ...command], options);
  return { process: server, ...(await waitForBanner(server)) };
}

/** Starts `<cli> serve TARGET [flags]` on port 0 and waits for the banner. */
export async function startServe(
  target: string,
  flags: readonly string[] = [],
  options: SpawnProcessOptions & { readonly cli?: keyof typeof cliPaths } = {},
): Promise<RunningServer> {
  const server = spawnCli(options.cli ?? 'acpremote', ['serve', target, '--port', '0', ...flags], options);
  return { process: server, ...(await waitForBanner(server)) };
}

/** The mirror commands under test: `acpremote mirror URL …` and `acpkit run --addr URL …`. */
export type MirrorCli = 'acpremote mirror' | 'acpkit run --addr';

/** The argv of a mirror command for `url` plus extra flags. */
export function mirrorArguments(mirror: MirrorCli, url: string, flags: readonly string[] = []): string[] {
  return mirror === 'acpremote mirror' ? ['mirror', url, ...flags] : ['run', '--addr', url, ...flags];
}

/** Spawns a mirror with its stdout left for a JSON-RPC client (not collected as text). */
export function spawnMirror(
  mirror: MirrorCli,
  url: string,
  flags: readonly string[] = [],
  options: SpawnProcessOptions = {},
): SpawnedProcess {
  const cli = mirror === 'acpremote mirror' ? 'acpremote' : 'acpkit';
  return spawnCli(cli, mirrorArguments(mirror, url, flags), { ...options, collectStdout: false });
}

/** Spawns a mirror and wraps its stdio in a raw JSON-RPC peer. */
export function spawnMirrorPeer(
  mirror: MirrorCli,
  url: string,
  flags: readonly string[] = [],
  options: SpawnProcessOptions = {},
): { mirror: SpawnedProcess; peer: JsonRpcPeer } {
  const mirrorProcess = spawnMirror(mirror, url, flags, options);
  const { stdin, stdout } = mirrorProcess.child;
  if (!stdin || !stdout) throw new Error('mirror has no stdio pipes');
  return { mirror: mirrorProcess, peer: ndjsonPeer(stdin, stdout) };
}
