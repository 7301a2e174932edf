export type { ElicitationChoice } from '@acpkit/choice-schema';

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
 * import { ElicitationDeclined, type ElicitationSource } from '@acpkit/elicitation';
 *
 * const source: ElicitationSource = new ElicitationDeclined().source; // 'fallback'
 * ```
 */
export type ElicitationSource = 'client' | 'fallback';

/**
 * The user answered: `value` is the typed answer. For a choice it is the offered value itself (the same object, not
 * a copy); for a form, the value parsed by its zod schema. `new ElicitationAccepted(value)` in a fallback builds one
 * with `source: 'fallback'`.
 *
 * @example
 * ```ts
 * import { ElicitationAccepted } from '@acpkit/elicitation';
 *
 * const result = new ElicitationAccepted('preview');
 * result.status; // 'accepted'
 * result.source; // 'fallback'
 * ```
 */
export class ElicitationAccepted<T> {
  /** Discriminant for `switch (result.status)`. */
  readonly status = 'accepted' as const;
  /** The typed answer: the picked choice's value, or the parsed form. */
  readonly value: T;
  /** Where the answer came from. */
  readonly source: ElicitationSource;

  constructor(value: T, source: ElicitationSource = 'fallback') {
    this.value = value;
    this.source = source;
    seal(this, ACCEPTED_BRAND);
  }

  /**
   * True for any accepted result, also one created by another copy of this package.
   *
   * @example
   * ```ts
   * import { ElicitationAccepted } from '@acpkit/elicitation';
   *
   * ElicitationAccepted.isInstance({ status: 'accepted', value: 1 }); // false: shape is not enough
   * ```
   */
  static isInstance(value: unknown): value is ElicitationAccepted<unknown> {
    return hasBrand(value, ACCEPTED_BRAND);
  }

  /** Makes `instanceof` use the brand, so results from another package copy still match. */
  static [Symbol.hasInstance](value: unknown): value is ElicitationAccepted<unknown> {
    return hasBrand(value, ACCEPTED_BRAND);
  }
}

/**
 * The user explicitly declined to answer.
 *
 * @example
 * ```ts
 * import { ElicitationDeclined } from '@acpkit/elicitation';
 *
 * const fallback = () => new ElicitationDeclined();
 * ```
 */
export class ElicitationDeclined {
  /** Discriminant for `switch (result.status)`. */
  readonly status = 'declined' as const;
  /** Where the answer came from. */
  readonly source: ElicitationSource;

  constructor(source: ElicitationSource = 'fallback') {
    this.source = source;
    seal(this, DECLINED_BRAND);
  }

  /**
   * True for any declined result, also one created by another copy of this package.
   *
   * @example
   * ```ts
   * import { ElicitationDeclined } from '@acpkit/elicitation';
   *
   * ElicitationDeclined.isInstance(new ElicitationDeclined()); // true
   * ```
   */
  static isInstance(value: unknown): value is ElicitationDeclined {
    return hasBrand(value, DECLINED_BRAND);
  }

  /** Makes `instanceof` use the brand, so results from another package copy still match. */
  static [Symbol.hasInstance](value: unknown): value is ElicitationDeclined {
    return hasBrand(value, DECLINED_BRAND);
  }
}

/**
 * The question was dismissed: the client answered `cancel` or `-32800`, or `session/cancel` arrived for the
 * session while it was pending.
 *
 * @example
 * ```ts
 * import { ElicitationCancelled } from '@acpkit/elicitation';
 *
 * const fallback = async () => new ElicitationCancelled();
 * ```
 */
export class ElicitationCancelled {
  /** Discriminant for `switch (result.status)`. */
  readonly status = 'cancelled' as const;
  /** Where the answer came from. */
  readonly source: ElicitationSource;

  constructor(source: ElicitationSource = 'fallback') {
    this.source = source;
    seal(this, CANCELLED_BRAND);
  }

  /**
   * True for any cancelled result, also one created by another copy of this package.
   *
   * @example
   * ```ts
   * import { ElicitationCancelled } from '@acpkit/elicitation';
   *
   * ElicitationCancelled.isInstance({ status: 'cancelled' }); // false: shape is not enough
   * ```
   */
  static isInstance(value: unknown): value is ElicitationCancelled {
    return hasBrand(value, CANCELLED_BRAND);
  }

  /** Makes `instanceof` use the brand, so results from another package copy still match. */
  static [Symbol.hasInstance](value: unknown): value is ElicitationCancelled {
    return hasBrand(value, CANCELLED_BRAND);
  }
}

/**
 * The outcome of `askChoice`, `askForm`, `askConfirm`, `askText` and `askChoices`: never `null`. Narrow with
 * `switch (result.status)` or `instanceof`.
 *
 * @example
 * ```ts
 * import type { ElicitationResult } from '@acpkit/elicitation';
 *
 * function reply(result: ElicitationResult<'preview' | 'production'>): string {
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
export type ElicitationResult<T> = ElicitationAccepted<T> | ElicitationDeclined | ElicitationCancelled;

/**
 * True when `value` is one of the three result variants (by brand, never by shape).
 *
 * @example
 * ```ts
 * import { ElicitationDeclined, isElicitationResult } from '@acpkit/elicitation';
 *
 * isElicitationResult(new ElicitationDeclined()); // true
 * isElicitationResult({ status: 'declined' }); // false
 * ```
 */
export function isElicitationResult(value: unknown): value is ElicitationResult<unknown> {
  return (
    ElicitationAccepted.isInstance(value) ||
    ElicitationDeclined.isInstance(value) ||
    ElicitationCancelled.isInstance(value)
  );
}
