// Which of the test command's set-up steps have ended, as files its test processes can wait for: the vitest runs
// start with the build instead of after the slow set-up of a fresh machine (apt installing the services, the Python
// venv, the other Node lines), and only a test that needs one of those waits for it, in its own worker.
import { existsSync, mkdirSync, readFileSync, renameSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment variable that names the markers' folder; unset outside the test command (nothing to wait for). */
export const STEP_MARKERS_VARIABLE = 'ACPKIT_TEST_STEP_MARKERS';

/**
 * @typedef {object} StepOutcome
 * @property {boolean} ok whether the step passed
 * @property {string} detail what it says: the reason of a failure, or a value it found (a Node binary's path)
 */

/**
 * Records that the step `key` has ended (a rename, so a reader never sees half a file).
 * @param {string} directory @param {string} key @param {StepOutcome} outcome
 */
export function markStepEnded(directory, key, outcome) {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${key}.json`);
  writeFileSync(`${file}.partial`, JSON.stringify(outcome));
  renameSync(`${file}.partial`, file);
}

/**
 * Resolves once the file `name` exists in `directory` (or `stopWhen` does), with its path; rejects after `timeoutMs`.
 * @param {string} directory @param {string} name @param {string} [stopWhen] @param {number} [timeoutMs]
 * @returns {Promise<string | undefined>} the path of `name`, or undefined when `stopWhen` came first
 */
export function waitForFile(directory, name, stopWhen, timeoutMs) {
  mkdirSync(directory, { recursive: true });
  return new Promise((resolve, reject) => {
    // Watch first, then look, so a file written in between is not missed.
    const watcher = watch(directory);
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            watcher.close();
            reject(new Error(`no ${name} in ${directory} after ${Math.round(timeoutMs / 1000)} s`));
          }, timeoutMs);
    const done = (value) => {
      clearTimeout(timer);
      watcher.close();
      resolve(value);
    };
    const look = () => {
      if (existsSync(join(directory, name))) done(join(directory, name));
      else if (stopWhen !== undefined && existsSync(join(directory, stopWhen))) done(undefined);
    };
    watcher.on('change', look);
    watcher.on('error', (error) => {
      clearTimeout(timer);
      watcher.close();
      reject(error);
    });
    look();
  });
}

/** The longest a test waits for a set-up step: apt on a fresh machine takes a few minutes, never this long. */
const STEP_WAIT_MS = 15 * 60_000;

/**
 * Waits, inside the test command, for its step `key` to end and returns how it ended; outside it (no markers folder)
 * resolves with undefined at once: whoever runs vitest alone has set up the machine. Rejects after
 * {@link STEP_WAIT_MS} (a markers folder nobody writes to), never waits forever.
 * @param {string} key
 * @returns {Promise<StepOutcome | undefined>}
 */
export async function waitForStep(key) {
  const directory = process.env[STEP_MARKERS_VARIABLE];
  if (!directory) return undefined;
  const file = await waitForFile(directory, `${key}.json`, undefined, STEP_WAIT_MS);
  return file === undefined ? undefined : JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * Waits for the step that installs the real services (nginx, HAProxy, Postgres, Chromium) and throws its reason when
 * it failed, so a test that needs one fails with why instead of "not found".
 * @returns {Promise<void>}
 */
export async function servicesInstalled() {
  const outcome = await waitForStep('services');
  if (outcome !== undefined && !outcome.ok) {
    throw new Error(`The test command could not install the services the tests need: ${outcome.detail}`);
  }
}
