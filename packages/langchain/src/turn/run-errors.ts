// A failed graph run becomes the JSON-RPC error of the prompt: the error's own message and name (never its stack or
// the state), so a client can show "the graph failed: …" and the session stays usable.
import { RequestError } from '@agentclientprotocol/sdk';

/** True for LangGraph's GraphRecursionError (the run reached `recursionLimit`). */
export function isRecursionLimit(error: unknown): boolean {
  return error instanceof Error && error.name === 'GraphRecursionError';
}

/** The JSON-RPC error (-32603) that fails a prompt whose graph run failed. */
export function graphFailed(error: unknown): RequestError {
  const message =
    error instanceof Error && error.message !== ''
      ? error.message
      : typeof error === 'string' && error !== ''
        ? error
        : 'the graph gave no message';
  const data: Record<string, unknown> = { errorName: error instanceof Error ? error.name : typeof error };
  return RequestError.internalError(data, `the graph failed: ${message}`);
}
