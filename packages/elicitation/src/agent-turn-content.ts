// What an adapter's agent says about itself and its tool calls on the wire, written once for both adapters: the
// `initialize` response (protocol version, capabilities, agentInfo) and a tool's output as tool-call text content.
import {
  type AgentCapabilities,
  type InitializeResponse,
  PROTOCOL_VERSION,
  type ToolCallContent,
} from '@agentclientprotocol/sdk';

/**
 * The `initialize` response of an agent: the lower of the client's and the SDK's protocol versions, the
 * capabilities the agent honours, no authentication, and `agentInfo` (`title` only when given).
 *
 * @example
 * ```ts
 * import { initializeResponse } from '@acpkit/elicitation';
 *
 * initializeResponse({ protocolVersion: 1 }, { name: 'helper', version: '1.0.0' }, { loadSession: true });
 * ```
 */
export function initializeResponse(
  params: { readonly protocolVersion: number },
  agentInfo: { readonly name: string; readonly version: string; readonly title?: string | undefined },
  agentCapabilities: AgentCapabilities,
): InitializeResponse {
  return {
    protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
    agentCapabilities,
    authMethods: [],
    agentInfo: {
      name: agentInfo.name,
      version: agentInfo.version,
      ...(agentInfo.title === undefined ? {} : { title: agentInfo.title }),
    },
  };
}

/**
 * A tool's output or error as the text a client shows: a string as it is, an `Error`'s message, `(no output)` for
 * `undefined`, anything else as indented JSON.
 *
 * @example
 * ```ts
 * import { toolOutputText } from '@acpkit/elicitation';
 *
 * toolOutputText({ deployed: true }); // '{\n  "deployed": true\n}'
 * ```
 */
export function toolOutputText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return value.message;
  if (value === undefined) return '(no output)';
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * `text` as the `content` of a `tool_call` / `tool_call_update`.
 *
 * @example
 * ```ts
 * import { toolTextContent } from '@acpkit/elicitation';
 *
 * toolTextContent('Deployed.'); // [{ type: 'content', content: { type: 'text', text: 'Deployed.' } }]
 * ```
 */
export function toolTextContent(text: string): ToolCallContent[] {
  return [{ type: 'content', content: { type: 'text', text } }];
}
