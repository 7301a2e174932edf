// The methods the pinned SDK defines only in its /unstable entrypoint (the mirror's unstable gate).
/**
 * Methods the pinned SDK defines only in its `/unstable` entrypoint, in both directions: its `AGENT_METHODS`,
 * `CLIENT_METHODS` and `PROTOCOL_METHODS` of `/unstable` minus those of the main entry.
 *
 * Listed here rather than derived at load time: reading the SDK's constants evaluates both of its entrypoints, zod
 * schemas included (~8 MB of heap each), in every relay and mirror process, which only relay bytes (see
 * `WireError` in wire/json-rpc.ts). `unstable-methods.test.ts` derives the list from the SDK and fails when an SDK
 * upgrade changes it.
 *
 * @example
 * ```ts
 * UNSTABLE_METHODS.has('session/fork'); // true
 * ```
 */
export const UNSTABLE_METHODS: ReadonlySet<string> = new Set([
  'providers/list',
  'providers/set',
  'providers/disable',
  'mcp/message',
  'session/fork',
  'session/archive',
  'session/unarchive',
  'session/status',
  'session/set_title',
  'auth/status',
  'auth/status_update',
]);

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
