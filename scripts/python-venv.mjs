#!/usr/bin/env node
// The project-local Python virtual environment that tests/interop-python runs the real Python ACP Kit from
// (`acpkit`, `acpremote` and `pydantic-acp` 1.10.0 with the dependencies they pin). It lives in the git-ignored
// `tests/interop-python/.venv/`; nothing outside the repository's ignored folders is written except the package
// installers' own download caches.
//
//   node scripts/python-venv.mjs           create it when missing or when the lock file changed, else reuse it
//   node scripts/python-venv.mjs --lock    re-resolve requirements.in and rewrite requirements.txt (review the diff!)
//
// The lock file (`tests/interop-python/python/requirements.txt`) pins every package of the closure exactly; only
// wheels are installed (`--only-binary :all:`, so no package's build code runs). Hashes are not pinned because
// several dependencies ship a different wheel per platform (pydantic-core, cryptography, jiter, ...) and a lock
// hashed on one machine would refuse every other one. The venv records the SHA-256 of the lock file and the Python
// version it was built with; when either changes it is rebuilt from scratch.
//
// The installer is uv (from PyPI, pinned below, installed with pip into its own git-ignored venv
// `tests/interop-python/.uv/` and reused): it installs and byte-compiles the 110 wheels in a few seconds, in
// parallel, where pip took 40 s and 30 s of CPU.
//
// Failing to install is an error with the installer's own output, never a skip: the interop tests cannot run without
// it. `ACPKIT_INTEROP_PYTHON` names the interpreter (default `python3`, which must be 3.11 or newer).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const interopDirectory = join(root, 'tests', 'interop-python');
export const lockFile = join(interopDirectory, 'python', 'requirements.txt');
export const topLevelRequirementsFile = join(interopDirectory, 'python', 'requirements.in');
export const venvDirectory = join(interopDirectory, '.venv');
const lockVenvDirectory = join(interopDirectory, '.venv-lock');
const stampFile = join(venvDirectory, 'acpkit-interop-stamp.json');
const MINIMUM_PYTHON = [3, 11];
/** The installer, from PyPI; bump it like any pin. */
const UV_VERSION = '0.13.8';
const uvVenvDirectory = join(interopDirectory, '.uv');
const uvBinary = join(uvVenvDirectory, 'bin', 'uv');
// Bytecode is compiled at install time, as pip does: with PYTHONDONTWRITEBYTECODE set (as on these machines) Python
// would otherwise compile every imported module again in every process the tests start.
const INSTALL_FLAGS = ['--quiet', '--only-binary', ':all:', '--compile-bytecode'];

/**
 * Path of an executable inside the venv (`python`, `acpremote`, `acpkit`).
 * @param {string} name
 * @returns {string}
 */
export function venvBinary(name) {
  return join(venvDirectory, 'bin', name);
}

class PythonVenvError extends Error {
  name = 'PythonVenvError';
}

/**
 * Runs a command, capturing its output; throws a PythonVenvError with that output when it fails.
 * @param {string} what what the command does, for the error message
 * @param {string} command
 * @param {string[]} args
 * @returns {string} stdout
 */
function run(what, command, args) {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', env: process.env });
  if (result.error) throw new PythonVenvError(`${what}: cannot run ${command}: ${result.error.message}`);
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
    throw new PythonVenvError(
      `${what} failed (${command} ${args.join(' ')} exited ${result.status ?? result.signal}):\n${output}`,
    );
  }
  return result.stdout;
}

/** The interpreter to build the venv with, checked to be Python 3.11 or newer; returns its version. */
function basePython() {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: turbo never runs this script, so no task cache depends on it.
  const python = process.env.ACPKIT_INTEROP_PYTHON || 'python3';
  const [version = '', executable = python] = run(`checking ${python}`, python, [
    '-c',
    'import sys; print(".".join(map(str, sys.version_info[:3]))); print(sys.executable)',
  ])
    .trim()
    .split('\n');
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major < MINIMUM_PYTHON[0] || (major === MINIMUM_PYTHON[0] && minor < MINIMUM_PYTHON[1])) {
    throw new PythonVenvError(
      `${python} is Python ${version}; the Python ACP Kit needs ${MINIMUM_PYTHON.join('.')} or newer ` +
        '(set ACPKIT_INTEROP_PYTHON to a newer interpreter).',
    );
  }
  return { python: executable, version };
}

/** uv at UV_VERSION, installed with pip into its own venv when missing or at another version. */
function ensureUv(python) {
  const installed = spawnSync(uvBinary, ['--version'], { encoding: 'utf8' });
  if (installed.status === 0 && installed.stdout.trim().split(' ')[1] === UV_VERSION) return;
  rmSync(uvVenvDirectory, { recursive: true, force: true });
  run('creating the venv for uv', python, ['-m', 'venv', uvVenvDirectory]);
  run(`installing uv ${UV_VERSION}`, join(uvVenvDirectory, 'bin', 'python'), [
    '-m',
    'pip',
    'install',
    '--disable-pip-version-check',
    '--no-input',
    '--quiet',
    '--only-binary=:all:',
    `uv==${UV_VERSION}`,
  ]);
}

