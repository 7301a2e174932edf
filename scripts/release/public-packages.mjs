// The public packages of the workspace, found (never listed by hand): every workspace package without
// `"private": true`, so a new package is packed, checked and published without touching the release scripts.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { root, run } from './processes.mjs';

/** @typedef {{ name: string; directory: string; absolute: string; manifest: Record<string, any>; tarball?: string }} PublicPackage */

/**
 * Lists the public workspace packages, sorted by name.
 * @returns {Promise<PublicPackage[]>}
 */
export async function listPublicPackages() {
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
 * Builds the given packages (and what they depend on) with turbo.
 * @param {string[]} names
 */
export async function buildPackages(names) {
  const filters = names.map((name) => `--filter=${name}`);
  await run('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only', ...filters], {
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0' },
    // A clean build of every package on a busy 2-core machine has taken more than 10 minutes.
    timeoutMs: 1_200_000,
  });
}

/**
 * Packs one package as a release would (`pnpm pack`: `workspace:` and `catalog:` ranges resolved) into `directory`.
 * @param {PublicPackage} publicPackage
 * @param {string} directory
 * @returns {Promise<{ filename: string; files: Array<{ path: string }> }>}
 */
export async function packPackage(publicPackage, directory) {
  const { stdout } = await run('pnpm', ['pack', '--json', '--pack-destination', directory], {
    cwd: publicPackage.absolute,
  });
  return JSON.parse(stdout);
}
