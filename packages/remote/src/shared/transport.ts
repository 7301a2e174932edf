// The two transports, spelled once: as the API spells them, and as a metric label value and log field.

/**
 * Which transport a connection speaks, spelled as the API spells it (`ConnectOptions.transport`, the `transport` of
 * a JSON-RPC error's data, an `EndpointRefusal`).
 */
export type Transport = 'websocket' | 'streamable-http';

/** Every transport, in the order metrics list them. */
export const TRANSPORTS: readonly Transport[] = ['websocket', 'streamable-http'];

/** A transport as a Prometheus label value and a log field (snake case, as label values are written). */
export type TransportLabel = 'websocket' | 'streamable_http';

/**
 * The label of `transport`: the one place the two spellings meet.
 *
 * @example
 * ```ts
 * transportLabel('streamable-http'); // 'streamable_http'
 * ```
 */
export function transportLabel(transport: Transport): TransportLabel {
  return transport === 'streamable-http' ? 'streamable_http' : 'websocket';
}