/** Creates a venv at `directory` with `python` and installs `requirements` into it with uv. */
function createVenv(python, directory, requirements) {
  ensureUv(python);
  // The given interpreter only: uv never downloads a Python of its own here.
  run('creating the virtual environment', uvBinary, [
    'venv',
    '--quiet',
    '--no-python-downloads',
    '--python',
    python,
    directory,
  ]);
  run('installing the pinned Python ACP Kit', uvBinary, [
    'pip',
    'install',
    ...INSTALL_FLAGS,
    '--python',
    join(directory, 'bin', 'python'),
    '--requirement',
    requirements,
  ]);
}

function expectedStamp(pythonVersion) {
  const lockSha256 = createHash('sha256').update(readFileSync(lockFile)).digest('hex');
  return { lockSha256, pythonVersion };
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The exact `name==version` pins of requirements.in, e.g. `{ acpkit: '1.10.0' }`; extras (`name[http]==…`) are
 * pinned by the name alone.
 */
export function topLevelPins() {
  const pins = {};
  for (const line of readFileSync(topLevelRequirementsFile, 'utf8').split('\n')) {
    const match = /^\s*([A-Za-z0-9_.-]+)(?:\[[A-Za-z0-9_.,\s-]*\])?==([^\s#;]+)/.exec(line);
    if (match) pins[match[1].toLowerCase()] = match[2];
  }
  return pins;
}

/** Fails unless every top-level pin is installed at exactly its version and no installed dependency is broken. */
function verifyInstall() {
  run('uv pip check', uvBinary, ['pip', 'check', '--quiet', '--python', venvBinary('python')]);
  const pins = topLevelPins();
  const installed = JSON.parse(
    run('reading installed versions', venvBinary('python'), [
      '-c',
      'import json, sys; from importlib.metadata import version; print(json.dumps({n: version(n) for n in sys.argv[1:]}))',
      ...Object.keys(pins),
    ]),
  );
  for (const [name, version] of Object.entries(pins)) {
    if (installed[name] !== version) {
      throw new PythonVenvError(
        `${name} ${installed[name]} is installed, but requirements.in pins ${version}`,
      );
    }
  }
}

/**
 * Creates the venv unless one built from the current lock file and Python version exists.
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {{ reused: boolean, seconds: number, pythonVersion: string }}
 * @throws {Error} with the installer's output when the venv cannot be built
 */
export function ensurePythonVenv(options = {}) {
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const started = Date.now();
  const { python, version } = basePython();
  const expected = expectedStamp(version);
  const stamp = readStamp();
  if (
    stamp?.lockSha256 === expected.lockSha256 &&
    stamp?.pythonVersion === expected.pythonVersion &&
    existsSync(venvBinary('python'))
  ) {
    log(
      `python venv: reusing ${venvDirectory} (lock ${expected.lockSha256.slice(0, 12)}, Python ${version})`,
    );
    return { reused: true, seconds: (Date.now() - started) / 1000, pythonVersion: version };
  }
  log(`python venv: building ${venvDirectory} with ${python} (Python ${version}) from ${lockFile}`);
  rmSync(venvDirectory, { recursive: true, force: true });
  createVenv(python, venvDirectory, lockFile);
  verifyInstall();
  // Written last, so an interrupted install is redone next time.
  writeFileSync(stampFile, `${JSON.stringify(expected, null, 2)}\n`);
  const seconds = (Date.now() - started) / 1000;
  log(`python venv: installed in ${seconds.toFixed(1)} s`);
  return { reused: false, seconds, pythonVersion: version };
}

/** Re-resolves requirements.in in a scratch venv and rewrites the lock file with every installed package pinned. */
function relock() {
  const { python, version } = basePython();
  rmSync(lockVenvDirectory, { recursive: true, force: true });
  try {
    createVenv(python, lockVenvDirectory, topLevelRequirementsFile);
    const frozen = run('uv pip freeze', uvBinary, [
      'pip',
      'freeze',
      '--python',
      join(lockVenvDirectory, 'bin', 'python'),
    ]);
    const header = [
      '# The whole closure of requirements.in, pinned exactly. Generated by `node scripts/python-venv.mjs --lock`',
      `# with Python ${version}; do not edit by hand. A change here rebuilds tests/interop-python/.venv.`,
    ];
    writeFileSync(lockFile, `${header.join('\n')}\n${frozen.trim()}\n`);
    process.stderr.write(`python venv: wrote ${lockFile}\n`);
  } finally {
    rmSync(lockVenvDirectory, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    if (process.argv.includes('--lock')) relock();
    else ensurePythonVenv();
  } catch (error) {
    process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
