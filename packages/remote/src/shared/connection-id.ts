// The ids a server gives its connections (`Acp-Connection-Id`): random, and routable when the instance has a name.

/**
 * A new connection id: a random UUID, after `<instanceId>.` when the server has an instance id, so a load balancer
 * can send every request naming the connection to the instance that holds it (an nginx `map` on the prefix).
 *
 * @example
 * ```ts
 * newConnectionId('a'); // 'a.0b6f…'
 * newConnectionId(undefined); // '0b6f…'
 * ```
 */
export function newConnectionId(instanceId: string | undefined): string {
  const id = globalThis.crypto.randomUUID();
  return instanceId === undefined ? id : `${instanceId}.${id}`;
}
