import { beforeEach, inject } from 'vitest';

/**
 * Makes every test of the calling file fail with the installer's error when the global setup could not build the
 * venv of the real Python ACP Kit: a failing `beforeEach` fails each test, where a failing `beforeAll` would only
 * mark them skipped. Returns whether the venv is ready, so the file's `beforeAll` can leave its set-up out.
 */
export function failEveryTestWithoutPythonVenv(): boolean {
  const error = inject('pythonVenvError');
  beforeEach(() => {
    if (error !== '')
      throw new Error(`The Python ACP Kit could not be installed into the test venv:\n${error}`);
  });
  return error === '';
}
