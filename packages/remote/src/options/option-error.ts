// The INVALID_OPTION error every option check throws, with the value described but never echoed.
import { describeRejectedValue } from '@acpkit/errors';
import { AcpRemoteError, AcpRemoteErrorCode } from '../shared/errors.js';
import { redactUrls } from '../shared/logger.js';

/** How a rejected value is shown in an error message: JSON, shortened, URL secrets redacted. */
export function describeOptionValue(value: unknown): string {
  return describeRejectedValue(value, { rewrite: redactUrls });
}

/**
 * The one error every option check throws: `INVALID_OPTION`, with a message naming the option, what is allowed and
 * what was given (`shown` replaces the value for secrets, which are never echoed).
 */
export function invalidOption(
  option: string,
  allowed: string,
  value: unknown,
  options: { shown?: string; cause?: unknown } = {},
): AcpRemoteError {
  return new AcpRemoteError(
    AcpRemoteErrorCode.InvalidOption,
    `${option} must be ${allowed}, got ${options.shown ?? describeOptionValue(value)}`,
    options.cause === undefined ? undefined : { cause: options.cause },
  );
}
