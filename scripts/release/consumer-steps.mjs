// The release check's second half, in the project where the tarballs were installed: the API surface, askChoice
// through `import` and `require()`, a consumer type-check against the packed .d.ts, and the installed binaries
// (--version, --help, serve/expose + mirror round trips driven by an SDK client over stdio).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { wireFormatProblems } from './package-rules.mjs';
import { installedStep as installed } from './package-steps.mjs';
import { root, run, start, within } from './processes.mjs';
import { assert, assertEqual, describe, step } from './steps.mjs';

const question = 'Choose a deployment target';
const expectedAnswer = 'Selected: production (source: client)';

function assertAnswered(outcome, how) {
  assertEqual(outcome.text, expectedAnswer, `agent reply ${how}`);
  assertEqual(outcome.stopReason, 'end_turn', `stopReason ${how}`);
  assertEqual(outcome.elicitationRequests.length, 1, `elicitation requests ${how}`);
  const problems = wireFormatProblems(outcome.elicitationRequests[0], question);
  if (problems.length > 0) throw new Error(`wire format ${how}:\n${problems.join('\n')}`);
}

/**
 * Runs the consumer steps; each needs the install step to have passed. With `runtime`, the steps that run the
 * installed packages (import, require(), the binaries) run on that Node binary instead of this one, named with its
 * version; the API-surface snapshot and the consumer type-check do not depend on the runtime and run only without it.
 * @param {{ packages: import('./package-steps.mjs').PublicPackage[]; consumer: string; environment: NodeJS.ProcessEnv; runtime?: { node: string; version: string } }} context
 */
