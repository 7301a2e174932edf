#!/usr/bin/env node
// `pnpm release:check`: proves, before any publish, that every public package works as a user gets it from npm.
// It builds, lints each package (publint --strict, attw --pack --profile esm-only, our manifest rules), packs each
// with pnpm (as a release would), installs all tarballs together with npm into a fresh project outside the
// workspace, and there: compares the API surface with the committed snapshot, runs askChoice through `import` and
// `require()`, runs the installed `acpremote` and `acpkit` binaries (--version, --help, serve/expose + mirror round
// trips driven by an SDK client over stdio), and type-checks a consumer against the packed .d.ts files.
//
// Every step prints `==> name` and `<== name: ok|FAILED`, with the reason on failure; a step whose prerequisite
// failed is reported as skipped (and counts as a failure). Exit code 0 only when every step passed. Temporary
// directories and every spawned process are removed on every exit path.
//
//   node scripts/release/check.mjs [--keep]     --keep leaves the scratch directory for inspection
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { hygieneProblems, tarballProblems, wireFormatProblems } from './package-rules.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const consumerFixtures = join(root, 'scripts', 'release', 'consumer');
const binaries = join(root, 'node_modules', '.bin');
const question = 'Choose a deployment target';
const expectedAnswer = 'Selected: production (source: client)';
const { values: flags } = parseArgs({ options: { keep: { type: 'boolean', default: false } } });

// ---------------------------------------------------------------------------------------------------------------
// Steps and reporting

/** @type {Array<{ name: string; status: 'ok' | 'failed' | 'skipped'; reason?: string }>} */
const results = [];
const passedSteps = new Set();

