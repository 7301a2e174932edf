import type { ChoiceDefinition } from '@acpkit/choice-schema';

const ACCEPTED_BRAND = Symbol.for('acpkit.elicitation.choice-accepted');
const DECLINED_BRAND = Symbol.for('acpkit.elicitation.choice-declined');
const CANCELLED_BRAND = Symbol.for('acpkit.elicitation.choice-cancelled');

function hasBrand(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/** Brands and freezes a result: the brand (never the shape) is what recognises it, also across package copies. */
function seal(target: object, brand: symbol): void {
  Object.defineProperty(target, brand, { value: true });
  Object.freeze(target);
}

/**
 * Where a result came from: `client` when the ACP client answered (or cancelled), `fallback` when a fallback (or
 * any user code) built it.
 *
 * @example
 * ```ts
 * import { ChoiceElicitationDeclined, type ChoiceElicitationSource } from '@acpkit/elicitation';
 *
 * const source: ChoiceElicitationSource = new ChoiceElicitationDeclined().source; // 'fallback'
 * ```
 */
export type ChoiceElicitationSource = 'client' | 'fallback';

/**
 * One choice offered to the user: a typed `value` (any type; never serialized or sent) and what the client shows.
 *
 * @example
 * ```ts
 * import type { ElicitationChoice } from '@acpkit/elicitation';
 *
 * const production: ElicitationChoice<'production'> = {
 *   value: 'production',
 *   label: 'Production',
 *   description: 'Deploy to the production environment.',
 *   default: true,
 * };
 * ```
 */
export interface ElicitationChoice<T> extends ChoiceDefinition {
  /** The application value returned when this choice is picked. */
  readonly value: T;
}

/**
 * The user picked a choice; `value` is the offered value itself (the same object, not a copy).
 * `new ChoiceElicitationAccepted(value)` in a fallback builds one with `source: 'fallback'`.
 *
 * @example
 * ```ts
 * import { ChoiceElicitationAccepted } from '@acpkit/elicitation';
 *
 * const result = new ChoiceElicitationAccepted('preview');
 * result.status; // 'accepted'
 * result.source; // 'fallback'
 * ```
 */
export class ChoiceElicitationAccepted<T> {
  /** Discriminant for `switch (result.status)`. */
  readonly status = 'accepted' as const;
  /** The picked choice's value. */
  readonly value: T;
  /** Where the answer came from. */
  readonly source: ChoiceElicitationSource;

  constructor(value: T, source: ChoiceElicitationSource = 'fallback') {
    this.value = value;
    this.source = source;
    seal(this, ACCEPTED_BRAND);
  }

  /**
   * True for any accepted result, also one created by another copy of this package.
   *
   * @example
   * ```ts
   * import { ChoiceElicitationAccepted } from '@acpkit/elicitation';
   *
   * ChoiceElicitationAccepted.isInstance({ status: 'accepted', value: 1 }); // false: shape is not enough
   * ```
   */
  static isInstance(value: unknown): value is ChoiceElicitationAccepted<unknown> {
    return hasBrand(value, ACCEPTED_BRAND);
  }

  /** Makes `instanceof` use the brand, so results from another package copy still match. */
  static [Symbol.hasInstance](value: unknown): value is ChoiceElicitationAccepted<unknown> {
    return hasBrand(value, ACCEPTED_BRAND);
  }
}

/**
 * The user explicitly declined to choose.
 *
 * @example
 * ```ts
 * import { ChoiceElicitationDeclined } from '@acpkit/elicitation';
 *
 * const fallback = () => new ChoiceElicitationDeclined();
 * ```
 */
export class ChoiceElicitationDeclined {
  /** Discriminant for `switch (result.status)`. */
  readonly status = 'declined' as const;
  /** Where the answer came from. */
  readonly source: ChoiceElicitationSource;

  constructor(source: ChoiceElicitationSource = 'fallback') {
    this.source = source;
    seal(this, DECLINED_BRAND);
  }

  /**
   * True for any declined result, also one created by another copy of this package.
   *
   * @example
   * ```ts
   * import { ChoiceElicitationDeclined } from '@acpkit/elicitation';
   *
   * ChoiceElicitationDeclined.isInstance(new ChoiceElicitationDeclined()); // true
   * ```
   */
  static isInstance(value: unknown): value is ChoiceElicitationDeclined {
    return hasBrand(value, DECLINED_BRAND);
  }

  /** Makes `instanceof` use the brand, so results from another package copy still match. */
  static [Symbol.hasInstance](value: unknown): value is ChoiceElicitationDeclined {
    return hasBrand(value, DECLINED_BRAND);
  }
}

/**
 * The question was dismissed: the client answered `cancel` or `-32800`, or `session/cancel` arrived for the
 * session while it was pending.
 *
 * @example
 * ```ts
 * import { ChoiceElicitationCancelled } from '@acpkit/elicitation';
 *
 * const fallback = async () => new ChoiceElicitationCancelled();
 * ```
 */
export class ChoiceElicitationCancelled {
  /** Discriminant for `switch (result.status)`. */
  readonly status = 'cancelled' as const;
  /** Where the answer came from. */
  readonly source: ChoiceElicitationSource;

  constructor(source: ChoiceElicitationSource = 'fallback') {
    this.source = source;
    seal(this, CANCELLED_BRAND);
  }

  /**
   * True for any cancelled result, also one created by another copy of this package.
   *
   * @example
   * ```ts
   * import { ChoiceElicitationCancelled } from '@acpkit/elicitation';
   *
   * ChoiceElicitationCancelled.isInstance({ status: 'cancelled' }); // false: shape is not enough
   * ```
   */
  static isInstance(value: unknown): value is ChoiceElicitationCancelled {
    return hasBrand(value, CANCELLED_BRAND);
  }

  /** Makes `instanceof` use the brand, so results from another package copy still match. */
  static [Symbol.hasInstance](value: unknown): value is ChoiceElicitationCancelled {
    return hasBrand(value, CANCELLED_BRAND);
  }
}

/**
 * The outcome of `askChoice`: never `null`. Narrow with `switch (result.status)` or `instanceof`.
 *
 * @example
 * ```ts
 * import type { ChoiceElicitationResult } from '@acpkit/elicitation';
 *
 * function reply(result: ChoiceElicitationResult<'preview' | 'production'>): string {
 *   switch (result.status) {
 *     case 'accepted':
 *       return `Selected: ${result.value}`;
 *     case 'declined':
 *       return 'The user declined to choose.';
 *     case 'cancelled':
 *       return 'The choice was cancelled.';
 *   }
 * }
 * ```
 */
export type ChoiceElicitationResult<T> =
  | ChoiceElicitationAccepted<T>
  | ChoiceElicitationDeclined
  | ChoiceElicitationCancelled;

/**
 * True when `value` is one of the three result variants (by brand, never by shape).
 *
 * @example
 * ```ts
 * import { ChoiceElicitationDeclined, isChoiceElicitationResult } from '@acpkit/elicitation';
 *
 * isChoiceElicitationResult(new ChoiceElicitationDeclined()); // true
 * isChoiceElicitationResult({ status: 'declined' }); // false
 * ```
 */
export function isChoiceElicitationResult(value: unknown): value is ChoiceElicitationResult<unknown> {
  return (
    ChoiceElicitationAccepted.isInstance(value) ||
    ChoiceElicitationDeclined.isInstance(value) ||
    ChoiceElicitationCancelled.isInstance(value)
  );
}
