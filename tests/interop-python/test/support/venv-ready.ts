// The setup file of tests/interop-python in the test command: each file waits here, outside every hook's timeout, for
// the test command's venv step (a fresh machine builds the venv while the other suites already run), then checks the
// venv as the global setup does outside the test command.
import { ensurePythonVenv } from '../../../../scripts/python-venv.mjs';
import { waitForStep } from '../../../../scripts/test/step-markers.mjs';
import { recordVenvError } from './venv.js';

const step = await waitForStep('python-venv');
if (step !== undefined) {
  if (!step.ok) {
    recordVenvError(
      `the test command's "python interop venv" step failed (${step.detail}): see .test-output/logs/python-interop-venv.log`,
    );
  } else {
    try {
      ensurePythonVenv();
      recordVenvError('');
    } catch (error) {
      recordVenvError(error instanceof Error ? error.message : String(error));
    }
  }
}
