// Reading a zod schema for the form compiler: its checks, bounds and annotations, and the refusal every rule throws.
import { z } from 'zod';
import { FormSchemaError, FormSchemaErrorCode } from './errors.js';
import type { FormStringFormat } from './form-wire-types.js';

/** A zod schema, as the compiler reads it (zod's core type). */
export type Schema = z.core.$ZodType;
/** A check of a schema, as its definition (`.min()`, `.regex()`, a string format, …). */
type CheckDefinition = z.core.$ZodCheckDef & Record<string, unknown>;

// ACP's string formats and the zod formats that mean them; the zod check stays authoritative on the answer.
export const ACP_FORMATS: Readonly<Record<string, FormStringFormat>> = {
  email: 'email',
  url: 'uri',
  date: 'date',
  datetime: 'date-time',
};
// Flags whose absence or presence does not change what a regular expression accepts in `test()` (`u` is how
// JSON Schema readers compile `pattern` anyway).
export const HARMLESS_REGEX_FLAGS = new Set(['u', 'g', 'd']);
// Number formats whose range is worth sending; the safe-integer and float64 ranges are just "any number".
export const SENT_NUMBER_FORMAT_RANGES = new Set(['int32', 'uint32', 'float32']);
const MAX_QUOTED_LENGTH = 100;

function quote(value: string): string {
  return JSON.stringify(value.length > MAX_QUOTED_LENGTH ? `${value.slice(0, MAX_QUOTED_LENGTH)}…` : value);
}

export function refuse(
  code: FormSchemaErrorCode,
  path: string,
  construct: string,
  problem: string,
): FormSchemaError {
  const where = path === '' ? 'The form schema' : `Property ${quote(path)}`;
  return new FormSchemaError(code, `${where} ${problem}`, { path, construct });
}

export function isZodSchema(value: unknown): value is Schema {
  if (typeof value !== 'object' || value === null || !('_zod' in value)) return false;
  const internals = (value as { _zod: unknown })._zod;
  return typeof internals === 'object' && internals !== null && 'def' in internals;
}

/** A schema's checks; a format schema such as `z.email()` is its own first check, as zod itself treats it. */
export function checksOf(schema: Schema): CheckDefinition[] {
  const def = schema._zod.def as z.core.$ZodTypeDef & { check?: string };
  const own = typeof def.check === 'string' ? [def as unknown as CheckDefinition] : [];
  return [...own, ...(def.checks ?? []).map((check) => check._zod.def as CheckDefinition)];
}

export function isValidationOnly(check: CheckDefinition): boolean {
  // `.refine()` / `.superRefine()` / `.check(fn)` and value rewrites (`.trim()`, `.toLowerCase()`) run on the
  // answer only: nothing on the wire could say them.
  return check.check === 'custom' || check.check === 'overwrite';
}

export function unsupportedCheck(path: string, check: CheckDefinition, hint: string): FormSchemaError {
  const construct = check.check === 'string_format' ? String(check.format) : check.check;
  return refuse(
    FormSchemaErrorCode.UnsupportedCheck,
    path,
    construct,
    `uses the check ${construct}, which ACP forms cannot send; ${hint}`,
  );
}

export function refuseChecksOtherThanValidation(schema: Schema, path: string): void {
  for (const check of checksOf(schema)) {
    if (!isValidationOnly(check)) {
      throw unsupportedCheck(path, check, 'use .refine() to check it on the answer');
    }
  }
}

export function checkBounds(
  path: string,
  low: number | undefined,
  high: number | undefined,
  what: string,
): void {
  if (low !== undefined && high !== undefined && low > high) {
    throw refuse(
      FormSchemaErrorCode.ImpossibleBounds,
      path,
      what,
      `can never be answered: its ${what} minimum ${low} is above its maximum ${high}`,
    );
  }
}

export interface Annotations {
  title?: string;
  description?: string;
}

export function annotate(annotations: Annotations, schema: Schema): void {
  // `.meta()` and `.describe()` write zod's global registry; the outermost layer that has a value wins.
  const metadata = z.globalRegistry.get(schema) as Record<string, unknown> | undefined;
  if (metadata === undefined) return;
  if (annotations.title === undefined && typeof metadata.title === 'string')
    annotations.title = metadata.title;
  if (annotations.description === undefined && typeof metadata.description === 'string') {
    annotations.description = metadata.description;
  }
}

export type Constraints = Record<string, unknown>;

/** The tightest bounds of zod's length checks, which strings and arrays share. */
export interface LengthBounds {
  minimum?: number;
  maximum?: number;
}

/** Folds a `.min()` / `.max()` / `.length()` check into `bounds`; false when `check` is another kind of check. */
export function foldLength(bounds: LengthBounds, check: CheckDefinition): boolean {
  const raise = (value: number) => {
    bounds.minimum = Math.max(bounds.minimum ?? 0, value);
  };
  const lower = (value: number) => {
    bounds.maximum = Math.min(bounds.maximum ?? Number.POSITIVE_INFINITY, value);
  };
  switch (check.check) {
    case 'min_length':
      raise(check.minimum as number);
      return true;
    case 'max_length':
      lower(check.maximum as number);
      return true;
    case 'length_equals':
      raise(check.length as number);
      lower(check.length as number);
      return true;
    default:
      return false;
  }
}

/**
 * The regular expression of a `z.iso.datetime()` check that accepts something other than ACP's `date-time` (RFC 3339
 * with a `Z` or an offset): without `offset: true` zod accepts only `Z`, `precision` fixes the digits of the
 * fraction, and `local` also accepts times without any offset (which no `date-time` client would send). `undefined`
 * for `{ offset: true }` alone, which accepts what the format means.
 */
export function narrowerDateTime(check: CheckDefinition): { pattern: string; local: boolean } | undefined {
  if (check.format !== 'datetime' || !(check.pattern instanceof RegExp)) return undefined;
  const local = check.local === true;
  const exact =
    check.offset === true && !local && (check.precision === undefined || check.precision === null);
  return exact ? undefined : { pattern: check.pattern.source, local };
}
