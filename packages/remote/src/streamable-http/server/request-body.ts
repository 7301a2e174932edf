// Reading one POST body of the Streamable HTTP endpoint within the message limit and a minimum rate, without
// holding more than it.
import type { IncomingMessage } from 'node:http';

/** The body of a POST, or why it was not read whole. */
export type RequestBody =
  | { readonly ok: true; readonly body: Buffer }
  | { readonly ok: false; readonly reason: 'size'; readonly bytes: number | undefined }
  | { readonly ok: false; readonly reason: 'slow'; readonly bytes: number }
  | { readonly ok: false; readonly reason: 'aborted' };

/** How slowly a body may arrive: after `graceMs`, on average at least `bytesPerSecond`. */
export interface BodyPace {
  readonly graceMs: number;
  readonly bytesPerSecond: number;
}

/** A `Content-Length` as a number; undefined when absent or not a plain decimal (then the bytes are counted). */
function declaredLength(request: IncomingMessage): number | undefined {
  const header = request.headers['content-length'];
  return typeof header === 'string' && /^\d{1,15}$/.test(header.trim()) ? Number(header) : undefined;
}

/**
 * Reads a request body of at most `maxBytes` bytes. A `Content-Length` over the limit is refused before a byte is
 * read; a body that grows past it while read (chunked) is refused at that point. Either way the rest is never read
 * or kept: the caller answers 413 with `Connection: close`, so the socket is closed after the answer instead of
 * drained. With `pace`, a body that arrives slower than its minimum rate is given up (`slow`: the caller answers 408
 * with `Connection: close`): by `graceMs + received / bytesPerSecond` after reading began, more must have come, so
 * a body's deadline grows with its size and a client dribbling bytes holds the socket no longer than the grace. Chunks
 * are joined once, at the end.
 *
 * @example
 * ```ts
 * const body = await readRequestBody(request, resolved.maxMessageBytes);
 * if (!body.ok) return refuseTooLarge(response, body);
 * ```
 */
export function readRequestBody(
  request: IncomingMessage,
  maxBytes: number,
  pace?: BodyPace,
): Promise<RequestBody> {
  const declared = declaredLength(request);
  if (declared !== undefined && declared > maxBytes) {
    request.pause();
    return Promise.resolve({ ok: false, reason: 'size', bytes: declared });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    let deadline: NodeJS.Timeout | undefined;
    const startedAt = performance.now();
    const onSlow = () => {
      request.pause();
      settle({ ok: false, reason: 'slow', bytes });
    };
    /** The next deadline: by then the body must have more than `bytes` (or be complete). */
    const armDeadline = () => {
      if (pace === undefined) return;
      clearTimeout(deadline);
      const dueAt = startedAt + pace.graceMs + (bytes * 1000) / pace.bytesPerSecond;
      deadline = setTimeout(onSlow, Math.max(0, dueAt - performance.now()));
      deadline.unref();
    };
    const settle = (result: RequestBody) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
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
      armDeadline();
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
    armDeadline();
  });
}
