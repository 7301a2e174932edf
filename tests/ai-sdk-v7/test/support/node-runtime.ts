// A Node.js binary of at least a given major for the processes ai 7 runs in: this one when it is new enough, else
// the one the test command resolved (its step's marker, or ACPKIT_NODE_<major>_BINARY), else the npm registry's `node` package through npx
// (downloaded once by npm). The path npx gave is kept in node_modules/.cache, so later runs skip npx (~2 s) after
// checking the binary still answers with that major.
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitForStep } from '../../../../scripts/test/step-markers.mjs';

const execFileAsync = promisify(execFile);

function majorOf(version: string | undefined): number {
  return Number(version?.split('.')[0]);
}

/** The major version `path` runs, or undefined when it does not run. */
async function majorOfBinary(path: string): Promise<number | undefined> {
  try {
    const { stdout } = await execFileAsync(path, ['-p', 'process.versions.node'], { timeout: 20_000 });
    return majorOf(stdout.trim());
  } catch {
    return undefined;
  }
}

/** The path of a Node.js binary whose major version is at least `major` (npx fetches `node@<major>` if needed). */
export async function nodeBinary(major: number): Promise<string> {
  if (majorOf(process.versions.node) >= major) return process.execPath;
  // The test command resolves the other Node lines in steps of their own: the path is the detail of that step's end.
  const marked = await waitForStep(`node-${major}`);
  const resolved = marked?.ok ? marked.detail : process.env[`ACPKIT_NODE_${major}_BINARY`];
  if (resolved !== undefined && (await majorOfBinary(resolved)) === major) return resolved;
  const cache = fileURLToPath(
    new URL(`../../node_modules/.cache/acpkit-node-${major}.path`, import.meta.url),
  );
  const cached = await readFile(cache, 'utf8').catch(() => undefined);
  if (cached !== undefined && (await majorOfBinary(cached.trim())) === major) return cached.trim();
  const { stdout } = await execFileAsync(
    'npx',
    ['--yes', '--prefer-offline', `node@${major}`, '-p', 'process.execPath + " " + process.versions.node'],
    { timeout: 170_000 },
  );
  const [path, version] = stdout.trim().split(' ');
  if (path === undefined || majorOf(version) !== major) {
    throw new Error(`npx node@${major} printed ${JSON.stringify(stdout)}, not a Node ${major} path`);
  }
  await mkdir(dirname(cache), { recursive: true });
  await writeFile(cache, path);
  return path;
}
