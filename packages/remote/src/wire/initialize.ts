// The start of every ACP connection, asked in one place: is a message the `initialize` request, and is a message
// the answer to one. Every transport and policy that waits for the handshake asks here.
import { idKey, type WireId } from './json-rpc.js';

/** The method that opens every ACP connection. */
export const INITIALIZE_METHOD = 'initialize';

/**
 * What a message is to the handshake: the `initialize` request (with an id its answer will carry), an `initialize`
 * without a usable id (never answered, so it cannot open a connection), or anything else.
 */
export type InitializeCheck =
  | { readonly kind: 'initialize'; readonly id: string }
  | { readonly kind: 'missing-id' }
  | { readonly kind: 'other' };

/**
 * Whether a message with `method` and `id` (the id's key, as `idKey` gives it: `'null'` for `null`; undefined when
 * it has none) is the `initialize` request.
 *
 * @example
 * ```ts
 * checkInitialize('initialize', '0'); // { kind: 'initialize', id: '0' }
 * checkInitialize('initialize', undefined); // { kind: 'missing-id' }
 * ```
 */
export function checkInitialize(method: unknown, id: string | undefined): InitializeCheck {
  if (method !== INITIALIZE_METHOD) return { kind: 'other' };
  if (id === undefined || id === 'null') return { kind: 'missing-id' };
  return { kind: 'initialize', id };
}

/** {@link checkInitialize} for a parsed message object (an id that is not a string or number is no id). */
export function checkInitializeMessage(message: unknown): InitializeCheck {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return { kind: 'other' };
  const { method, id } = message as { method?: unknown; id?: unknown };
  const usable = typeof id === 'string' || typeof id === 'number';
  return checkInitialize(method, usable ? idKey(id as WireId) : undefined);
}

/**
 * The `initialize` requests of one connection that wait for their answer, by id: {@link request} records one,
 * {@link answers} tells whether a response (by its id) answers one, and {@link answered} whether one was.
 *
 * @example
 * ```ts
 * const handshake = new InitializeAnswers();
 * handshake.request('0');
 * handshake.answers('0'); // true: the connection is established
 * ```
 */
export class InitializeAnswers {
  /** Each waiting request's id key, with the id as the client wrote it. */
  readonly #waiting = new Map<string, string>();
  #answered = false;

  /** Whether an `initialize` was answered. */
  get answered(): boolean {
    return this.#answered;
  }

  /** The `initialize` requests waiting now: id key → the id as written (its JSON token). */
  get waiting(): ReadonlyMap<string, string> {
    return this.#waiting;
  }

  /** An `initialize` request with id `id` (its key; `written`, the id as the client wrote it) went to the agent. */
  request(id: string, written: string = id): void {
    this.#waiting.set(id, written);
  }

  /** Whether a response with id `id` answers a waiting `initialize` (it is then answered). */
  answers(id: string | undefined): boolean {
    if (id === undefined || !this.#waiting.delete(id)) return false;
    this.#answered = true;
    return true;
  }
}
