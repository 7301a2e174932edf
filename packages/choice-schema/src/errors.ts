// The errors of the choice compiler, on the one ACP Kit error root (`AcpKitError` from `@acpkit/errors`).
import { AcpKitError, brandErrorClass } from '@acpkit/errors';

/**
 * Codes of {@link ChoiceValidationError}, one per validation rule, checked in this order.
 *
 * @example
 * ```ts
 * import { ChoiceValidationErrorCode } from '@acpkit/choice-schema';
 *
 * const code: ChoiceValidationErrorCode = ChoiceValidationErrorCode.BlankQuestion; // 'BLANK_QUESTION'
 * ```
 */
export const ChoiceValidationErrorCode = {
  /** The question is blank after `trim()`. */
  BlankQuestion: 'BLANK_QUESTION',
  /** No choices were given. */
  EmptyChoices: 'EMPTY_CHOICES',
  /** A choice label is blank after `trim()` (or is not a string). */
  BlankLabel: 'BLANK_LABEL',
  /** Two or more choices are marked `default: true`. */
  MultipleDefaults: 'MULTIPLE_DEFAULTS',
} as const;
/** One of the {@link ChoiceValidationErrorCode} values. */
export type ChoiceValidationErrorCode =
  (typeof ChoiceValidationErrorCode)[keyof typeof ChoiceValidationErrorCode];

/**
 * The question or the choices given to the compiler break a rule; nothing was sent. The message is one of the
 * stable strings `question must not be blank`, `choices must not be empty`, `choice labels must not be blank`,
 * `at most one choice may be the default`.
 *
 * @example
 * ```ts
 * import { ChoiceValidationError, validateChoiceQuestion } from '@acpkit/choice-schema';
 *
 * try {
 *   validateChoiceQuestion('  ', [{ label: 'A' }]);
 * } catch (error) {
 *   if (ChoiceValidationError.isInstance(error)) console.error(error.code); // 'BLANK_QUESTION'
 * }
 * ```
 */
export class ChoiceValidationError extends AcpKitError<ChoiceValidationErrorCode> {
  /** Like `instanceof`, but also true for errors created by another copy of the package. */
  static override readonly isInstance = brandErrorClass(
    ChoiceValidationError,
    'acpkit.error.choice-validation',
  );
  override readonly name: string = 'ChoiceValidationError';
}

/**
 * Codes of {@link InvalidElicitationResponseError}.
 *
 * @example
 * ```ts
 * import { InvalidElicitationResponseErrorCode } from '@acpkit/choice-schema';
 *
 * InvalidElicitationResponseErrorCode.InvalidChoice; // 'INVALID_CHOICE'
 * ```
 */
export const InvalidElicitationResponseErrorCode = {
  /** `accept` without a `content.choice` token issued for this call. */
  InvalidChoice: 'INVALID_CHOICE',
  /** An action other than `accept` / `decline` / `cancel`, or a response that is not an object. */
  UnsupportedAction: 'UNSUPPORTED_ACTION',
  /** `accept` whose `content` does not pass the form's schema; the issues are in `issues`. */
  InvalidContent: 'INVALID_CONTENT',
} as const;
/** One of the {@link InvalidElicitationResponseErrorCode} values. */
export type InvalidElicitationResponseErrorCode =
  (typeof InvalidElicitationResponseErrorCode)[keyof typeof InvalidElicitationResponseErrorCode];

/**
 * One problem found in accepted form content: structurally a zod issue (`code`, `path` into `content`, `message`),
 * so zod's own issues fit without this package depending on zod.
 *
 * @example
 * ```ts
 * import type { ElicitationContentIssue } from '@acpkit/choice-schema';
 *
 * const issue: ElicitationContentIssue = { code: 'too_small', path: ['replicas'], message: 'Too small: expected number to be >=1' };
 * ```
 */
export interface ElicitationContentIssue {
  /** The validator's issue code (zod's, for forms compiled from zod schemas). */
  readonly code: string;
  /** Where in `content` the problem is; `[]` for the content as a whole. */
  readonly path: readonly PropertyKey[];
  /** What is wrong, for logs and for the person. */
  readonly message: string;
}

/**
 * The client's answer to an elicitation is not one the agent can trust: an `accept` without a valid choice token
 * (`INVALID_CHOICE`), form content that fails the form's schema (`INVALID_CONTENT`, with the validator's `issues`),
 * an unknown action, or not an object at all (`UNSUPPORTED_ACTION`). The raw answer is kept in `response` and its
 * `content` in `content`; it is never treated as accepted, declined or cancelled, and nothing is coerced.
 *
 * @example
 * ```ts
 * import { InvalidElicitationResponseError, parseChoiceResponse } from '@acpkit/choice-schema';
 *
 * try {
 *   parseChoiceResponse({ action: 'maybe' }, [{ label: 'A' }]);
 * } catch (error) {
 *   if (InvalidElicitationResponseError.isInstance(error)) console.error(error.code, error.response);
 * }
 * ```
 */
export class InvalidElicitationResponseError extends AcpKitError<InvalidElicitationResponseErrorCode> {
  /** Like `instanceof`, but also true for errors created by another copy of the package. */
  static override readonly isInstance = brandErrorClass(
    InvalidElicitationResponseError,
    'acpkit.error.invalid-elicitation-response',
  );
  override readonly name: string = 'InvalidElicitationResponseError';
  /** The response exactly as the client sent it. */
  readonly response: unknown;
  /** `response.content` exactly as the client sent it (`undefined` when the response had none). */
  readonly content: unknown;
  /** What the form's schema found wrong with `content` (`INVALID_CONTENT`); empty for the other codes. */
  readonly issues: readonly ElicitationContentIssue[];

  constructor(
    code: InvalidElicitationResponseErrorCode,
    message: string,
    response: unknown,
    options?: { cause?: unknown; issues?: readonly ElicitationContentIssue[] | undefined },
  ) {
    super(code, message, options);
    this.response = response;
    this.content =
      typeof response === 'object' && response !== null
        ? (response as { content?: unknown }).content
        : undefined;
    this.issues = options?.issues ?? [];
  }
}
