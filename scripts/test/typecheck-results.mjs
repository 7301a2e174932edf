// The typecheck step's results as the test command's vitest run reads them: `node scripts/typecheck.mjs --results
// DIR` writes one file per package (what `tsc --noEmit --pretty false` prints there, and its exit code) as soon as
// that package is checked, and the test command marks DIR when the step has ended, passed or not. Vitest's type
// tests then take a package's result from DIR (typecheck-results-checker.mjs) instead of running `tsc` again.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { waitForFile } from './step-markers.mjs';

/**
 * @typedef {object} TypecheckResult
 * @property {string} output what `tsc --noEmit --pretty false` prints: `file(line,col): error TS…` per diagnostic
 * @property {number} exitCode `tsc`'s: 0 without diagnostics, 2 with
 */

/** The environment variable that names the results folder for the checker. */
export const TYPECHECK_RESULTS_VARIABLE = 'ACPKIT_TYPECHECK_RESULTS';

/** The environment variable that the packages' vitest.config.ts read their `typecheck.checker` from. */
export const TYPECHECK_CHECKER_VARIABLE = 'ACPKIT_TYPECHECK_CHECKER';

const ENDED = 'typecheck-ended';

/** @param {string} directory @param {string} folder relative to the repository, e.g. `packages/remote` */
function resultFile(directory, folder) {
  return join(directory, `${folder.replace(/[\\/]/g, '__')}.json`);
}

/**
 * Writes one package's result (a rename, so a reader never sees half a file).
 * @param {string} directory @param {string} folder @param {TypecheckResult} result
 */
export function writeTypecheckResult(directory, folder, result) {
  mkdirSync(directory, { recursive: true });
  const file = resultFile(directory, folder);
  writeFileSync(`${file}.partial`, JSON.stringify(result));
  renameSync(`${file}.partial`, file);
}

/** Marks the typecheck step as ended: a package without a result by now will not get one. */
export function markTypecheckEnded(directory) {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, ENDED), '');
}

/**
 * Resolves with `folder`'s result once it is written, or with `undefined` once the step has ended without it.
 * @param {string} directory @param {string} folder
 * @returns {Promise<TypecheckResult | undefined>}
 */
export async function waitForTypecheckResult(directory, folder) {
  const file = await waitForFile(directory, basename(resultFile(directory, folder)), ENDED);
  return file === undefined ? undefined : JSON.parse(readFileSync(file, 'utf8'));
}
