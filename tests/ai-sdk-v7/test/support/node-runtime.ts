// A Node.js binary of at least a given major for the processes ai 7 runs in: this one when it is new enough, else
// the npm registry's `node` package through npx (cached by npm after the first download).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The path of a Node.js binary whose major version is at least `major` (npx fetches `node@<major>` if needed). */
export async function nodeBinary(major: number): Promise<string> {
  if (Number(process.versions.node.split('.')[0]) >= major) return process.execPath;
  const { stdout } = await execFileAsync(
    'npx',
    ['--yes', '--prefer-offline', `node@${major}`, '-p', 'process.execPath + " " + process.versions.node'],
    { timeout: 170_000 },
  );
  const [path, version] = stdout.trim().split(' ');
  if (path === undefined || Number(version?.split('.')[0]) !== major) {
    throw new Error(`npx node@${major} printed ${JSON.stringify(stdout)}, not a Node ${major} path`);
  }
  return path;
}
