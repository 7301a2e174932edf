// A fetch for the MCP HTTP transports that bounds what one message may hold: a JSON response body, or one event of
// an SSE stream (the bytes since the last blank line), over `maxBytes` fails the stream with a clear error instead
// of growing memory. The MCP SDK reads whole bodies and whole events; it has no such bound itself.

/** The error a response over the bound ends with. */
export class McpMessageTooLarge extends Error {
  override readonly name = 'McpMessageTooLarge';
}

function limitStream(body: ReadableStream<Uint8Array>, maxBytes: number, perEvent: boolean, url: string) {
  let size = 0;
  let lastByte = -1;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (perEvent) {
          // An SSE event ends at a blank line: count only the bytes since the last one.
          for (let index = 0; index < chunk.length; index += 1) {
            const byte = chunk[index] as number;
            size = byte === 0x0a && lastByte === 0x0a ? 0 : size + 1;
            if (byte !== 0x0d) lastByte = byte;
          }
        } else {
          size += chunk.length;
        }
        if (size > maxBytes) {
          controller.error(
            new McpMessageTooLarge(
              `the MCP server at ${url} sent a message over ${maxBytes} bytes (maxResultBytes)`,
            ),
          );
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/** `fetch` with every response body bounded to `maxBytes` per message. */
export function boundedFetch(maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null) return response;
    const perEvent = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return new Response(limitStream(response.body, maxBytes, perEvent, url), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
