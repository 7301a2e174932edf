import { inject } from 'vitest';

/**
 * Throws the installer's error when the global setup could not build the venv of the real Python ACP Kit, so every
 * interop test fails with it (never skips). Call it first in `beforeAll`.
 */
export function requirePythonVenv(): void {
  const error = inject('pythonVenvError');
  if (error !== '')
    throw new Error(`The Python ACP Kit could not be installed into the test venv:\n${error}`);
}
