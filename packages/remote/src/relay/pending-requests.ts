// Requests from a peer that wait for an answer: counted against a bound and matched with their answers by id.
import { idKey, type WireId } from '../wire/json-rpc.js';

/**
 * The requests a peer sent that have not been answered yet, counted against `limit` (repeated ids count once each,
 * as each one reaches a handler). {@link admit} says whether one more may wait; {@link answered} takes the answer
 * away and names the method it answered. Plain numbers and one map: it runs once per request and per answer.
 *
 * @example
 * ```ts
 * const pending = new PendingRequests(256);
 * if (!pending.admit(7, 'session/prompt')) answerWithTooManyPendingRequests(7);
 * pending.answered(7); // 'session/prompt'
 * ```
 */
export class PendingRequests {
  private readonly waiting = new Map<string, { method: string; count: number }>();
  private total = 0;

  constructor(readonly limit: number) {}

  /** Requests waiting now. */
  get size(): number {
    return this.total;
  }

  /** A request arrived: counted and true, or false (not counted) when `limit` already wait. */
  admit(id: WireId, method: string): boolean {
    if (this.total >= this.limit) return false;
    const key = idKey(id);
    const entry = this.waiting.get(key);
    if (entry === undefined) this.waiting.set(key, { method, count: 1 });
    else entry.count += 1;
    this.total += 1;
    return true;
  }

  /** An answer to `id` went out: the method it answered, or undefined when no request with that id waited. */
  answered(id: WireId): string | undefined {
    const key = idKey(id);
    const entry = this.waiting.get(key);
    if (entry === undefined) return undefined;
    entry.count -= 1;
    if (entry.count === 0) this.waiting.delete(key);
    this.total -= 1;
    return entry.method;
  }
}
