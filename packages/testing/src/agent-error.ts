// What an agent's JSON-RPC error says beyond "Internal error": the text in its `data`, for the test client's thrown
// error and `acpkit client`'s error line alike.
import { RequestError } from '@agentclientprotocol/sdk';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The text of a JSON-RPC error's `data`, or `undefined` when it carries none: a string as it is; the SDK's
 * `{ details }` (a thrown error's text), prefixed with the class and code `acpSessions().prompt` adds
 * (`FormSchemaError UNSUPPORTED_TYPE: …`); a `{ message }`; anything else as JSON.
 *
 * @example
 * ```ts
 * agentErrorDetail({ name: 'FormSchemaError', code: 'UNSUPPORTED_TYPE', details: 'z.map() is not supported' });
 * // 'FormSchemaError UNSUPPORTED_TYPE: z.map() is not supported'
 * ```
 */
export function agentErrorDetail(data: unknown): string | undefined {
  if (typeof data === 'string') return data === '' ? undefined : data;
  if (isRecord(data) && typeof data.details === 'string') {
    const origin = [data.name, data.code].filter((part) => typeof part === 'string').join(' ');
    return origin === '' ? data.details : `${origin}: ${data.details}`;
  }
  if (isRecord(data) && typeof data.message === 'string') return data.message;
  if (data !== undefined && data !== null) return JSON.stringify(data);
  return undefined;
}

/**
 * The agent's `RequestError` with what its `data` says in the message (`Internal error (-32603): <details>`), so a
 * failing test shows why; code and data are kept as they came. An error without data is returned as it is.
 */
export function withAgentErrorDetail(error: RequestError): RequestError {
  const detail = agentErrorDetail(error.data);
  if (detail === undefined) return error;
  const explained = new RequestError(error.code, `${error.message} (${error.code}): ${detail}`, error.data);
  if (error.stack !== undefined) explained.stack = error.stack.replace(error.message, explained.message);
  return explained;
}
