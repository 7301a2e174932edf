// The client requests the file and terminal tools make, with the client's answers checked (the SDK does not
// validate responses to our own requests) and failures turned into messages the model and the user can read.
import type { ElicitationClient } from '@acpkit/elicitation';
import { RequestError } from '@agentclientprotocol/sdk';

/** A client request failed: the message says which request, on what, and the client's own words. */
export class ClientRequestFailed extends Error {
  override readonly name = 'ClientRequestFailed';
}

function clientWords(error: unknown): string {
  if (error instanceof RequestError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

/** Sends `method` and returns the client's result; a client error becomes a {@link ClientRequestFailed}. */
export async function clientRequest(
  client: ElicitationClient,
  method: string,
  params: unknown,
  what: string,
  signal?: AbortSignal,
): Promise<unknown> {
  try {
    return await client.request(
      method,
      params,
      signal === undefined ? undefined : { cancellationSignal: signal, stopWaitingOnCancel: true },
    );
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    // The connection closed: nothing can be asked any more; the turn ends with it.
    if (!(error instanceof RequestError)) throw error;
    throw new ClientRequestFailed(`The editor could not ${what}: ${clientWords(error)}`);
  }
}

/** The `content` of an `fs/read_text_file` answer, or a clear failure when the client answered something else. */
export function textOf(response: unknown, path: string): string {
  const content = (response as { content?: unknown } | null)?.content;
  if (typeof content !== 'string') {
    throw new ClientRequestFailed(
      `The editor answered fs/read_text_file for ${path} without a text \`content\`.`,
    );
  }
  return content;
}
