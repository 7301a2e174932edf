// The other live Node.js LTS lines the test command runs the end-to-end and packed-install checks on, next to the
// machine's own Node 20. Their binaries come from the npm registry's `node` package (through `npx`, cached in npm's
// own cache after the first run); nothing is downloaded from anywhere else.
//
// Exact versions, so a run is reproducible: bump them when a new patch release of a line comes out (`npm view
// node@22 version`), and add a line here when it becomes LTS.
import { runCommand } from './step-graph.mjs';

/** @type {ReadonlyArray<{ line: number; version: string }>} */
export const otherNodeLines = [
  { line: 22, version: '22.23.3' },
  { line: 24, version: '24.21.0' },
];

/**
 * End-to-end files that run on the machine's Node only, not again on each other line. They test our own logic through
 * the built CLIs (argument and answer parsing, usage and error messages, what `dist` contains), which plain JavaScript
 * does the same on every Node; each of the other lines still runs every CLI command for real in the rest of the
 * suite (the test client with and without a terminal, run, serve, expose and mirror over both transports, signals,
 * drain, TLS, module loading), and release:check runs `--version` and every command's `--help` of the installed
 * packages there too. Paths relative to the repository.
 * @type {ReadonlyArray<{ file: string; why: string }>}
 */
export const e2eFilesOnThisNodeOnly = [
  { file: 'tests/e2e/cli-packaging.e2e.test.ts', why: 'reads the built files; starts no process' },
  {
    file: 'tests/e2e/cli-usage.e2e.test.ts',
    why: "help texts and usage errors (commander and our option checks); the port-in-use and unreachable-endpoint exits are Node's errors, also met by remote-mirror-diagnostics and remote-server-hardening",
  },
  {
    file: 'tests/e2e/client-scripted.e2e.test.ts',
    why: "--answer/--answers/--decline/--cancel parsing and the messages around them, through the built CLI's main in-process; the client itself (stdin, pty, SIGINT, mirrors) runs on every line in client-non-interactive, client-interactive, client-forms and the demo tests",
  },
];

/** Comma-separated paths (relative to the repository) that tests/e2e/vitest.config.ts leaves out of its run. */
export const E2E_EXCLUDE_VARIABLE = 'ACPKIT_E2E_EXCLUDE';

/**
 * The absolute path of the `node` binary of `version`, installed by `npx` from the npm registry when missing.
 * @param {string} version exact version, e.g. `24.21.0`
 * @param {{ cwd: string; env: NodeJS.ProcessEnv }} options
 * @returns {Promise<{ path?: string; output: string; cpuSeconds?: number }>} `path` is missing when npx failed;
 *   `output` says why
 */
export async function resolveNodeBinary(version, { cwd, env }) {
  const { code, output, cpuSeconds } = await runCommand(
    ['npx', '--yes', `node@${version}`, '--print', 'process.execPath + " " + process.version'],
    { cwd, env },
  );
  const [path, reported] = output.trim().split('\n').at(-1)?.split(' ') ?? [];
  if (code !== 0 || reported !== `v${version}`) return { output, cpuSeconds };
  return { path, output, cpuSeconds };
}
