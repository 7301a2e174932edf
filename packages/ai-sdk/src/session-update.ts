// The one way this package sends a `session/update`. When @acpkit/elicitation's AcpSessionContext gains
// `session.update(update)`, this function becomes a call to it and nothing else changes.

import type { ElicitationClient } from '@acpkit/elicitation';
import { methods, type SessionUpdate } from '@agentclientprotocol/sdk';

/** Sends one `session/update` notification; resolves when the SDK has written it (in call order). */
export function sendSessionUpdate(
  client: ElicitationClient,
  sessionId: string,
  update: SessionUpdate,
): Promise<void> {
  return client.notify(methods.client.session.update, { sessionId, update });
}
