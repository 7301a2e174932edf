// The answer rules now live in @acpkit/form-schema, shared with the terminal and web clients; re-exported here.
export {
  compilePattern,
  MAX_PATTERN_INPUT_LENGTH,
  MAX_PATTERN_LENGTH,
  NOT_A_DECIMAL_NUMBER,
  type ParsedInput,
  parseDecimal,
  parseFieldInput,
  validateFieldValue,
} from '@acpkit/form-schema';
