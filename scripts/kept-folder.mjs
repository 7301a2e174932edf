// Where the test command keeps what it builds once and reuses across runs and clones (the Python interop venv, the
// release check's Verdaccio): a folder of the user's cache, beside the package managers' own caches.
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * `$XDG_CACHE_HOME/<name>` (`~/.cache/<name>` when unset), created when missing.
 * @param {string} name
 * @returns {string}
 * @example
 * keptFolder('acpkit-release-check'); // '/home/me/.cache/acpkit-release-check'
 */
export function keptFolder(name) {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: turbo never runs these scripts, so no task cache depends on it.
  const folder = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), name);
  mkdirSync(folder, { recursive: true });
  return folder;
}
