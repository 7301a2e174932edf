#!/usr/bin/env node
// The virtual environment that tests/interop-python runs the real Python ACP Kit from (`acpkit`, `acpremote` and
// `pydantic-acp` 1.10.0 with the dependencies they pin). The tests reach it as the git-ignored
// `tests/interop-python/.venv`, a symbolic link to where it is kept between runs and clones, beside pip's and uv's own
// caches: `$XDG_CACHE_HOME/acpkit-interop-python/venv-<lock SHA-256>-py<version>` (a fresh clone's test command
// otherwise spent ~30 CPU-s installing and byte-compiling the same 110 wheels again; the release check keeps its
// Verdaccio the same way). It is the tests' tool, not what they check; a new lock file or Python gets a new folder.
//
//   node scripts/python-venv.mjs           link the kept venv, building it first when there is none for this lock
//   node scripts/python-venv.mjs --lock    re-resolve requirements.in and rewrite requirements.txt (review the diff!)
//
// The lock file (`tests/interop-python/python/requirements.txt`) pins every package of the closure exactly; only
// wheels are installed (`--only-binary :all:`, so no package's build code runs). Hashes are not pinned because
// several dependencies ship a different wheel per platform (pydantic-core, cryptography, jiter, ...) and a lock
// hashed on one machine would refuse every other one. A venv is built in a folder of its own (relocatable, so its
// scripts work after the move), checked, stamped with the lock's SHA-256 and the Python version, and only then
// renamed to its kept name: a run never uses a half-built one, and two runs building at once both end with one.
//
// The installer is uv (from PyPI, pinned below, installed with pip into its own venv, kept as
// `$XDG_CACHE_HOME/acpkit-interop-python/uv-<version>`): it installs and byte-compiles the 110 wheels in a few seconds,
// in parallel, where pip took 40 s and 30 s of CPU.
//
// Failing to install is an error with the installer's own output, never a skip: the interop tests cannot run without
// it. `ACPKIT_INTEROP_PYTHON` names the interpreter (default `python3`, which must be 3.11 or newer).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keptFolder } from './kept-folder.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const interopDirectory = join(root, 'tests', 'interop-python');
export const lockFile = join(interopDirectory, 'python', 'requirements.txt');
export const topLevelRequirementsFile = join(interopDirectory, 'python', 'requirements.in');
/** What the tests run: a link to the kept venv of the current lock file. */
export const venvDirectory = join(interopDirectory, '.venv');
const lockVenvDirectory = join(interopDirectory, '.venv-lock');
const STAMP = 'acpkit-interop-stamp.json';
const MINIMUM_PYTHON = [3, 11];
/** The installer, from PyPI; bump it like any pin. */
const UV_VERSION = '0.13.8';

/** Where the venvs and uv are kept between runs: `$XDG_CACHE_HOME/acpkit-interop-python`. */
function keptDirectory() {
  return keptFolder('acpkit-interop-python');
}
const uvVenvDirectory = () => join(keptDirectory(), `uv-${UV_VERSION}`);
const uvBinary = () => join(uvVenvDirectory(), 'bin', 'uv');
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

/**
 * uv at UV_VERSION, installed with pip into a venv of its own when it is not kept yet (built aside, then renamed:
 * `bin/uv` is a standalone binary, which runs from anywhere).
 */