function indent(text) {
  return String(text)
    .trimEnd()
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

function describe(error) {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Runs one named step. `requires` names earlier steps (or step-name prefixes ending in `*`) that must have passed.
 * @param {string} name
 * @param {() => Promise<string | void>} action resolves with an optional one-line detail
 * @param {{ requires?: string[]; startedAt?: number }} [options] `startedAt` when the work already ran elsewhere
 */
async function step(name, action, options = {}) {
  const missing = (options.requires ?? []).filter((required) => {
    if (!required.endsWith('*')) return !passedSteps.has(required);
    const matching = results.filter((result) => result.name.startsWith(required.slice(0, -1)));
    return matching.length === 0 || matching.some((result) => result.status !== 'ok');
  });
  if (missing.length > 0) {
    const reason = `skipped: needs ${missing.join(', ')}`;
    results.push({ name, status: 'skipped', reason });
    console.log(`\n<== ${name}: SKIPPED (${reason})`);
    return;
  }
  const started = options.startedAt ?? Date.now();
  console.log(`\n==> ${name}`);
  try {
    const detail = await action();
    passedSteps.add(name);
    results.push({ name, status: 'ok' });
    console.log(`<== ${name}: ok${detail ? ` - ${detail}` : ''} (${seconds(started)} s)`);
  } catch (error) {
    results.push({ name, status: 'failed', reason: describe(error) });
    console.log(`<== ${name}: FAILED (${seconds(started)} s)\n${indent(describe(error))}`);
  }
}

/**
 * Runs independent steps with bounded concurrency (the machine has 2 cores) and reports them in order.
 * @param {Array<{ name: string; action: () => Promise<string | void>; requires?: string[] }>} list
 */
async function parallelSteps(list, concurrency = 2) {
  const outcomes = new Array(list.length);
  let next = 0;
  async function worker() {
    while (next < list.length) {
      const index = next++;
      const started = Date.now();
      try {
        outcomes[index] = { ok: true, detail: await list[index].action(), started, ended: Date.now() };
      } catch (error) {
        outcomes[index] = { ok: false, error, started, ended: Date.now() };
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  for (const [index, item] of list.entries()) {
    const outcome = outcomes[index];
    await step(
      item.name,
      async () => {
        if (!outcome.ok) throw outcome.error;
        return outcome.detail ? `${outcome.detail} (in parallel)` : 'in parallel';
      },
      { startedAt: Date.now() - (outcome.ended - outcome.started) },
    );
  }
}

function seconds(started) {
  return ((Date.now() - started) / 1000).toFixed(1);
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

function assertEqual(actual, expected, what) {
  const left = JSON.stringify(actual);
  const right = JSON.stringify(expected);
  if (left !== right) throw new Error(`${what}: expected ${right}, got ${left}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Processes: every child is tracked and reaped on every exit path.

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();

/**
 * Environment for the consumer side. pnpm's per-run variables must not leak into npm or the installed programs:
 * NODE_PATH would let a missing dependency resolve from the workspace and hide a broken package.
 */
function consumerEnvironment() {
  /** @type {NodeJS.ProcessEnv} */
  const environment = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key === 'NODE_PATH' || key === 'NODE_OPTIONS' || key === 'INIT_CWD' || key === 'PNPM_SCRIPT_SRC_DIR')
      continue;
    if (/^npm_/i.test(key) && !/registry|proxy|cafile|strict_ssl|userconfig|cache/i.test(key)) continue;
    if (/^pnpm_config_/i.test(key)) continue;
    environment[key] = value;
  }
  return { ...environment, FORCE_COLOR: '0', NO_COLOR: '1', NO_UPDATE_NOTIFIER: '1' };
}

/**
 * Runs a command to completion and resolves with its output; rejects with the exit status and the output's tail.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; allowFailure?: boolean }} [options]
 * @returns {Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>}
 */
function run(command, args, options = {}) {
  const { cwd = root, env = process.env, timeoutMs = 120_000, allowFailure = false } = options;
  return new Promise((resolvePromise, rejectPromise) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    let timedOut = false;
    // A guard against a hung tool, not a synchronisation: the check fails with the output so far.
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      children.delete(child);
      rejectPromise(new Error(`${command} could not start: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      const outcome = { code, signal, stdout, stderr };
      if (timedOut) {
        rejectPromise(
          new Error(
            `${displayCommand(command, args)} timed out after ${timeoutMs / 1000} s\n${tail(outcome)}`,
          ),
        );
      } else if (code !== 0 && !allowFailure) {
        rejectPromise(
          new Error(`${displayCommand(command, args)} exited ${code ?? signal}\n${tail(outcome)}`),
        );
      } else {
        resolvePromise(outcome);
      }
    });
  });
}

function displayCommand(command, args) {
  return [command, ...args].map((part) => part.replace(root, '').replace(tmpdir(), '$TMP')).join(' ');
}

function tail({ stdout, stderr }, lines = 40) {
  const text = `${stdout}${stdout && stderr ? '\n' : ''}${stderr}`.trimEnd().split('\n');
  return text.slice(-lines).join('\n');
}

function killGroup(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal); // detached: the child leads its own process group
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Starts a long-running program with piped stdio (its stderr is kept for diagnostics).
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string; env: NodeJS.ProcessEnv }} options
 */
function start(command, args, options) {
  const child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  children.add(child);
  let stderr = '';
  const stderrWaiters = new Set();
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk;
    for (const waiter of stderrWaiters) waiter();
  });
  const exited = new Promise((resolvePromise) => {
    child.on('close', (code, signal) => {
      children.delete(child);
      resolvePromise({ code, signal });
      for (const waiter of stderrWaiters) waiter();
    });
    child.on('error', (error) => {
      children.delete(child);
      stderr += `\n[could not start: ${error.message}]`;
      resolvePromise({ code: null, signal: null });
      for (const waiter of stderrWaiters) waiter();
    });
  });
  const display = displayCommand(command, args);
  return {
    child,
    exited,
    display,
    stderr: () => stderr,
    /** Resolves with the first match of `pattern` in stderr; rejects if the program exits first. */
    waitForStderr(pattern, timeoutMs = 30_000) {
      return new Promise((resolvePromise, rejectPromise) => {
        const timer = setTimeout(() => {
          stderrWaiters.delete(check);
          rejectPromise(
            new Error(`${display}: no ${pattern} on stderr within ${timeoutMs / 1000} s\n${stderr}`),
          );
        }, timeoutMs);
        function check() {
          const match = pattern.exec(stderr);
          if (match) {
            clearTimeout(timer);
            stderrWaiters.delete(check);
            resolvePromise(match);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer);
            stderrWaiters.delete(check);
            rejectPromise(
              new Error(
                `${display} exited ${child.exitCode ?? child.signalCode} before ${pattern}\n${stderr}`,
              ),
            );
          }
        }
        stderrWaiters.add(check);
        check();
      });
    },
    /** Resolves with the exit code; rejects if the program is still running after `timeoutMs`. */
    async waitForExit(timeoutMs = 15_000) {
      let timer;
      const timeout = new Promise((_, rejectPromise) => {
        timer = setTimeout(
          () => rejectPromise(new Error(`${display} still running ${timeoutMs / 1000} s later\n${stderr}`)),
          timeoutMs,
        );
      });
      try {
        return await Promise.race([exited, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Rejects when `promise` has not settled after `timeoutMs` (a hang guard, not a synchronisation). */
async function within(promise, timeoutMs, what) {
  let timer;
  const timeout = new Promise((_, rejectPromise) => {
    timer = setTimeout(
      () => rejectPromise(new Error(`${what} did not finish within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function reapChildren() {
  const running = [...children];
  for (const child of running) killGroup(child, 'SIGTERM');
  await Promise.all(
    running.map(
      (child) =>
        new Promise((resolvePromise) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolvePromise();
          const timer = setTimeout(() => {
            killGroup(child, 'SIGKILL');
            resolvePromise();
          }, 3_000);
          child.once('close', () => {
            clearTimeout(timer);
            resolvePromise();
          });
        }),
    ),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Package facts

/** @typedef {{ name: string; directory: string; absolute: string; manifest: Record<string, any>; tarball?: string }} PublicPackage */

/** @returns {Promise<PublicPackage[]>} */
async function listPublicPackages() {
  const { stdout } = await run('pnpm', ['ls', '--recursive', '--depth=-1', '--json']);
  return JSON.parse(stdout)
    .filter((entry) => entry.path !== root.replace(/\/$/, '') && entry.private !== true)
    .map((entry) => {
      const manifest = JSON.parse(readFileSync(join(entry.path, 'package.json'), 'utf8'));
      return { name: manifest.name, directory: relative(root, entry.path), absolute: entry.path, manifest };
    })
    .sort((left, right) => left.name.localeCompare(right.name));
}

/**
 * Checks a packed tarball: what it ships, and a manifest with every workspace/catalog range resolved.
 * @param {PublicPackage} publicPackage
 * @param {{ files: Array<{ path: string }> }} packed
 */
async function checkTarball(publicPackage, packed) {
  const { stdout } = await run('tar', ['-xzOf', publicPackage.tarball, 'package/package.json']);
  const paths = packed.files.map((file) => file.path);
  const problems = tarballProblems(publicPackage.manifest, paths, JSON.parse(stdout));
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return `${paths.length} files`;
}

function assertAnswered(outcome, how) {
  assertEqual(outcome.text, expectedAnswer, `agent reply ${how}`);
  assertEqual(outcome.stopReason, 'end_turn', `stopReason ${how}`);
  assertEqual(outcome.elicitationRequests.length, 1, `elicitation requests ${how}`);
  const problems = wireFormatProblems(outcome.elicitationRequests[0], question);
  if (problems.length > 0) throw new Error(`wire format ${how}:\n${problems.join('\n')}`);
}

// ---------------------------------------------------------------------------------------------------------------
// The check

/** The temporary directory of this run, removed on every exit path (also on SIGINT/SIGTERM). */
let scratchDirectory = '';

async function main() {
  const scratch = mkdtempSync(join(tmpdir(), 'acpkit-release-check-'));
  scratchDirectory = scratch;
  const tarballs = join(scratch, 'tarballs');
  const consumer = join(scratch, 'consumer');
  mkdirSync(tarballs);
  mkdirSync(consumer);
  const environment = consumerEnvironment();
  console.log(`release:check scratch directory: ${scratch}`);

  /** @type {PublicPackage[]} */
  let packages = [];
  try {
    await step('list public packages', async () => {
      packages = await listPublicPackages();
      assert(packages.length > 0, 'no public workspace packages found');
      return packages
        .map((publicPackage) => `${publicPackage.name}@${publicPackage.manifest.version}`)
        .join(', ');
    });
    if (packages.length === 0) return;
    const names = packages.map((publicPackage) => publicPackage.name);

    await step('build', async () => {
      const filters = names.map((name) => `--filter=${name}`);
      await run('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only', ...filters], {
        env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0' },
        timeoutMs: 600_000,
      });
    });

    for (const publicPackage of packages) {
      await step(
        `package hygiene ${publicPackage.name}`,
        async () => {
          const problems = hygieneProblems(publicPackage);
          if (problems.length > 0) throw new Error(problems.join('\n'));
        },
        { requires: ['build'] },
      );
    }

    if (passedSteps.has('build')) {
      await parallelSteps(
        packages.flatMap((publicPackage) => [
          {
            name: `publint --strict ${publicPackage.name}`,
            action: async () => {
              const { stdout } = await run(join(binaries, 'publint'), ['--strict', publicPackage.directory]);
              // publint exits 0 on suggestions; --strict turns warnings into errors. Show anything it said.
              const said = stdout
                .split('\n')
                .filter((line) => line && !/^(Running publint|Packing files|Linting)/.test(line));
              return said.join(' ').slice(0, 200);
            },
          },
          {
            name: `pnpm pack ${publicPackage.name}`,
            action: async () => {
              const { stdout } = await run('pnpm', ['pack', '--json', '--pack-destination', tarballs], {
                cwd: publicPackage.absolute,
              });
              const packed = JSON.parse(stdout);
              publicPackage.tarball = packed.filename;
              return checkTarball(publicPackage, packed);
            },
          },
          {
            name: `attw --pack --profile esm-only ${publicPackage.name}`,
            action: async () => {
              await run(
                join(binaries, 'attw'),
                [
                  '--pack',
                  publicPackage.directory,
                  '--profile',
                  'esm-only',
                  '--format',
                  'ascii',
                  '--no-emoji',
                  '--no-color',
                ],
                { timeoutMs: 180_000 },
              );
              return 'no problems';
            },
          },
        ]),
      );
    }

    await step(
      'npm install the tarballs into a fresh project',
      async () => {
        writeFileSync(
          join(consumer, 'package.json'),
          `${JSON.stringify({ name: 'acpkit-release-consumer', private: true, type: 'module' }, null, 2)}\n`,
        );
        for (const file of readdirSync(consumerFixtures)) {
          const target = file === 'tsconfig.consumer.json' ? 'tsconfig.json' : file;
          cpSync(join(consumerFixtures, file), join(consumer, target));
        }
        // All tarballs in one install: they depend on each other, and npm must take the siblings from the tarballs
        // while the registry supplies the rest (the SDK peer, ws, commander, ...).
        const tarballPaths = packages.map((publicPackage) => publicPackage.tarball);
        await run(
          'npm',
          [
            'install',
            '--no-audit',
            '--no-fund',
            '--loglevel=error',
            ...tarballPaths,
            '@agentclientprotocol/sdk@^2.4.0',
            '@types/node@^20.19.0',
          ],
          { cwd: consumer, env: environment, timeoutMs: 300_000 },
        );
        const lock = JSON.parse(readFileSync(join(consumer, 'package-lock.json'), 'utf8'));
        const problems = [];
        for (const publicPackage of packages) {
          const entries = Object.entries(lock.packages).filter(([path]) =>
            path.endsWith(`node_modules/${publicPackage.name}`),
          );
          if (entries.length !== 1)
            problems.push(`${publicPackage.name} is installed ${entries.length} times`);
          for (const [path, entry] of entries) {
            if (!String(entry.resolved ?? '').startsWith('file:')) {
              problems.push(`${path} came from ${entry.resolved ?? 'the registry'}, not from its tarball`);
            }
            if (entry.version !== publicPackage.manifest.version)
              problems.push(`${path} is ${entry.version}`);
          }
        }
        const sdkCopies = Object.keys(lock.packages).filter((path) =>
          path.endsWith('node_modules/@agentclientprotocol/sdk'),
        );
        if (sdkCopies.length !== 1)
          problems.push(`@agentclientprotocol/sdk is installed ${sdkCopies.length} times: ${sdkCopies}`);
        // npm's own verdict on the tree: a missing or invalid (peer) dependency makes `npm ls` exit non-zero.
        const tree = await run('npm', ['ls', '--all'], {
          cwd: consumer,
          env: environment,
          allowFailure: true,
        });
        if (tree.code !== 0) problems.push(`npm ls reports problems:\n${tail(tree, 20)}`);
        if (problems.length > 0) throw new Error(problems.join('\n'));
        const sdkVersion = lock.packages['node_modules/@agentclientprotocol/sdk'].version;
        return `${Object.keys(lock.packages).length - 1} packages, @agentclientprotocol/sdk@${sdkVersion}`;
      },
      { requires: ['pnpm pack *'] },
    );
    const installed = 'npm install the tarballs into a fresh project';

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

    let importedExports = [];
    await step(
      'import @acpkit/elicitation and askChoice against an SDK client',
      async () => {
        const { stdout } = await run(process.execPath, ['ask-choice-import.mjs'], {
          cwd: consumer,
          env: environment,
        });
        const outcome = JSON.parse(stdout.trim().split('\n').at(-1));
        assertAnswered(outcome, 'through import');
        importedExports = outcome.exports;
        return outcome.text;
      },
      { requires: [installed] },
    );

    await step(
      'require() @acpkit/elicitation and askChoice against an SDK client',
      async () => {
        const { stdout } = await run(process.execPath, ['ask-choice-require.cjs'], {
          cwd: consumer,
          env: environment,
        });
        const outcome = JSON.parse(stdout.trim().split('\n').at(-1));
        assertAnswered(outcome, 'through require()');
        if (importedExports.length > 0)
          assertEqual(outcome.exports, importedExports, 'require() and import exports');
        return outcome.text;
      },
      { requires: [installed] },
    );

    await step(
      'require() every public package',
      async () => {
        const script = `for (const name of ${JSON.stringify(names)}) { const loaded = require(name); if (typeof loaded !== 'object') throw new Error(name); }`;
        await run(process.execPath, ['--input-type=commonjs', '--eval', script], {
          cwd: consumer,
          env: environment,
        });
        return `${names.length} packages`;
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

    const cliCommands = {
      '@acpkit/acpremote': { binary: 'acpremote', commands: ['serve', 'expose', 'mirror'] },
      '@acpkit/cli': { binary: 'acpkit', commands: ['run', 'serve', 'client'] },
    };
    for (const [packageName, { binary, commands }] of Object.entries(cliCommands)) {
      await step(
        `${binary} --version and --help`,
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
      'acpremote serve + acpremote mirror: one prompt round trip',
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
      'acpremote expose + acpkit run --addr: one prompt round trip',
      () =>
        roundTrip({
          consumer,
          environment,
          server: ['acpremote', 'expose', '--port', '0', '--', process.execPath, 'deploy-agent.mjs'],
          mirror: (url) => ['acpkit', 'run', '--addr', url, '--unstable-protocol'],
        }),
      { requires: [installed] },
    );
  } finally {
    await reapChildren();
    if (flags.keep) console.log(`\nKept ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Serves the tiny agent with an installed CLI on an OS-chosen port, mirrors it back to stdio with an installed CLI,
 * and drives the mirror with the installed SDK's client: one prompt whose answer needs an elicitation round trip.
 */
async function roundTrip({ consumer, environment, server, mirror }) {
  const binary = (name) => join(consumer, 'node_modules', '.bin', name);
  const serverProcess = start(binary(server[0]), server.slice(1), { cwd: consumer, env: environment });
  const [, url] = await serverProcess.waitForStderr(/Serving ACP WebSocket at (ws:\/\/\S+)/);
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

  // Documented exit behaviour: stdin EOF ends the mirror with 0; SIGTERM ends the server with 143 after shutdown.
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
    143,
    `${serverProcess.display} exit code after SIGTERM (stderr: ${serverProcess.stderr().trim()})`,
  );
  return `${outcome.text} via ${url}`;
}

// Ctrl+C or a CI timeout: reap what we started before leaving.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.log(`\nrelease:check interrupted by ${signal}; stopping child processes`);
    void reapChildren().finally(() => {
      if (scratchDirectory && !flags.keep) rmSync(scratchDirectory, { recursive: true, force: true });
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  });
}

const started = Date.now();
try {
  await main();
} catch (error) {
  results.push({ name: 'release:check', status: 'failed', reason: describe(error) });
  console.log(`\nrelease:check crashed: ${error instanceof Error ? error.stack : String(error)}`);
}
const failures = results.filter((result) => result.status !== 'ok');
console.log(
  `\nrelease:check: ${results.length - failures.length} of ${results.length} steps passed in ${seconds(started)} s`,
);
for (const failure of failures)
  console.log(`  - ${failure.status.toUpperCase()}: ${failure.name}: ${failure.reason?.split('\n')[0]}`);
process.exitCode = failures.length === 0 ? 0 : 1;
