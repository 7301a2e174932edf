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
export class AiSdkAgentError extends AcpKitError<AiSdkAgentErrorCode> {
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

/** The one error every option check throws: names the option, what is allowed and what was given. */
export function invalidOption(option: string, allowed: string, value: unknown): AiSdkAgentError {
  return new AiSdkAgentError(
    AiSdkAgentErrorCode.InvalidOption,
    `${option} must be ${allowed}, got ${describeRejectedValue(value)}.`,
  );
}
