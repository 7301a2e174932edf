// The errors `@acpkit/testing` throws, on the one ACP Kit error root (`AcpKitError` from `@acpkit/errors`).
import { AcpKitError, brandErrorClass } from '@acpkit/errors';

/**
 * Stable codes of the `@acpkit/testing` errors. Adding one is a minor change; renaming or removing one is breaking.
 *
 * @example
 * ```ts
 * if (ScriptedAnswerError.isInstance(error) && error.code === TestingErrorCode.UnknownField) console.error(error.message);
 * ```
 */
export const TestingErrorCode = {
  /** A scripted answer names a field the open form does not have. */
  UnknownField: 'UNKNOWN_FIELD',
  /** A scripted value matches no option, cannot be read as the field's type, or fails the field's validation. */
  InvalidAnswer: 'INVALID_ANSWER',
  /** The form has a required field without a default, and the script gives it no value. */
  MissingAnswer: 'MISSING_ANSWER',
  /** The agent asked one form more than the list of per-form scripts holds. */
  NoScriptLeft: 'NO_SCRIPT_LEFT',
  /** A script is malformed (not an object, `"decline"` or `"cancel"`; a value of the wrong JSON type; bad JSON). */
  InvalidScript: 'INVALID_SCRIPT',
  /** The agent command is empty. */
  InvalidCommand: 'INVALID_COMMAND',
  /** The agent command could not be started (not found, not executable). */
  AgentStartFailed: 'AGENT_START_FAILED',
  /** The agent process ended, or closed its stdout, before the conversation was over. */
  AgentExited: 'AGENT_EXITED',
  /** The agent wrote something other than JSON-RPC to stdout and did not answer `initialize`. */
  NotAnAcpAgent: 'NOT_AN_ACP_AGENT',
  /** The agent did not answer `initialize` within the time allowed (`initializeTimeoutMs`, `--initialize-timeout`). */
  InitializeTimeout: 'INITIALIZE_TIMEOUT',
  /** A scripted answer names a field by a title that several fields of the form share. */
  AmbiguousField: 'AMBIGUOUS_FIELD',
} as const;
/** Union of the {@link TestingErrorCode} values. */
export type TestingErrorCode = (typeof TestingErrorCode)[keyof typeof TestingErrorCode];

/**
 * Base class of the errors `@acpkit/testing` throws, an `AcpKitError` (the root of every ACP Kit error). Branch on
 * {@link TestingError.code}, not on the message.
 *
 * @example
 * ```ts
 * try {
 *   await client.prompt('Deploy');
 * } catch (error) {
 *   if (TestingError.isInstance(error)) console.error(`${error.code}: ${error.message}`);
 * }
 * ```
 */
export class TestingError extends AcpKitError<TestingErrorCode> {
  /** Like `instanceof`, but also true for errors created by another copy of this package. */
  static override readonly isInstance = brandErrorClass(TestingError, 'acpkit.error.testing');
  override readonly name: string = 'TestingError';
}

/**
 * One way a script does not fit a form: its code, the field concerned (property name, or the script's key when it
 * names no field) and a message that names the form and the field.
 *
 * @example
 * ```ts
 * const problem: ScriptProblem = { code: 'MISSING_ANSWER', field: 'name', message: 'The form … needs an answer …' };
 * ```
 */
export interface ScriptProblem {
  readonly code: TestingErrorCode;
  readonly field: string | undefined;
  readonly message: string;
}

/**
 * A scripted answer does not fit the form the agent sent: it names no field of it, its value is not valid for the
 * field, a required field got no value, or the scripts ran out. The message names the form and the field; when
 * several fields of one form do not fit, it lists them all (one line each), `problems` holds each, and `code` and
 * `field` are the first one's. Codes: `UNKNOWN_FIELD`, `AMBIGUOUS_FIELD`, `INVALID_ANSWER`, `MISSING_ANSWER`,
 * `NO_SCRIPT_LEFT`, `INVALID_SCRIPT`.
 *
 * @example
 * ```ts
 * try {
 *   answerFormWithScript(request, { Target: 'Staging' });
 * } catch (error) {
 *   if (ScriptedAnswerError.isInstance(error)) console.error(error.form, error.field, error.message);
 * }
 * ```
 */
export class ScriptedAnswerError extends TestingError {
  /** Like `instanceof`, but also true for errors created by another copy of this package. */
  static override readonly isInstance = brandErrorClass(ScriptedAnswerError, 'acpkit.error.scripted-answer');
  override readonly name: string = 'ScriptedAnswerError';
  /** How the form is named in the message: its title, else the agent's question. */
  readonly form: string | undefined;
  /** The field concerned (property name), when there is one. */
  readonly field: string | undefined;
  /** Every way the script does not fit the form (one entry unless several fields failed at once). */
  readonly problems: readonly ScriptProblem[];

  constructor(
    code: TestingErrorCode,
    message: string,
    details: { form?: string; field?: string; problems?: readonly ScriptProblem[]; cause?: unknown } = {},
  ) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    this.form = details.form;
    this.field = details.field;
    this.problems = details.problems ?? [{ code, field: details.field, message }];
  }
}

/**
 * The agent process could not be started, ended early, is not speaking ACP on stdout, or did not answer `initialize`
 * in time. Codes: `INVALID_COMMAND`, `AGENT_START_FAILED`, `AGENT_EXITED`, `NOT_AN_ACP_AGENT`, `INITIALIZE_TIMEOUT`.
 *
 * @example
 * ```ts
 * try {
 *   await spawnTestClient(['node', 'agent.js']);
 * } catch (error) {
 *   if (AgentProcessError.isInstance(error) && error.code === TestingErrorCode.AgentStartFailed) console.error(error.message);
 * }
 * ```
 */
export class AgentProcessError extends TestingError {
  /** Like `instanceof`, but also true for errors created by another copy of this package. */
  static override readonly isInstance = brandErrorClass(AgentProcessError, 'acpkit.error.agent-process');
  override readonly name: string = 'AgentProcessError';
}
