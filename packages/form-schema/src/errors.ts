// The errors of the form compiler, on the one ACP Kit error root (`AcpKitError` from `@acpkit/errors`).
import { AcpKitError, brandErrorClass } from '@acpkit/errors';

/**
 * Codes of {@link FormSchemaError}: one per kind of zod construct an ACP form cannot express.
 *
 * @example
 * ```ts
 * import { FormSchemaErrorCode } from '@acpkit/form-schema';
 *
 * FormSchemaErrorCode.NestedObject; // 'NESTED_OBJECT'
 * ```
 */
export const FormSchemaErrorCode = {
  /** The schema given is not a zod 4 `z.object(...)`. */
  NotAnObjectSchema: 'NOT_AN_OBJECT_SCHEMA',
  /** A property is itself an object: ACP forms are flat. */
  NestedObject: 'NESTED_OBJECT',
  /** A property is `.nullable()` (or `.nullish()`): ACP answers never contain `null`. */
  Nullable: 'NULLABLE',
  /** A property's type has no ACP form field: record, tuple, union, date, bigint, `.catch()`, `z.coerce`, … */
  UnsupportedType: 'UNSUPPORTED_TYPE',
  /** A transform or preprocess whose input is not a form field type. */
  UnsupportedTransform: 'UNSUPPORTED_TRANSFORM',
  /** A built-in check with no ACP keyword (`.multipleOf()`, a string format without a regular expression, …). */
  UnsupportedCheck: 'UNSUPPORTED_CHECK',
  /** An exclusive bound (`.gt()`, `.lt()`, `.positive()`) on a non-integer number. */
  ExclusiveBound: 'EXCLUSIVE_BOUND',
  /** More than one regular expression on one string (`pattern` holds exactly one). */
  MultiplePatterns: 'MULTIPLE_PATTERNS',
  /** Two different ACP formats on one string (for example `.email()` and `.url()`). */
  MultipleFormats: 'MULTIPLE_FORMATS',
  /** A regular expression with a flag the wire `pattern` cannot carry (`i`, `m`, `s`, `y`, `v`). */
  UnsupportedRegexFlags: 'UNSUPPORTED_REGEX_FLAGS',
  /** A `z.enum` or `z.literal` with a value that is not a string. */
  NonStringEnum: 'NON_STRING_ENUM',
  /** A `.default()` that is not a valid answer of its own field (or not an offered choice value). */
  InvalidDefault: 'INVALID_DEFAULT',
  /** Bounds no answer can meet: a minimum above the maximum, or more picks required than options offered. */
  ImpossibleBounds: 'IMPOSSIBLE_BOUNDS',
} as const;
/** One of the {@link FormSchemaErrorCode} values. */
export type FormSchemaErrorCode = (typeof FormSchemaErrorCode)[keyof typeof FormSchemaErrorCode];

/**
 * A zod schema given to the form compiler uses a construct that ACP forms cannot express; nothing was sent.
 * `path` names the property (`tags[]` for the items of an array property, `''` for the schema itself) and
 * `construct` the zod construct (`object`, `record`, `nullable`, `multiple_of`, `regex`, …). The message says what
 * to use instead.
 *
 * @example
 * ```ts
 * import { compileForm, FormSchemaError } from '@acpkit/form-schema';
 * import { z } from 'zod';
 *
 * try {
 *   compileForm(z.object({ owner: z.object({ name: z.string() }) }));
 * } catch (error) {
 *   if (FormSchemaError.isInstance(error)) console.error(error.code, error.path, error.construct); // NESTED_OBJECT owner object
 * }
 * ```
 */
export class FormSchemaError extends AcpKitError<FormSchemaErrorCode> {
  /** Like `instanceof`, but also true for errors created by another copy of the package. */
  static override readonly isInstance = brandErrorClass(FormSchemaError, 'acpkit.error.form-schema');
  override readonly name: string = 'FormSchemaError';
  /** The property path: `name`, `name[]` for array items, `''` for the whole schema. */
  readonly path: string;
  /** The zod construct that was refused: a zod type (`def.type`), a check name, or `regex`. */
  readonly construct: string;

  constructor(
    code: FormSchemaErrorCode,
    message: string,
    details: { readonly path: string; readonly construct: string },
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.path = details.path;
    this.construct = details.construct;
  }
}