function ensureUv(python) {
  const installed = spawnSync(uvBinary(), ['--version'], { encoding: 'utf8' });
  if (installed.status === 0 && installed.stdout.trim().split(' ')[1] === UV_VERSION) return;
  const building = mkdtempSync(`${uvVenvDirectory()}.building-`);
  try {
    run('creating the venv for uv', python, ['-m', 'venv', building]);
    installUv(building);
    rmSync(uvVenvDirectory(), { recursive: true, force: true });
    keepAs(building, uvVenvDirectory(), () => spawnSync(uvBinary(), ['--version']).status === 0);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

/**
 * Renames a folder built aside to its kept name; when another run kept one there first (the rename fails), that one
 * is used if `usable()` says so.
 */
function keepAs(building, kept, usable) {
  try {
    renameSync(building, kept);
  } catch (error) {
    if (!usable()) throw error;
  }
}

function installUv(directory) {
  run(`installing uv ${UV_VERSION}`, join(directory, 'bin', 'python'), [
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

/**
 * Creates a venv at `directory` with `python` and installs `requirements` into it with uv. Relocatable: its scripts
 * find their interpreter relative to themselves, so it works after being renamed to its kept name.
 */
function createVenv(python, directory, requirements) {
  ensureUv(python);
  // The given interpreter only: uv never downloads a Python of its own here.
  run('creating the virtual environment', uvBinary(), [
    'venv',
    '--quiet',
    '--relocatable',
    '--no-python-downloads',
    '--python',
    python,
    directory,
  ]);
  run('installing the pinned Python ACP Kit', uvBinary(), [
    'pip',
    'install',
    ...INSTALL_FLAGS,
    '--python',
    join(directory, 'bin', 'python'),
    '--requirement',
    requirements,
  ]);
}

function expectedStamp(python, pythonVersion) {
  const lockSha256 = createHash('sha256').update(readFileSync(lockFile)).digest('hex');
  return { lockSha256, python, pythonVersion };
}

/** The kept venv of a lock file, interpreter and Python version. */
function keptVenv({ lockSha256, python, pythonVersion }) {
  const interpreter = createHash('sha256').update(python).digest('hex').slice(0, 8);
  return join(keptDirectory(), `venv-${lockSha256.slice(0, 16)}-py${pythonVersion}-${interpreter}`);
}

function readStamp(directory) {
  try {
    return JSON.parse(readFileSync(join(directory, STAMP), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Whether `directory` holds a complete venv built for `expected` (the stamp is written last). */
function isComplete(directory, expected) {
  const stamp = readStamp(directory);
  return (
    stamp?.lockSha256 === expected.lockSha256 &&
    stamp?.python === expected.python &&
    stamp?.pythonVersion === expected.pythonVersion &&
    existsSync(join(directory, 'bin', 'python'))
  );
}

/** Points `tests/interop-python/.venv` at `target` (replacing a folder or link there). */
function linkVenv(target) {
  const current = lstatSync(venvDirectory, { throwIfNoEntry: false });
  if (current?.isSymbolicLink() && readlinkSync(venvDirectory) === target) return;
  rmSync(venvDirectory, { recursive: true, force: true });
  symlinkSync(target, venvDirectory);
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
function verifyInstall(directory) {
  const interpreter = join(directory, 'bin', 'python');
  run('uv pip check', uvBinary(), ['pip', 'check', '--quiet', '--python', interpreter]);
  const pins = topLevelPins();
  const installed = JSON.parse(
    run('reading installed versions', interpreter, [
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
 * Links the kept venv of the current lock file and Python, building it first when there is none.
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {{ reused: boolean, seconds: number, pythonVersion: string }}
 * @throws {Error} with the installer's output when the venv cannot be built
 */
export function ensurePythonVenv(options = {}) {
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const started = Date.now();
  const { python, version } = basePython();
  const expected = expectedStamp(python, version);
  const kept = keptVenv(expected);
  if (isComplete(kept, expected)) {
    linkVenv(kept);
    log(`python venv: reusing ${kept} (lock ${expected.lockSha256.slice(0, 12)}, Python ${version})`);
    return { reused: true, seconds: (Date.now() - started) / 1000, pythonVersion: version };
  }
  log(`python venv: building ${kept} with ${python} (Python ${version}) from ${lockFile}`);
  const building = mkdtempSync(`${kept}.building-`);
  try {
    createVenv(python, building, lockFile);
    verifyInstall(building);
    // Written last, so an interrupted install is never taken for a complete one.
    writeFileSync(join(building, STAMP), `${JSON.stringify(expected, null, 2)}\n`);
    // Only complete venvs are ever renamed to `kept`: one there now is another run's, and is used.
    keepAs(building, kept, () => isComplete(kept, expected));
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  linkVenv(kept);
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
    const frozen = run('uv pip freeze', uvBinary(), [
      'pip',
      'freeze',
      '--python',
      join(lockVenvDirectory, 'bin', 'python'),
    ]);
    const header = [
      '# The whole closure of requirements.in, pinned exactly. Generated by `node scripts/python-venv.mjs --lock`',
      `# with Python ${version}; do not edit by hand. A change here builds a new venv for the interop tests.`,
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
