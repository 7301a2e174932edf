// The errors @acpkit/ai-sdk throws itself: AiSdkAgentError, on the one ACP Kit error root (`@acpkit/errors`); a bad
// option is @acpkit/errors' OptionError, as in every package. Wire errors (a failed prompt) stay the SDK's
// RequestError; see turn/provider-error.ts.
import { AcpKitError, brandErrorClass } from '@acpkit/errors';

/**
 * Stable codes of {@link AiSdkAgentError}. Adding one is a minor change; renaming or removing one is breaking.
 *
 * @example
 * ```ts
 * import { AiSdkAgentErrorCode } from '@acpkit/ai-sdk';
 *
 * AiSdkAgentErrorCode.ToolOutsideSession; // 'TOOL_OUTSIDE_SESSION'
 * ```
 */
export const AiSdkAgentErrorCode = {
  /** A tool made by `askUserTool()` / `formTool()` was run outside an agent made by `createAiSdkAgent`. */
  ToolOutsideSession: 'TOOL_OUTSIDE_SESSION',
} as const;
/** One of the {@link AiSdkAgentErrorCode} values. */
export type AiSdkAgentErrorCode = (typeof AiSdkAgentErrorCode)[keyof typeof AiSdkAgentErrorCode];

/**
 * What `@acpkit/ai-sdk` throws when one of its tools runs without an ACP session (`TOOL_OUTSIDE_SESSION`). A bad
 * option is `@acpkit/errors`' `OptionError` (`INVALID_OPTION`, thrown by the call that got it, before anything runs).
 * Errors of a prompt turn reach the client as JSON-RPC errors instead (the SDK's `RequestError`).
 *
 * @example
 * ```ts
 * import { AiSdkAgentError } from '@acpkit/ai-sdk';
 *
 * function explain(error: unknown): string | undefined {
 *   if (AiSdkAgentError.isInstance(error) && error.code === 'TOOL_OUTSIDE_SESSION') return 'run it in createAiSdkAgent';
 *   return undefined;
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
