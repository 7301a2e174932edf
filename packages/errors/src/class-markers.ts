// How an error class is recognised across copies of a package: a `Symbol.for` marker per class, on its prototype.
// Markers and the slot a class keeps its marker in are registry symbols, so every copy of this module reads what any
// other copy wrote: two installed copies of a package (or of this one) agree on every error.

/** Where a branded class keeps its marker symbol (own, non-enumerable static property). */
const CLASS_MARKER = Symbol.for('acpkit.class-marker');

/**
 * A class's marker name, `Symbol.for`'s key. One namespace for every ACP Kit error: `acpkit.error` is the root's
 * (`AcpKitError`); every other class uses `acpkit.error.<kebab-name>`, its name without `Acp` and `Error`
 * (`acpkit.error.remote`, `acpkit.error.choice-validation`).
 *
 * @example
 * ```ts
 * import type { AcpKitErrorMarker } from '@acpkit/errors';
 *
 * const marker: AcpKitErrorMarker = 'acpkit.error.remote';
 * ```
 */
export type AcpKitErrorMarker = 'acpkit.error' | `acpkit.error.${string}`;

/** Any error class; its constructor parameters do not matter for branding. */
type ErrorClass<Instance> = abstract new (...args: never[]) => Instance;

/**
 * True when `value` carries `errorClass`'s marker, whichever copy of the package created it. A class that was never
 * branded (say, a user's subclass of one of ours) answers what plain `instanceof` would: the marker a class inherits
 * from its base must not make `Subclass.isInstance(baseError)` true.
 */
export function isBrandedInstance(errorClass: ErrorClass<unknown>, value: unknown): boolean {
  const marker = Object.hasOwn(errorClass, CLASS_MARKER)
    ? (errorClass as unknown as Record<symbol, unknown>)[CLASS_MARKER]
    : undefined;
  if (typeof marker !== 'symbol') return Function.prototype[Symbol.hasInstance].call(errorClass, value);
  return typeof value === 'object' && value !== null && marker in value;
}

/**
 * Puts `Symbol.for(marker)` on the class's prototype and remembers it on the class; returns its `isInstance`. The
 * markers of `families` (branded classes that are not its bases) go on the prototype too, so their `isInstance` and
 * `instanceof` recognise the class's errors as well.
 */
export function brand<Instance>(
  errorClass: ErrorClass<Instance>,
  marker: AcpKitErrorMarker,
  families: readonly ErrorClass<unknown>[] = [],
): (value: unknown) => value is Instance {
  const symbol = Symbol.for(marker);
  Object.defineProperty(errorClass, CLASS_MARKER, { value: symbol });
  // Non-enumerable, on the prototype: instances of the class and of its subclasses have it, logs and JSON do not.
  Object.defineProperty(errorClass.prototype, symbol, { value: true });
  for (const family of families) {
    const familyMarker = Object.hasOwn(family, CLASS_MARKER)
      ? (family as unknown as Record<symbol, unknown>)[CLASS_MARKER]
      : undefined;
    if (typeof familyMarker !== 'symbol') throw new TypeError(`${family.name} is not a branded error class`);
    Object.defineProperty(errorClass.prototype, familyMarker, { value: true });
  }
  return (value: unknown): value is Instance =>
    typeof value === 'object' && value !== null && symbol in value;
}
