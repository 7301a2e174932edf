/** What this package reads from the SDK's per-connection context. */
export interface ConnectionContextLike {
  readonly signal?: AbortSignal;
}

const CONNECTION_CONTEXT_SYMBOL_DESCRIPTION = 'connectionContextOf';
const symbolByPrototype = new WeakMap<object, symbol | null>();

function findAccessorSymbol(client: object): symbol | undefined {
  for (
    let prototype: object | null = client;
    prototype !== null;
    prototype = Object.getPrototypeOf(prototype)
  ) {
    const cached = symbolByPrototype.get(prototype);
    if (cached !== undefined) return cached ?? undefined;
    const found = Object.getOwnPropertySymbols(prototype).find(
      (symbol) => symbol.description === CONNECTION_CONTEXT_SYMBOL_DESCRIPTION,
    );
    if (found !== undefined) {
      symbolByPrototype.set(prototype, found);
      return found;
    }
  }
  return undefined;
}

/**
 * Returns the SDK connection behind an `AgentContext`, or `undefined` for other objects (test doubles).
 *
 * Why by hand: SDK 2.4 creates a new `AgentContext` for every inbound request and notification, so the context
 * object cannot identify a connection. Each context answers `[connectionContextOf]()` with the one per-connection
 * `ConnectionContext` (the SDK's own MCP helpers identify connections this way, and the member is kept in the
 * published declarations), but the symbol itself is not exported, so it is found on the prototype chain by its
 * description.
 */
export function connectionContextOf(client: object): (object & ConnectionContextLike) | undefined {
  const symbol = findAccessorSymbol(client);
  if (symbol === undefined) return undefined;
  const accessor = (client as Record<symbol, unknown>)[symbol];
  if (typeof accessor !== 'function') return undefined;
  const context: unknown = accessor.call(client);
  return typeof context === 'object' && context !== null
    ? (context as object & ConnectionContextLike)
    : undefined;
}
