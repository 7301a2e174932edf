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
 * The absolute path of the `node` binary of `version`, installed by `npx` from the npm registry when missing.
 * @param {string} version exact version, e.g. `24.21.0`
 * @param {{ cwd: string; env: NodeJS.ProcessEnv }} options
 * @returns {Promise<{ path?: string; output: string }>} `path` is missing when npx failed; `output` says why
 */
export async function resolveNodeBinary(version, { cwd, env }) {
  const { code, output } = await runCommand(
    ['npx', '--yes', `node@${version}`, '--print', 'process.execPath + " " + process.version'],
    { cwd, env },
  );
  const [path, reported] = output.trim().split('\n').at(-1)?.split(' ') ?? [];
  if (code !== 0 || reported !== `v${version}`) return { output };
  return { path, output };
}
