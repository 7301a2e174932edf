import * as stable from '@agentclientprotocol/sdk';
import * as unstable from '@agentclientprotocol/sdk/unstable';

function methodNames(...groups: ReadonlyArray<Record<string, string>>): Set<string> {
  const names = new Set<string>();
  for (const group of groups) for (const name of Object.values(group)) names.add(name);
  return names;
}

const stableMethods = methodNames(stable.AGENT_METHODS, stable.CLIENT_METHODS, stable.PROTOCOL_METHODS);

/**
 * Methods the pinned SDK defines only in its `/unstable` entrypoint, in both directions, derived from the SDK's
 * exported method constants (never typed by hand, so an SDK upgrade updates the list).
 *
 * @example
 * ```ts
 * UNSTABLE_METHODS.has('session/fork'); // true
 * ```
 */
export const UNSTABLE_METHODS: ReadonlySet<string> = new Set(
  [...methodNames(unstable.AGENT_METHODS, unstable.CLIENT_METHODS, unstable.PROTOCOL_METHODS)].filter(
    (name) => !stableMethods.has(name),
  ),
);

/**
 * Whether `method` exists only in the SDK's `/unstable` entrypoint. `_`-prefixed extension methods never are, and
 * elicitation is stable.
 *
 * @example
 * ```ts
 * isUnstableMethod('session/fork');       // true
 * isUnstableMethod('elicitation/create'); // false
 * ```
 */
export function isUnstableMethod(method: string): boolean {
  if (method.startsWith('_')) return false;
  return UNSTABLE_METHODS.has(method);
}
