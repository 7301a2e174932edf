/**
 * Public surface of @acpkit/errors: the root of every ACP Kit error. Every export here is public API: named exports
 * only.
 */
export { AcpKitError, type AcpKitErrorMarker, brandErrorClass } from './acp-kit-error.js';
export { type DescribeRejectedValueOptions, describeRejectedValue } from './describe-value.js';
export {
  invalidOption,
  isPlainObject,
  optionalBoolean,
  optionalFunction,
  optionalString,
  positiveInteger,
  requiredString,
} from './option-checks.js';
export { OptionError, OptionErrorCode, type OptionErrorOptions } from './option-error.js';