export async function consumerSteps({ packages, consumer, environment: baseEnvironment, runtime }) {
  const names = packages.map((publicPackage) => publicPackage.name);
  const node = runtime?.node ?? process.execPath;
  const suffix = runtime ? ` on Node ${runtime.version}` : '';
  // `node` on PATH is the runtime too: the installed binaries' `#!/usr/bin/env node` and what they start.
  const environment = runtime
    ? { ...baseEnvironment, PATH: `${dirname(runtime.node)}${delimiter}${baseEnvironment.PATH}` }
    : baseEnvironment;
  if (!runtime) await runtimeIndependentSteps({ names, consumer, environment });
  if (runtime) {
    await step(`\`node\` on PATH is Node ${runtime.version}`, async () => {
      const { stdout } = await run('node', ['--version'], { cwd: consumer, env: environment });
      assertEqual(stdout.trim(), `v${runtime.version}`, 'node --version');
    });
  }

  let importedExports = [];
  await step(
    `import @acpkit/elicitation and askChoice against an SDK client${suffix}`,
    async () => {
      const { stdout } = await run(node, ['ask-choice-import.mjs'], {
        cwd: consumer,
        env: environment,
      });
      const outcome = JSON.parse(stdout.trim().split('\n').at(-1));
      assertAnswered(outcome, 'through import');
      assertEqual(outcome.node, `v${runtime?.version ?? process.versions.node}`, 'Node version');
      importedExports = outcome.exports;
      return outcome.text;
    },
    { requires: [installed] },
  );

  await step(
    `require() @acpkit/elicitation and askChoice against an SDK client${suffix}`,
    async () => {
      const { stdout } = await run(node, ['ask-choice-require.cjs'], {
        cwd: consumer,
        env: environment,
      });
      const outcome = JSON.parse(stdout.trim().split('\n').at(-1));
      assertAnswered(outcome, 'through require()');
      assertEqual(outcome.node, `v${runtime?.version ?? process.versions.node}`, 'Node version');
      if (importedExports.length > 0)
        assertEqual(outcome.exports, importedExports, 'require() and import exports');
      return outcome.text;
    },
    { requires: [installed] },
  );

  await step(
    `@acpkit/ai-sdk: an AI SDK agent streams, asks permission and runs the tool, with one copy of ai${suffix}`,
    async () => {
      const { stdout } = await run(node, ['ai-sdk-agent.mjs'], {
        cwd: consumer,
        env: environment,
      });
      const outcome = JSON.parse(stdout.trim().split('\n').at(-1));
      assertEqual(outcome.stopReason, 'end_turn', 'stopReason');
      assertEqual(outcome.text, 'Deploying. Deployed.', 'streamed text');
      assertEqual(outcome.permissions, ['call-1'], 'permission requests');
      assertEqual(outcome.statuses, ['pending', 'in_progress', 'completed'], 'tool call statuses');
      return `${outcome.text} (${outcome.statuses.join(' → ')})`;
    },
    { requires: [installed] },
  );

  await step(
    `require() every public package${suffix}`,
    async () => {
      const script = `for (const name of ${JSON.stringify(names)}) { const loaded = require(name); if (typeof loaded !== 'object') throw new Error(name); }`;
      await run(node, ['--input-type=commonjs', '--eval', script], {
        cwd: consumer,
        env: environment,
      });
      return `${names.length} packages`;
    },
    { requires: [installed] },
  );

  const cliCommands = {
    '@acpkit/acpremote': { binary: 'acpremote', commands: ['serve', 'expose', 'mirror'] },
    '@acpkit/cli': { binary: 'acpkit', commands: ['run', 'serve', 'client', 'web'] },
  };
  for (const [packageName, { binary, commands }] of Object.entries(cliCommands)) {
    await step(
      `${binary} --version and --help${suffix}`,
      async () => {
        const publicPackage = packages.find((candidate) => candidate.name === packageName);
        assert(publicPackage, `${packageName} is not a public package`);
        const path = join(consumer, 'node_modules', '.bin', binary);
        assert(existsSync(path), `npm did not link node_modules/.bin/${binary}`);
        const version = await run(path, ['--version'], { cwd: consumer, env: environment });
        assert(
          version.stdout.trim().split(/\s+/).includes(publicPackage.manifest.version),
          `--version printed ${JSON.stringify(version.stdout.trim())}, expected ${publicPackage.manifest.version}`,
        );
        const [help] = await Promise.all([
          run(path, ['--help'], { cwd: consumer, env: environment }),
          ...commands.map((command) => run(path, [command, '--help'], { cwd: consumer, env: environment })),
        ]);
        for (const command of commands) {
          assert(help.stdout.includes(command), `--help does not mention "${command}":\n${help.stdout}`);
        }
        return `${version.stdout.trim()}; --help lists ${commands.join(', ')}`;
      },
      { requires: [installed] },
    );
  }

  await step(
    `acpremote serve + acpremote mirror: one prompt round trip${suffix}`,
    () =>
      roundTrip({
        consumer,
        environment,
        server: ['acpremote', 'serve', './deploy-agent.mjs:createAgent', '--port', '0'],
        mirror: (url) => ['acpremote', 'mirror', url, '--unstable-protocol'],
      }),
    { requires: [installed] },
  );

  await step(
    `acpremote expose + acpkit run --addr: one prompt round trip${suffix}`,
    () =>
      roundTrip({
        consumer,
        environment,
        server: ['acpremote', 'expose', '--port', '0', '--', node, 'deploy-agent.mjs'],
        mirror: (url) => ['acpkit', 'run', '--addr', url, '--unstable-protocol'],
      }),
    { requires: [installed] },
  );

  await step(
    `acpremote expose + acpremote mirror http://: one prompt round trip over Streamable HTTP${suffix}`,
    () =>
      roundTrip({
        consumer,
        environment,
        server: ['acpremote', 'expose', '--port', '0', '--', node, 'deploy-agent.mjs'],
        announced: /Serving ACP Streamable HTTP at (http:\/\/\S+)/,
        mirror: (url) => ['acpremote', 'mirror', url, '--unstable-protocol'],
      }),
    { requires: [installed] },
  );
}

