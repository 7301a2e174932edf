// The `acpkit client` action: everything that needs the ACP SDK (through the test-client package and the terminal
// client) is here, loaded only when the command runs, so that `acpkit run --addr` (a relay) never loads the SDK's
// schemas: their heap puts a relay into constant incremental marking (bench/README.md, "Analysis").
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError, CliErrorCode, type CliRun } from '@acpkit/cli-support';
import { parseAnswerAssignments, parseFormScripts, ScriptedAnswerError } from '@acpkit/testing';
import type { FormScripts } from './automatic-answerer.js';
import { runClient } from './run-client.js';

/** The options of `acpkit client` after commander parsed them. */
export interface ClientCommandOptions {
  yes?: boolean;
  cwd?: string;
  prompt?: string[];
  answer?: string[];
  answers?: string;
  decline?: boolean;
  cancel?: boolean;
  /** `--initialize-timeout` converted to milliseconds. */
  initializeTimeout?: number;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Reads `--answers FILE`: a JSON list with one answer per form. */
function readAnswersFile(file: string, cwd: string): FormScripts {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new CliError(
      CliErrorCode.Usage,
      `--answers ${JSON.stringify(file)} cannot be read: ${(error as Error).message}`,
      { cause: error },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      CliErrorCode.Usage,
      `--answers ${JSON.stringify(file)} is not valid JSON: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return { kind: 'list', scripts: parseFormScripts(value, file), source: file };
}

/** The scripted answers the flags ask for, or undefined when forms are answered by a person or by defaults. */
function scriptsFrom(options: ClientCommandOptions, cwd: string): FormScripts | undefined {
  try {
    if (options.decline) return { kind: 'every-form', script: 'decline', source: '--decline' };
    if (options.cancel) return { kind: 'every-form', script: 'cancel', source: '--cancel' };
    if (options.answers !== undefined) return readAnswersFile(options.answers, cwd);
    if (options.answer !== undefined) {
      return { kind: 'every-form', script: parseAnswerAssignments(options.answer), source: '--answer' };
    }
    return undefined;
  } catch (error) {
    if (!ScriptedAnswerError.isInstance(error)) throw error;
    throw new CliError(CliErrorCode.Usage, error.message, { cause: error });
  }
}

/**
 * Runs `acpkit client` with parsed options: checks `--cwd`, reads the scripted answers, and runs the client.
 *
 * @returns The exit code of the client.
 * @throws {@link CliError} `USAGE` for a `--cwd` that is not a directory or answers that cannot be read.
 * @example
 * ```ts
 * const exitCode = await runClientCommand(['node', 'agent.js'], { prompt: ['Deploy'] }, run, '0.1.0');
 * ```
 */
export async function runClientCommand(
  command: string[],
  options: ClientCommandOptions,
  run: CliRun,
  version: string,
): Promise<number> {
  const cwd = resolve(run.io.cwd, options.cwd ?? '.');
  if (!isDirectory(cwd)) {
    throw new CliError(CliErrorCode.Usage, `--cwd ${JSON.stringify(options.cwd)} is not a directory.`);
  }
  const scripts = scriptsFrom(options, run.io.cwd);
  return runClient({
    command,
    cwd,
    yes: options.yes === true,
    ...(scripts === undefined ? {} : { scripts }),
    prompts: options.prompt ?? [],
    io: run.io,
    version,
    ...(options.initializeTimeout === undefined ? {} : { initializeTimeoutMs: options.initializeTimeout }),
  });
}
