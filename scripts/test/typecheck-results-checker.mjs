#!/usr/bin/env node
// A `typecheck.checker` for vitest's type tests (`*.test-d.ts`) in the test command. Vitest runs its checker
// as `tsc --noEmit --pretty false …` in the project folder and reads that output; `tsc --noEmit` with the
// package's tsconfig.json is exactly what the typecheck step (scripts/typecheck.mjs, all packages in one process)
// does for every package, so this prints that step's result for the folder instead of running a second `tsc` over
// it. It runs the package's own `tsc` with the arguments it got when there is no results folder
// (ACPKIT_TYPECHECK_RESULTS) or the step ended without checking this folder.
import { spawn } from 'node:child_process';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TYPECHECK_RESULTS_VARIABLE, waitForTypecheckResult } from './typecheck-results.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const directory = process.env[TYPECHECK_RESULTS_VARIABLE];
const result = directory ? await waitForTypecheckResult(directory, relative(root, process.cwd())) : undefined;

if (result) {
  process.stdout.write(result.output);
  process.exitCode = result.exitCode;
} else {
  const tsc = spawn(join(process.cwd(), 'node_modules', '.bin', 'tsc'), process.argv.slice(2), {
    stdio: 'inherit',
  });
  tsc.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
