// A raw in-process agent for `serveAcp`: it reads the SDK stream's messages one at a time and writes, in order, the
// messages a handler returns for each (no SDK connection, so a test sees exactly what crossed the wire).
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';

/** A message as the app reads it (loosely typed: each test reads the fields it sent). */
export interface AppMessage {
  readonly id?: number | string;
  readonly method?: string;
  // biome-ignore lint/suspicious/noExplicitAny: test params are whatever the test sent
  readonly params?: any;
}

/**
 * An app whose connection answers each message with what `handle` returns (each gets `jsonrpc: '2.0'` added). Give
 * `serveAcp` a factory that calls it, so each connection keeps its own state.
 *
 * @example
 * ```ts
 * await serveAcp(() => streamApp((message) => [{ id: message.id, result: message.params }]), { port: 0 });
 * ```
 */
export function streamApp(handle: (message: AppMessage) => object[]) {
  return {
    connect(stream: Stream) {
      const reader = stream.readable.getReader();
      const writer = stream.writable.getWriter();
      const closed = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          for (const message of handle(value as AppMessage))
            await writer.write({ jsonrpc: '2.0', ...message } as AnyMessage);
        }
      })();
      return { closed, close: () => void reader.cancel().catch(() => {}) };
    },
  };
}
