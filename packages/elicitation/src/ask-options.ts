import type { FormStringFormat } from '@acpkit/form-schema';
import type { ChoiceValueEquals, ElicitationFallback } from './fallback.js';

/**
 * What every `ask*` method accepts.
 *
 * @example
 * ```ts
 * import { ElicitationDeclined, type AskOptions } from '@acpkit/elicitation';
 *
 * const options: AskOptions<boolean> = { signal: AbortSignal.timeout(300_000), fallback: () => new ElicitationDeclined() };
 * ```
 */
export interface AskOptions<T> {
  /**
   * Runs only when the client does not support form elicitation (not advertised, or `-32601`); must return a
   * result variant of the question's value type. Without it such a client gets `ElicitationUnsupportedError`.
   */
  readonly fallback?: ElicitationFallback<T> | undefined;
  /** Aborting sends `$/cancel_request` and rejects with `signal.reason`. There is no default timeout. */
  readonly signal?: AbortSignal | undefined;
  /** Tool call the question belongs to, so the client can show it beside that tool call. */
  readonly toolCallId?: string | undefined;
}

/**
 * Options of `AcpSessionContext.askChoice`.
 *
 * @example
 * ```ts
 * import { ElicitationCancelled, type AskChoiceOptions } from '@acpkit/elicitation';
 *
 * const options: AskChoiceOptions<string> = {
 *   signal: AbortSignal.timeout(300_000),
 *   fallback: () => new ElicitationCancelled(),
 * };
 * ```
 */
export interface AskChoiceOptions<T> extends AskOptions<T> {
  /** Structural match for a fallback's accepted value, tried after `Object.is`; a throwing call is no match. */
  readonly equals?: ChoiceValueEquals<T> | undefined;
}

/**
 * Options of `AcpSessionContext.askForm`: the fallback returns a result of the form's value type.
 *
 * @example
 * ```ts
 * import { ElicitationAccepted, type AskFormOptions } from '@acpkit/elicitation';
 *
 * const options: AskFormOptions<{ version: string }> = {
 *   fallback: () => new ElicitationAccepted({ version: '1.5.0' }),
 * };
 * ```
 */
export interface AskFormOptions<T> extends AskOptions<T> {}

/**
 * Texts of the one field `askConfirm`, `askText` and `askChoices` send.
 *
 * @example
 * ```ts
 * import type { AskFieldText } from '@acpkit/elicitation';
 *
 * const text: AskFieldText = { title: 'Publish', description: 'Pushes the tags and publishes to npm.' };
 * ```
 */
export interface AskFieldText {
  /** The field's title; defaults to `Confirm`, `Answer` or `Choices`. */
  readonly title?: string | undefined;
  /** The field's description. */
  readonly description?: string | undefined;
}

/**
 * Options of `AcpSessionContext.askConfirm`.
 *
 * @example
 * ```ts
 * import type { AskConfirmOptions } from '@acpkit/elicitation';
 *
 * const options: AskConfirmOptions = { default: false, title: 'Publish' };
 * ```
 */
export interface AskConfirmOptions extends AskOptions<boolean>, AskFieldText {
  /** Preselected answer; with it the client may leave the field out and this value is the answer. */
  readonly default?: boolean | undefined;
}

/**
 * Options of `AcpSessionContext.askText`; the constraints are sent to the client and checked on the answer.
 *
 * @example
 * ```ts
 * import type { AskTextOptions } from '@acpkit/elicitation';
 *
 * const options: AskTextOptions = { minLength: 1, maxLength: 72, pattern: '^[^\\n]*$' };
 * ```
 */
export interface AskTextOptions extends AskOptions<string>, AskFieldText {
  /** Prefilled answer; with it the client may leave the field out and this value is the answer. */
  readonly default?: string | undefined;
  readonly minLength?: number | undefined;
  readonly maxLength?: number | undefined;
  /** A regular expression (a string is compiled with the `u` flag); flags `i`, `m`, `s`, `y`, `v` are refused. */
  readonly pattern?: string | RegExp | undefined;
  /** `email`, `uri`, `date` or `date-time` (RFC 3339, offsets allowed). */
  readonly format?: FormStringFormat | undefined;
}

/**
 * Options of `AcpSessionContext.askChoices`.
 *
 * @example
 * ```ts
 * import type { AskChoicesOptions } from '@acpkit/elicitation';
 *
 * const options: AskChoicesOptions<string> = { minItems: 1, maxItems: 3, title: 'Packages' };
 * ```
 */
export interface AskChoicesOptions<T> extends AskOptions<T[]>, AskFieldText {
  /** At least this many picks. */
  readonly minItems?: number | undefined;
  /** At most this many picks. */
  readonly maxItems?: number | undefined;
  /** Structural match for each value a fallback accepted, tried after `Object.is`. */
  readonly equals?: ChoiceValueEquals<T> | undefined;
}
