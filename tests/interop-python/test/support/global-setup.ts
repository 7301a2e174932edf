import type { TestProject } from 'vitest/node';
import { ensurePythonVenv } from '../../../../scripts/python-venv.mjs';
import { STEP_MARKERS_VARIABLE } from '../../../../scripts/test/step-markers.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Why the venv of the real Python ACP Kit could not be built (pip's output), or '' when it is ready. */
    pythonVenvError: string;
  }
}

/**
 * Builds or reuses the venv once for the whole project. An installation failure is handed to every test, which fails
 * with it: never a skip, and the other vitest projects still run. In the test command its own step builds the venv
 * while the suites run, and each file waits for that step in test/support/venv-ready.ts instead: a global setup runs
 * before any test of any project, so waiting here would hold them all.
 */
export function setup(project: TestProject): void {
  if (process.env[STEP_MARKERS_VARIABLE]) {
    project.provide('pythonVenvError', '');
    return;
  }
  try {
    ensurePythonVenv();
    project.provide('pythonVenvError', '');
  } catch (error) {
    project.provide('pythonVenvError', error instanceof Error ? error.message : String(error));
  }
}
