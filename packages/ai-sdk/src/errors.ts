// The errors @acpkit/ai-sdk throws itself: one class, AiSdkAgentError, on the one ACP Kit error root
// (`@acpkit/errors`). Wire errors (a failed prompt) stay the SDK's RequestError; see turn/provider-error.ts.
import { AcpKitError, brandErrorClass, describeRejectedValue } from '@acpkit/errors';

/**
 * Stable codes of {@link AiSdkAgentError}. Adding one is a minor change; renaming or removing one is breaking.
 *
 * @example
 * ```ts
 * import { AiSdkAgentErrorCode } from '@acpkit/ai-sdk';
 *
 * AiSdkAgentErrorCode.InvalidOption; // 'INVALID_OPTION'
 * ```
 */
export const AiSdkAgentErrorCode = {
  /** An option of `createAiSdkAgent`, `askUserTool` or `formTool` is missing or out of range. */
  InvalidOption: 'INVALID_OPTION',
  /** A tool made by `askUserTool()` / `formTool()` was run outside an agent made by `createAiSdkAgent`. */
  ToolOutsideSession: 'TOOL_OUTSIDE_SESSION',
} as const;
/** One of the {@link AiSdkAgentErrorCode} values. */
export type AiSdkAgentErrorCode = (typeof AiSdkAgentErrorCode)[keyof typeof AiSdkAgentErrorCode];

/**
 * What `@acpkit/ai-sdk` throws when it is used wrongly: a bad option (`INVALID_OPTION`, thrown by the call that got
 * it, before anything runs) or an ACP tool run without an ACP session (`TOOL_OUTSIDE_SESSION`). Errors of a prompt
 * turn reach the client as JSON-RPC errors instead (the SDK's `RequestError`).
 *
 * @example
 * ```ts
 * import { AiSdkAgentError, createAiSdkAgent } from '@acpkit/ai-sdk';
 * import type { LanguageModel } from 'ai';
 *
 * declare const model: LanguageModel;
 * try {
 *   createAiSdkAgent({ name: 'helper', version: '1.0.0', model, maxSteps: 0 });
 * } catch (error) {
 *   if (AiSdkAgentError.isInstance(error)) console.error(error.code, error.message); // INVALID_OPTION …
 * }
 * ```
 */
export class AiSdkAgentError<
  Code extends AiSdkAgentErrorCode = AiSdkAgentErrorCode,
> extends AcpKitError<Code> {
  /**
   * Like `instanceof`, but also true for errors created by another copy of the package.
   *
   * @example
   * ```ts
   * import { AiSdkAgentError } from '@acpkit/ai-sdk';
   *
   * AiSdkAgentError.isInstance(new Error('x')); // false
   * ```
   */
  static override readonly isInstance = brandErrorClass(AiSdkAgentError, 'acpkit.error.ai-sdk-agent');
  override readonly name: string = 'AiSdkAgentError';
}

/**
 * An option of `@acpkit/ai-sdk` is missing or out of range: an `AiSdkAgentError` with code `INVALID_OPTION` whose
 * fields say which option (as you spell it: `maxSteps`, `model`, `tools`, `description`), what it allows and how the
 * given value looked. Branch on `option`, not on the message.
 *
 * @example
 * ```ts
 * import { AiSdkOptionError, createAiSdkAgent } from '@acpkit/ai-sdk';
 * import type { LanguageModel } from 'ai';
 *
 * declare const model: LanguageModel;
 * try {
 *   createAiSdkAgent({ name: 'helper', version: '1.0.0', model, maxSteps: 0 });
 * } catch (error) {
 *   if (AiSdkOptionError.isInstance(error)) console.error(error.option); // 'maxSteps'
 * }
 * ```
 */
export class AiSdkOptionError extends AiSdkAgentError<typeof AiSdkAgentErrorCode.InvalidOption> {
  /**
   * Like `instanceof`, but also true for errors created by another copy of the package.
   *
   * @example
   * ```ts
   * import { AiSdkOptionError } from '@acpkit/ai-sdk';
   *
   * AiSdkOptionError.isInstance(new Error('x')); // false
   * ```
   */
  static override readonly isInstance = brandErrorClass(AiSdkOptionError, 'acpkit.error.ai-sdk-option');
  override readonly name: string = 'AiSdkOptionError';
  /** The option as it is spelled in the options object (`maxSteps`, `model`, `tools`, …). */
  readonly option: string;
  /** What the option allows, in words (`a positive integer`, …). */
  readonly expected: string;
  /** How the rejected value looked: JSON, shortened. */
  readonly received: string;

  constructor(
    option: string,
    expected: string,
    received: string,
    options: { label?: string; cause?: unknown } = {},
  ) {
    super(
      AiSdkAgentErrorCode.InvalidOption,
      `${options.label ?? option} must be ${expected}, got ${received}.`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.option = option;
    this.expected = expected;
    this.received = received;
  }
}

/**
 * The one error every option check throws. `label` names the option in the message when it needs its context
 * (`tools.search`, `askUserTool description`) while `option` stays the option's own name.
 */
export function invalidOption(
  option: string,
  allowed: string,
  value: unknown,
  options: { label?: string } = {},
): AiSdkOptionError {
  return new AiSdkOptionError(option, allowed, describeRejectedValue(value), options);
}
