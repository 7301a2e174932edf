#!/usr/bin/env node
// `pnpm demo`: the whole product in one command. It exposes the deploy-target example agent over WebSocket with
// `acpremote expose` (127.0.0.1, an OS-chosen port, a random bearer token passed by environment variable), then
// runs `acpkit client` driving `acpkit run --addr ... --unstable-protocol`, sends one prompt, and lets the person
// answer the agent's "Choose a deployment target" form. Without a TTY it answers with the default (`--yes`) and
// exits 0 once "Selected: production" came back. Every process it starts is reaped on every exit path.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const acpremoteCli = `${root}apps/acpremote/dist/cli.js`;
const acpkitCli = `${root}apps/acpkit/dist/cli.js`;
const exampleAgent = `${root}examples/deploy-target/dist/agent.js`;
const tokenVariable = 'ACPKIT_DEMO_TOKEN';
const prompt = 'Deploy the app';
const bannerTimeoutMs = 30_000;
const stopGraceMs = 5_000;

/** Every process started, stopped on every exit path (and SIGKILLed by the teardown's own exit hook as a last resort). */
const started = [];
/** Set once known: whether the person answers (TTY), and the client process. */
let interactive = false;
let client;

function log(message) {
  process.stderr.write(`[demo] ${message}\n`);
}

/** Starts argv with @acpkit/remote's process-group teardown: stop() is stdin EOF / SIGTERM, then SIGKILL. */
async function start(argv, options) {
  const { spawnProcessGroup } = await import('./built-process-group.mjs');
  const child = spawnProcessGroup(argv, { ...options, terminateTimeoutMs: stopGraceMs });
  started.push(child);
  return child;
}

function stopAll() {
  return Promise.all(started.map((child) => child.terminate()));
}

/** Reads `acpremote expose` stderr until its banner names the real URL; other lines pass through. */
function waitForServerUrl(server) {
  return new Promise((resolve, reject) => {
    let found = false;
    const lines = createInterface({ input: server.process.stderr });
    const timer = setTimeout(
      () => reject(new Error(`acpremote expose printed no URL within ${bannerTimeoutMs / 1000} s`)),
      bannerTimeoutMs,
    );
    lines.on('line', (line) => {
      process.stderr.write(`[acpremote] ${line}\n`);
      const match = /Serving ACP WebSocket at (ws:\/\/\S+)/.exec(line);
      if (match && !found) {
        found = true;
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    server.exited.then(({ code, signal: exitSignal, error }) => {
      clearTimeout(timer);
      if (!found) {
        reject(
          new Error(
            `acpremote expose stopped before serving (${error?.message ?? exitSignal ?? `exit ${code}`})`,
          ),
        );
      }
    });
  });
}

async function main() {
  for (const [path, what] of [
    [acpremoteCli, 'apps/acpremote'],
    [acpkitCli, 'apps/acpkit'],
    [exampleAgent, 'examples/deploy-target'],
  ]) {
    if (!existsSync(path))
      throw new Error(`${what} is not built (missing ${path}); run \`pnpm build\` first`);
  }
  interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const environment = { ...process.env, [tokenVariable]: randomBytes(24).toString('base64url') };

  // Its own process group: the terminal's Ctrl+C belongs to the client, which turns it into session/cancel.
  const server = await start(
    [
      process.execPath,
      acpremoteCli,
      'expose',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--token-env',
      tokenVariable,
      '--',
      process.execPath,
      exampleAgent,
    ],
    { cwd: root, env: environment, stdio: ['ignore', 'inherit', 'pipe'] },
  );
  const url = await waitForServerUrl(server);

  const clientArguments = [
    process.execPath,
    acpkitCli,
    'client',
    ...(interactive ? [] : ['--yes']),
    '--prompt',
    prompt,
    '--',
    process.execPath,
    acpkitCli,
    'run',
    '--addr',
    url,
    '--token-env',
    tokenVariable,
    '--unstable-protocol',
  ];
  log(
    interactive
      ? 'Answer the agent in the form below (arrows to move, Enter to confirm, Esc to cancel).'
      : 'No terminal: answering the form with its default (--yes).',
  );
  // In this process group, so a terminal's Ctrl+C reaches the client, which owns it.
  client = await start(clientArguments, {
    cwd: root,
    env: environment,
    stdio: ['inherit', 'inherit', 'inherit'],
    newProcessGroup: false,
  });
  const [clientExit] = await Promise.race([
    Promise.all([client.exited]),
    server.exited.then(() => {
      throw new Error('acpremote expose stopped while the client was running');
    }),
  ]);
  await server.terminate();
  if (clientExit.error) throw clientExit.error;
  return clientExit.code ?? (clientExit.signal === 'SIGINT' ? 130 : 1);
}

async function shutdown(code) {
  await stopAll();
  process.exit(code);
}

// While the client runs it owns Ctrl+C (first: cancel the turn, second: quit), and the demo cleans up after it. A
// terminal delivers Ctrl+C to the client itself; a SIGINT sent to the demo alone (no terminal) is passed on. Before
// the client starts, or on a second SIGINT, the demo stops everything.
let interrupts = 0;
process.on('SIGINT', () => {
  interrupts += 1;
  if (client === undefined || interrupts > 1) {
    void shutdown(130);
    return;
  }
  if (!interactive) client.signal('SIGINT');
});
for (const name of ['SIGTERM', 'SIGHUP']) {
  process.on(name, () => void shutdown(name === 'SIGTERM' ? 143 : 129));
}

try {
  process.exitCode = await main();
} catch (error) {
  log(`Error: ${error.message}`);
  await stopAll();
  process.exitCode = 1;
}
