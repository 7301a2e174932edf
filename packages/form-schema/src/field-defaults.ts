// A field's default on the wire: `.default()` values mapped to choice tokens, the choices marked default, and the
// checks that the default is one the form can send.
import { choiceToken } from '@acpkit/choice-schema';
import { z } from 'zod';
import type { ChoiceFieldDefinition } from './choice-field.js';
import type { Base, DefaultLayer } from './compile-field-base.js';
import { type FormSchemaError, FormSchemaErrorCode } from './errors.js';
import { refuse, type Schema } from './zod-inspection.js';

function invalidDefault(path: string, problem: string): FormSchemaError {
  return refuse(FormSchemaErrorCode.InvalidDefault, path, 'default', problem);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Whether a `.default()` value stands for an offered value. zod hands out a shallow copy of plain-object and array
 * defaults, so those match an offered value with the same own keys and values; anything else must be the same value.
 */
function standsFor(offered: unknown, value: unknown): boolean {
  if (Object.is(offered, value)) return true;
  if (Array.isArray(offered) && Array.isArray(value)) {
    return offered.length === value.length && offered.every((entry, index) => Object.is(entry, value[index]));
  }
  if (isPlainObject(offered) && isPlainObject(value)) {
    const keys = Object.keys(offered);
    return (
      keys.length === Object.keys(value).length &&
      keys.every((key) => Object.hasOwn(value, key) && Object.is(offered[key], value[key]))
    );
  }
  return false;
}

function choiceTokenOf(definition: ChoiceFieldDefinition, value: unknown, path: string): string {
  const index = definition.choices.findIndex((choice) => standsFor(choice.value, value));
  if (index === -1)
    throw invalidDefault(path, 'has a .default() that is not one of the offered choice values');
  return choiceToken(index);
}

/** The wire `default` of a choice field: from `.default(value)` (mapped to tokens), else the choices marked default. */
export function choiceDefault(
  definition: ChoiceFieldDefinition,
  layer: DefaultLayer | undefined,
  path: string,
): unknown {
  if (layer !== undefined) {
    if (layer.kind === 'prefault') {
      throw invalidDefault(
        path,
        'uses .prefault() on a choice field; use .default(value) or default: true on a choice',
      );
    }
    if (!definition.multiSelect) return choiceTokenOf(definition, layer.value, path);
    if (!Array.isArray(layer.value))
      throw invalidDefault(path, 'has a .default() that is not an array of values');
    return layer.value.map((value) => choiceTokenOf(definition, value, path));
  }
  const tokens = definition.choices.flatMap((choice, index) =>
    choice.default === true ? [choiceToken(index)] : [],
  );
  if (tokens.length === 0) return undefined;
  return definition.multiSelect ? tokens : tokens[0];
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * Refuses a wire default that the client could not send back as a valid answer: a multi-select default outside its
 * own `minItems` / `maxItems`, or any default that the whole field (its checks, refinements and pipes, also those
 * outside the `.default()`) does not accept. `marked` says the default comes from choices marked `default: true`.
 */
export function checkDefault(
  field: Schema,
  base: Base,
  wireDefault: unknown,
  path: string,
  marked: boolean,
): void {
  const source = marked ? 'has choices marked default: true' : 'has a .default()';
  if (Array.isArray(wireDefault)) {
    const { minItems, maxItems } = base.constraints as { minItems?: number; maxItems?: number };
    const count = marked
      ? `has ${plural(wireDefault.length, 'choice')} marked default: true`
      : `has a .default() of ${plural(wireDefault.length, 'pick')}`;
    if (maxItems !== undefined && wireDefault.length > maxItems) {
      throw invalidDefault(path, `${count}, more than its maxItems ${maxItems}`);
    }
    if (minItems !== undefined && wireDefault.length < minItems) {
      throw invalidDefault(path, `${count}, fewer than its minItems ${minItems}`);
    }
  }
  let result: { success: boolean; error?: { issues: readonly { message: string }[] } };
  try {
    result = z.safeParse(field, wireDefault);
  } catch {
    // An asynchronous refinement cannot be checked here; the value is still sent, and checked on the answer.
    return;
  }
  if (!result.success) {
    throw invalidDefault(
      path,
      `${source} that is not a valid answer of the field itself: ${result.error?.issues[0]?.message ?? 'invalid'}`,
    );
  }
}
