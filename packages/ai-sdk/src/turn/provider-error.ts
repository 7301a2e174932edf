// A failed model call becomes the JSON-RPC error of the prompt: the provider's own message, plus the few fields of
// the AI SDK's errors a client can act on (never the request body, headers or URL, which may carry secrets).
import { RequestError } from '@agentclientprotocol/sdk';

function errorMessage(error: unknown): string {
  if (error instanceof Error && error.message !== '') return error.message;
  if (typeof error === 'string' && error !== '') return error;
  return 'the model provider gave no message';
}

/** The JSON-RPC error (-32603) that fails a prompt whose model call failed. */
export function modelCallFailed(error: unknown): RequestError {
  const data: Record<string, unknown> = {};
  if (error instanceof Error) data.errorName = error.name;
  if (typeof error === 'object' && error !== null) {
    const { statusCode, isRetryable } = error as { statusCode?: unknown; isRetryable?: unknown };
    if (typeof statusCode === 'number') data.statusCode = statusCode;
    if (typeof isRetryable === 'boolean') data.isRetryable = isRetryable;
  }
  return RequestError.internalError(data, `the model call failed: ${errorMessage(error)}`);
}

/** The JSON-RPC error for a model that ended its answer with finish reason `error` but sent no error. */
export function modelStoppedWithError(rawFinishReason: string | undefined): RequestError {
  return RequestError.internalError(
    { finishReason: 'error', rawFinishReason },
    `the model call failed: the model stopped with finish reason "error"${rawFinishReason ? ` (${rawFinishReason})` : ''}`,
  );
}
