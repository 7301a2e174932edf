// Whether the venv of the real Python ACP Kit is ready, as each test file of this suite asks before its set-up.
import { beforeEach, inject } from 'vitest';

/** In the test command, what venv-ready.ts (the setup file) found: '' when ready, else why not. */
let venvErrorOfTheTestCommand: string | undefined;

/** Called by venv-ready.ts once the test command's venv step has ended. */
export function recordVenvError(error: string): void {
  venvErrorOfTheTestCommand = error;
}

/**
 * Makes every test of the calling file fail with the installer's error when the venv of the real Python ACP Kit could
 * not be built (by the global setup, or in the test command by its venv step): a failing `beforeEach` fails each
 * test, where a failing `beforeAll` would only mark them skipped. Returns whether the venv is ready, so the file's
 * `beforeAll` can leave its set-up out.
 */
export function failEveryTestWithoutPythonVenv(): boolean {
  const error = venvErrorOfTheTestCommand ?? inject('pythonVenvError');
  beforeEach(() => {
    if (error !== '')
      throw new Error(`The Python ACP Kit could not be installed into the test venv:\n${error}`);
  });
  return error === '';
}
