// How a session store's refusal reaches an ACP client: the SDK's RequestError with a JSON-RPC code that fits
// (-32602 for bad input, -32002 for a missing session, -32600 for a refused write, -32603 for a store that failed)
// and `data` carrying the store error's name, stable `code` and fields, so a client can branch on them.
import { RequestError } from '@agentclientprotocol/sdk';
import { SessionStoreError, SessionStoreErrorCode } from '../errors.js';

/**
 * The JSON-RPC error for `error`: a `SessionStoreError` becomes a `RequestError` with `data: { name, code, details,
 * …fields }`; anything else is returned unchanged (the SDK sends it as `Internal error`).
 *
 * @example
 * ```ts
 * import { sessionStoreRequestError } from '@acpkit/sessions';
 *
 * try {
 *   // … a store call in a handler
 * } catch (error) {
 *   throw sessionStoreRequestError(error);
 * }
 * ```
 */
export function sessionStoreRequestError(error: unknown): unknown {
  if (!SessionStoreError.isInstance(error)) return error;
  const data = { name: error.name, code: error.code, details: error.message, ...error.details };
  switch (error.code) {
    case SessionStoreErrorCode.InvalidSessionId:
    case SessionStoreErrorCode.InvalidCursor:
    case SessionStoreErrorCode.InvalidOption:
    case SessionStoreErrorCode.InvalidWrite:
      return new RequestError(-32602, `Invalid params: ${error.message}`, data);
    case SessionStoreErrorCode.SessionNotFound:
      return new RequestError(-32002, `Resource not found: ${error.message}`, data);
    case SessionStoreErrorCode.StaleWrite:
    case SessionStoreErrorCode.SessionTooLarge:
      return new RequestError(-32600, error.message, data);
    default:
      return new RequestError(-32603, `Internal error: ${error.message}`, data);
  }
}
