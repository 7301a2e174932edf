import type { TestProject } from 'vitest/node';
import { ensurePythonVenv } from '../../../../scripts/python-venv.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Why the venv of the real Python ACP Kit could not be built (pip's output), or '' when it is ready. */
    pythonVenvError: string;
  }
}

/**
 * Builds or reuses the venv once for the whole project (the test command already did it in its own step, so this is
 * a quick check there). An installation failure is handed to every test, which fails with it: never a skip, and the
 * other vitest projects still run.
 */
export function setup(project: TestProject): void {
  try {
    ensurePythonVenv();
    project.provide('pythonVenvError', '');
  } catch (error) {
    project.provide('pythonVenvError', error instanceof Error ? error.message : String(error));
  }
}
