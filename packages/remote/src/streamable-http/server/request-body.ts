// Reading one POST body of the Streamable HTTP endpoint within the message limit, without holding more than it.
import type { IncomingMessage } from 'node:http';

/** The body of a POST, or why it was not read whole. */
export type RequestBody =
  | { readonly ok: true; readonly body: Buffer }
  | { readonly ok: false; readonly reason: 'size'; readonly bytes: number | undefined }
  | { readonly ok: false; readonly reason: 'aborted' };

/** A `Content-Length` as a number; undefined when absent or not a plain decimal (then the bytes are counted). */
function declaredLength(request: IncomingMessage): number | undefined {
  const header = request.headers['content-length'];
  return typeof header === 'string' && /^\d{1,15}$/.test(header.trim()) ? Number(header) : undefined;
}

/**
 * Reads a request body of at most `maxBytes` bytes. A `Content-Length` over the limit is refused before a byte is
 * read; a body that grows past it while read (chunked) is refused at that point. Either way the rest is never read
 * or kept: the caller answers 413 with `Connection: close`, so the socket is closed after the answer instead of
 * drained. Chunks are joined once, at the end.
 *
 * @example
 * ```ts
 * const body = await readRequestBody(request, resolved.maxMessageBytes);
 * if (!body.ok) return refuseTooLarge(response, body);
 * ```
 */
export function readRequestBody(request: IncomingMessage, maxBytes: number): Promise<RequestBody> {
  const declared = declaredLength(request);
  if (declared !== undefined && declared > maxBytes) {
    request.pause();
    return Promise.resolve({ ok: false, reason: 'size', bytes: declared });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const settle = (result: RequestBody) => {
      if (settled) return;
      settled = true;
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onAborted);
      request.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        chunks.length = 0;
        request.pause();
        settle({ ok: false, reason: 'size', bytes: declared });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () =>
      settle({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes) });
    const onAborted = () => settle({ ok: false, reason: 'aborted' });
    const onClose = () => {
      if (!request.complete) onAborted();
    };
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', onAborted);
    request.once('close', onClose);
  });
}
