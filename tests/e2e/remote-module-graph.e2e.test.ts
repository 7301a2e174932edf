// The relay processes never evaluate @agentclientprotocol/sdk: its entry loads the SDK's zod schemas (~8 MB of heap
// per entrypoint), and with that old generation V8 marks incrementally all the time once large messages have grown
// the young generation, 2–4× the CPU per relayed message (bench/README.md, "Analysis"). `acpremote expose` and
// a mirror (`acpremote mirror`, `acpkit run --addr`) run here with a module hook that records every ES module they load, relay requests (an
// answered one, a refused one, an unstable one) and exit; then no module they loaded may hold code of the SDK.
// The CLIs are bundled (config/tsup-preset.ts): the SDK is in a chunk of their dist/ that only the commands that need
// it import, and esbuild starts each bundled module with a comment naming its source file, which is how a chunk
// shows the SDK's code.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { INITIALIZE_WITH_FORMS, ndjsonPeer } from './support/json-rpc-peer.js';
import { cliPaths, fixturePath } from './support/paths.js';
import { reapAll, spawnProcess, waitForBanner } from './support/processes.js';

const recorder = fixturePath('module-load-recorder.mjs');

/**
 * A module holds code of `packageDirectory` (e.g. `@agentclientprotocol/sdk/`): it is one of its files, or a bundled
 * chunk with one of esbuild's `// <source path>` lines naming one of them.
 */
function holdsCodeOf(moduleUrl: string, packageDirectory: string): boolean {
  if (moduleUrl.includes(`/${packageDirectory}`)) return true;
  if (!moduleUrl.startsWith('file:')) return false;
  return readFileSync(fileURLToPath(moduleUrl), 'utf8')
    .split('\n')
    .some((line) => /^\/\/ \S+\.[cm]?js$/.test(line) && line.includes(packageDirectory));
}

const SDK = '@agentclientprotocol/sdk/';
const REMOTE = 'packages/remote/dist/';

it.each([cliPaths.acpremote, cliPaths.acpkit])(
  'the bundled %s holds the SDK in a chunk of its own',
  (cli) => {
    const dist = dirname(cli);
    const withSdk = readdirSync(dist)
      .filter((file) => file.endsWith('.js'))
      .filter((file) => holdsCodeOf(pathToFileURL(join(dist, file)).href, SDK));
    // So the check below can see the SDK: it is bundled in, just never imported by a relay.
    expect(withSdk.length).toBeGreaterThan(0);
    expect(withSdk).not.toContain('cli.js');
  },
);
const probeAgent = [process.execPath, fixturePath('remote-probe-agent.js')];
let logDirectory: string | undefined;

afterEach(async () => {
  await reapAll();
  if (logDirectory) rmSync(logDirectory, { recursive: true, force: true });
});

const MIRRORS = [
  ['acpremote mirror', (url: string) => [cliPaths.acpremote, 'mirror', url]],
  ['acpkit run --addr', (url: string) => [cliPaths.acpkit, 'run', '--addr', url]],
] as const;

it.each(MIRRORS)(
  'acpremote expose and %s relay requests without loading any module of the ACP SDK',
  async (_name, mirrorArgs) => {
    logDirectory = mkdtempSync(join(tmpdir(), 'acpkit-module-log-'));
    const options = { env: { ACPKIT_MODULE_LOG_DIR: logDirectory } };
    const expose = spawnProcess(
      process.execPath,
      ['--import', recorder, cliPaths.acpremote, 'expose', '--port', '0', '--', ...probeAgent],
      options,
    );
    const { url } = await waitForBanner(expose);
    const mirror = spawnProcess(process.execPath, ['--import', recorder, ...mirrorArgs(url)], {
      ...options,
      collectStdout: false,
    });
    const { stdin, stdout } = mirror.child;
    if (!stdin || !stdout) throw new Error('mirror has no stdio pipes');
    const peer = ndjsonPeer(stdin, stdout);

    const initialized = await peer.request(0, 'initialize', INITIALIZE_WITH_FORMS);
    expect(initialized).toMatchObject({ id: 0, result: { protocolVersion: 1 } });
    // The answers the relays write themselves, texts of the SDK's RequestError.
    const unstable = await peer.request(1, 'session/fork', { sessionId: 's' });
    expect(unstable.error).toEqual({
      code: -32601,
      message: '"Method not found": session/fork',
      data: { method: 'session/fork' },
    });
    stdin.write('not json\n');
    const garbage = await peer.next((message) => message.id === null);
    expect(garbage.error).toEqual({ code: -32700, message: 'Parse error' });

    stdin.end();
    expect(await mirror.exited).toEqual({ code: 0, signal: null });
    expose.child.kill('SIGTERM');
    await expose.exited;

    for (const relay of [expose, mirror]) {
      const loaded = readFileSync(join(logDirectory, `${relay.pid}.log`), 'utf8')
        .split('\n')
        .filter(Boolean);
      // The hook saw the process's modules, the built @acpkit/remote's relay code among them …
      expect(loaded.some((moduleUrl) => holdsCodeOf(moduleUrl, REMOTE))).toBe(true);
      // … and nothing of the SDK.
      expect(loaded.filter((moduleUrl) => holdsCodeOf(moduleUrl, SDK))).toEqual([]);
    }
  },
);
