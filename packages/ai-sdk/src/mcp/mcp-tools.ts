// An MCP server's tools as AI SDK tools: names namespaced `server__tool` (unique, at most 64 characters of
// [A-Za-z0-9_-], what providers accept), calls under the turn's cancellation and a timeout, results turned into
// text for the model and bounded, an `isError` result a failed call.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dynamicTool, jsonSchema, type Tool } from 'ai';

/** One tool as `tools/list` describes it (the fields read here). */
export interface McpToolInfo {
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations?: { readonly title?: string; readonly readOnlyHint?: boolean } | undefined;
}

/** How the tools of every server are called. */
export interface McpToolSettings {
  readonly callTimeoutMs: number;
  readonly maxResultChars: number;
  /** Whether a call of this tool asks the user first. */
  needsApproval(server: string, tool: McpToolInfo): boolean;
}

const MAX_NAME = 64;

function sanitize(part: string): string {
  const clean = part.replace(/[^A-Za-z0-9_-]/g, '_');
  return clean === '' ? '_' : clean;
}

/** A name for `tool` of `server` no other tool in `taken` has (then added to `taken`). */
export function namespacedName(server: string, tool: string, taken: Set<string>): string {
  const base = `${sanitize(server).slice(0, 24)}__${sanitize(tool)}`.slice(0, MAX_NAME);
  let name = base;
  for (let suffix = 2; taken.has(name); suffix += 1) {
    name = `${base.slice(0, MAX_NAME - String(suffix).length - 1)}_${suffix}`;
  }
  taken.add(name);
  return name;
}

interface McpContent {
  readonly type: string;
  readonly text?: string;
  readonly mimeType?: string;
  readonly data?: string;
  readonly resource?: { readonly uri?: string; readonly text?: string; readonly mimeType?: string };
  readonly uri?: string;
}

/** A `tools/call` result as text for the model, at most `maxChars` characters. */
export function resultText(
  result: { content?: unknown; structuredContent?: unknown },
  maxChars: number,
): string {
  const parts: string[] = [];
  let length = 0;
  const content = Array.isArray(result.content) ? (result.content as McpContent[]) : [];
  for (const item of content) {
    let text: string;
    if (item.type === 'text' && typeof item.text === 'string') text = item.text;
    else if (item.type === 'resource' && typeof item.resource?.text === 'string') text = item.resource.text;
    else if (item.type === 'resource_link') text = `[resource ${item.uri ?? ''}]`;
    else
      text = `[${item.type}${item.mimeType === undefined ? '' : ` ${item.mimeType}`}${typeof item.data === 'string' ? `, ${Math.floor((item.data.length * 3) / 4)} bytes` : ''}]`;
    parts.push(text);
    length += text.length;
    if (length > maxChars) break;
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  const joined = parts.join('\n');
  if (joined.length <= maxChars) return joined;
  return `${joined.slice(0, maxChars)}\n\n[The result is cut here: it had more than ${maxChars} characters.]`;
}

/**
 * The AI SDK tool that calls `info` on `client`. `closedBecause` says why the server was closed under a call (a
 * message over maxResultBytes), so the call fails with that reason rather than "Connection closed".
 */
export function mcpTool(
  client: Client,
  server: string,
  info: McpToolInfo,
  settings: McpToolSettings,
  closedBecause: () => string | undefined = () => undefined,
): Tool {
  const title = `${info.annotations?.title ?? info.title ?? info.name} (${server})`;
  const base = dynamicTool({
    description: info.description ?? `The ${info.name} tool of the ${server} MCP server.`,
    inputSchema: jsonSchema(info.inputSchema as Parameters<typeof jsonSchema>[0]),
    execute: async (input, options) => {
      const result = await client
        .callTool({ name: info.name, arguments: (input ?? {}) as Record<string, unknown> }, undefined, {
          ...(options.abortSignal === undefined ? {} : { signal: options.abortSignal }),
          timeout: settings.callTimeoutMs,
          maxTotalTimeout: settings.callTimeoutMs,
        })
        .catch((error: unknown) => {
          const reason = closedBecause();
          throw reason === undefined ? error : new Error(reason, { cause: error });
        });
      const text = resultText(
        result as { content?: unknown; structuredContent?: unknown },
        settings.maxResultChars,
      );
      if (result.isError === true) throw new Error(`${server}/${info.name} failed: ${text}`);
      return text;
    },
  });
  return Object.assign(base, {
    title,
    ...(settings.needsApproval(server, info) ? { needsApproval: true } : {}),
  }) as Tool;
}
