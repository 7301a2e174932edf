// An in-process app for `serveAcp` that answers every request with its params (and `_test/notify {count}` with that
// many notifications first), read straight off the SDK stream: the tests see exactly what crossed the wire.
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';

/** An in-process app answering every request with its params, and `_test/notify {count}` with that many notifications first. */
export function echoApp() {
  return {
    connect(stream: Stream) {
      const reader = stream.readable.getReader();
      const writer = stream.writable.getWriter();
      const closed = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          const message = value as { id?: number; method?: string; params?: { count?: number } };
          if (message.id === undefined) continue;
          for (let n = 1; n <= (message.method === '_test/notify' ? (message.params?.count ?? 0) : 0); n += 1)
            await writer.write({ jsonrpc: '2.0', method: '_test/tick', params: { n } } as AnyMessage);
          await writer.write({
            jsonrpc: '2.0',
            id: message.id,
            result: message.params ?? null,
          } as AnyMessage);
        }
      })();
      return { closed, close: () => void reader.cancel().catch(() => {}) };
    },
  };
}