/** The consumer steps whose outcome does not depend on the Node version: the API surface and the type-check. */
async function runtimeIndependentSteps({ names, consumer, environment }) {
  await step(
    'API surface matches tests/release/api-surface.json',
    async () => {
      const { stdout } = await run(
        process.execPath,
        [
          join(root, 'scripts', 'release', 'api-surface.mjs'),
          '--check',
          '--project',
          consumer,
          '--packages',
          names.join(','),
        ],
        { cwd: consumer, env: environment },
      );
      return stdout.trim();
    },
    { requires: [installed] },
  );

  await step(
    'consumer tsc --noEmit against the packed .d.ts (skipLibCheck: false)',
    async () => {
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      await run(process.execPath, [tsc, '--project', 'tsconfig.json', '--pretty', 'false'], {
        cwd: consumer,
        env: environment,
      });
      return 'consumer.ts compiles';
    },
    { requires: [installed] },
  );
}

/**
 * Serves the tiny agent with an installed CLI on an OS-chosen port, mirrors it back to stdio with an installed CLI,
 * and drives the mirror with the installed SDK's client: one prompt whose answer needs an elicitation round trip.
 * `announced` picks the URL to mirror from the server's banner (by default the acpremote WebSocket's).
 */
async function roundTrip({
  consumer,
  environment,
  server,
  mirror,
  announced = /Serving ACP WebSocket at (ws:\/\/\S+)/,
}) {
  const binary = (name) => join(consumer, 'node_modules', '.bin', name);
  const serverProcess = start(binary(server[0]), server.slice(1), { cwd: consumer, env: environment });
  const [, url] = await serverProcess.waitForStderr(announced);
  const mirrorArgs = mirror(url);
  const mirrorProcess = start(binary(mirrorArgs[0]), mirrorArgs.slice(1), {
    cwd: consumer,
    env: environment,
  });

  const requireFromConsumer = createRequire(join(consumer, 'package.json'));
  const sdk = await import(pathToFileURL(requireFromConsumer.resolve('@agentclientprotocol/sdk')).href);
  const scenario = requireFromConsumer('./deploy-scenario.cjs');
  // Like an editor, keep reading the mirror's stdout until it exits: the SDK cancels its reader when the session
  // ends, so it reads from a copy and the real pipe stays open until the process is gone.
  const output = new PassThrough();
  mirrorProcess.child.stdout.pipe(output);
  const stream = sdk.ndJsonStream(Writable.toWeb(mirrorProcess.child.stdin), Readable.toWeb(output));
  let outcome;
  try {
    outcome = await within(scenario.promptOnce({ sdk }, stream, consumer), 30_000, 'the prompt round trip');
  } catch (error) {
    throw new Error(
      `${describe(error)}\n--- ${mirrorProcess.display} stderr:\n${mirrorProcess.stderr()}\n--- ${serverProcess.display} stderr:\n${serverProcess.stderr()}`,
    );
  }
  assertAnswered(outcome, `through ${mirrorArgs[0]} ${mirrorArgs[1]}`);

  // Documented exit behaviour: stdin EOF ends the mirror with 0; SIGTERM drains the server, which exits 0 once its
  // last connection has ended (the mirror's already has).
  mirrorProcess.child.stdin.end();
  const mirrorExit = await mirrorProcess.waitForExit();
  assertEqual(
    mirrorExit.code,
    0,
    `${mirrorProcess.display} exit code after stdin EOF (stderr: ${mirrorProcess.stderr().trim()})`,
  );
  serverProcess.child.kill('SIGTERM');
  const serverExit = await serverProcess.waitForExit();
  assertEqual(
    serverExit.code,
    0,
    `${serverProcess.display} exit code after SIGTERM (stderr: ${serverProcess.stderr().trim()})`,
  );
  return `${outcome.text} via ${url}`;
}
