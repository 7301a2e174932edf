// One branding mechanism for every ACP Kit error class. Each published package bundles its own copy of this file
// (tsup `noExternal`), so nothing here may depend on module state: markers are registry symbols (`Symbol.for`), and a
// class keeps its marker under a registry symbol too, so every copy reads what any other copy wrote.

/** Where a branded class keeps its marker symbol (own, non-enumerable static property). */
const CLASS_MARKER = Symbol.for('acpkit.class-marker');

/**
 * The one namespace of error markers: `acpkit.error` is the elicitation family's base (`AcpKitError`); every other
 * class uses `acpkit.error.<kebab-name>` (class name without `Acp` and `Error`: `acpkit.error.remote`,
 * `acpkit.error.choice-validation`).
 */
export type ErrorMarker = 'acpkit.error' | `acpkit.error.${string}`;

/** Any class; constructor parameters do not matter for branding. */
export type BrandableClass = abstract new (...args: never[]) => object;

/**
 * Brands a class with `Symbol.for(marker)`: its prototype carries the marker (so instances of the class and of its
 * subclasses have it, non-enumerable, out of logs and JSON), and the class remembers it for
 * {@link isBrandedInstance}. Call it once per class, from a static block:
 *
 * @example
 * ```ts
 * class RemoteError extends Error {
 *   static {
 *     brandErrorClass(RemoteError, 'acpkit.error.remote');
 *   }
 * }
 * ```
 */
export function brandErrorClass(errorClass: BrandableClass, marker: ErrorMarker): void {
  const symbol = Symbol.for(marker);
  Object.defineProperty(errorClass, CLASS_MARKER, { value: symbol });
  Object.defineProperty(errorClass.prototype, symbol, { value: true });
}

/**
 * True when `value` carries `errorClass`'s marker, whichever copy of the package created it. For a class that was
 * never branded (say, a user's subclass of one of ours) it answers what plain `instanceof` would: the marker a class
 * inherits from its base must not make `Subclass.isInstance(baseError)` true.
 *
 * @example
 * ```ts
 * class RemoteError extends Error {
 *   static {
 *     brandErrorClass(RemoteError, 'acpkit.error.remote');
 *   }
 *   static isInstance(value: unknown): value is RemoteError {
 *     return isBrandedInstance(RemoteError, value);
 *   }
 *   static override [Symbol.hasInstance](value: unknown): boolean {
 // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of instanceof, a subclass too
 *     return isBrandedInstance(this, value);
 *   }
 * }
 * ```
 */
export function isBrandedInstance(errorClass: BrandableClass, value: unknown): boolean {
  const marker = Object.hasOwn(errorClass, CLASS_MARKER)
    ? (errorClass as unknown as Record<symbol, unknown>)[CLASS_MARKER]
    : undefined;
  if (typeof marker !== 'symbol') return Function.prototype[Symbol.hasInstance].call(errorClass, value);
  return typeof value === 'object' && value !== null && marker in value;
}
