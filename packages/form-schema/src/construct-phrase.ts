// How a refused zod construct is named in a message, once for both compilers: the run-time one (`constructPhrase`,
// in FormSchemaError messages) and the type-level one (`ConstructPhrase`, in FieldRefusal compile errors).

/** zod types that read best as the call that makes them ("is z.any()", not "is a any"). */
const FACTORY_KINDS = [
  'any',
  'unknown',
  'undefined',
  'null',
  'nan',
  'void',
  'never',
  'lazy',
  'custom',
  'success',
] as const;

type FactoryKind = (typeof FACTORY_KINDS)[number];

const factoryKinds: ReadonlySet<string> = new Set(FACTORY_KINDS);

type Words<Kind extends string> = Kind extends `${infer Head}_${infer Tail}`
  ? `${Head} ${Words<Tail>}`
  : Kind;

/** {@link constructPhrase} at the type level: `ConstructPhrase<'template_literal'>` is `'a template literal'`. */
export type ConstructPhrase<Kind extends string> = Kind extends FactoryKind
  ? `z.${Kind}()`
  : Kind extends `${'uni' | 'use' | 'usu'}${string}`
    ? `a ${Words<Kind>}`
    : Kind extends `${'a' | 'e' | 'i' | 'o' | 'u'}${string}`
      ? `an ${Words<Kind>}`
      : `a ${Words<Kind>}`;

/**
 * A zod type (`def.type`) as a phrase: `z.any()`, `an intersection`, `a template literal`, `a record`.
 *
 * @example
 * ```ts
 * constructPhrase('template_literal'); // 'a template literal'
 * ```
 */
export function constructPhrase(kind: string): string {
  if (factoryKinds.has(kind)) return `z.${kind}()`;
  const words = kind.replaceAll('_', ' ');
  // "a union": a vowel letter that sounds like "you" takes "a".
  return /^(?!uni|use|usu)[aeiou]/.test(words) ? `an ${words}` : `a ${words}`;
}
