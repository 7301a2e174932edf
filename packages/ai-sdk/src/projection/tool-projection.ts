// How a tool call is shown by convention: its kind from the tool's name, its `locations` from path-like input fields,
// and a short form of its arguments for titles (permission requests name what is asked). A tool may override all of
// it with withToolCallDisplay(); the agent's describeToolCall hook overrides both.
import type { ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { Tool } from 'ai';
import type { ToolCallDisplay } from '../options.js';

const DISPLAY = Symbol.for('acpkit.ai-sdk.tool-call-display');

/** Words of a tool name → kind, first match wins (the order puts the more specific verbs first). */
const KIND_WORDS: ReadonlyArray<readonly [ToolKind, ReadonlySet<string>]> = [
  ['delete', new Set(['delete', 'remove', 'rm', 'unlink', 'rmdir'])],
  ['move', new Set(['move', 'rename', 'mv'])],
  [
    'edit',
    new Set(['write', 'edit', 'patch', 'replace', 'create', 'update', 'insert', 'apply', 'save', 'modify']),
  ],
  ['read', new Set(['read', 'view', 'cat', 'open', 'load', 'show', 'get'])],
  ['search', new Set(['search', 'grep', 'find', 'glob', 'list', 'ls', 'query', 'lookup'])],
  ['execute', new Set(['exec', 'execute', 'run', 'shell', 'bash', 'terminal', 'command', 'sh', 'spawn'])],
  ['fetch', new Set(['fetch', 'http', 'curl', 'download', 'web', 'browse', 'url', 'request'])],
  ['think', new Set(['think', 'plan', 'reason', 'todo', 'todos'])],
];

/** The words of a tool name: `readFile`, `read_file`, `fs.read-file`, `github__search_code` all split. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/**
 * The ACP tool kind a tool's name suggests (`readFile` → `read`, `run_command` → `execute`, …), `other` when no word
 * of it is known. For MCP tools (`server__tool`) the tool's own part is read first.
 */
export function kindFromToolName(name: string): ToolKind {
  const separator = name.lastIndexOf('__');
  const parts = separator > 0 ? [name.slice(separator + 2), name.slice(0, separator)] : [name];
  for (const part of parts) {
    const words = nameWords(part);
    for (const [kind, verbs] of KIND_WORDS) if (words.some((word) => verbs.has(word))) return kind;
  }
  return 'other';
}

const PATH_KEYS = [
  'path',
  'filePath',
  'file_path',
  'filepath',
  'file',
  'filename',
  'fileName',
  'target',
  'uri',
];
const LIST_KEYS = ['paths', 'files', 'filePaths', 'file_paths'];
const LINE_KEYS = ['line', 'startLine', 'start_line', 'lineNumber', 'line_number'];
/** At most this many locations per call: a tool given a thousand paths must not make a thousand-entry update. */
export const MAX_LOCATIONS = 20;
const MAX_PATH_LENGTH = 4_096;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '' || value.length > MAX_PATH_LENGTH) return undefined;
  return value.startsWith('file://') ? decodeURIComponent(value.slice('file://'.length)) : value;
}

/** The files a call's input names (`path`, `filePath`, `paths`, … with `line` when given), at most MAX_LOCATIONS. */
export function locationsFromInput(input: unknown): ToolCallLocation[] {
  if (!isRecord(input)) return [];
  const locations: ToolCallLocation[] = [];
  const line = LINE_KEYS.map((key) => input[key]).find(
    (value): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0,
  );
  for (const key of PATH_KEYS) {
    const path = asPath(input[key]);
    if (path === undefined) continue;
    locations.push(line === undefined ? { path } : { path, line });
    break;
  }
  for (const key of LIST_KEYS) {
    const list = input[key];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (locations.length >= MAX_LOCATIONS) return locations;
      const path = asPath(item) ?? (isRecord(item) ? asPath(item.path) : undefined);
      if (path !== undefined) locations.push({ path });
    }
  }
  return locations;
}

const MAX_VALUE_CHARS = 40;
const MAX_ARGUMENTS_CHARS = 80;

function shortValue(value: unknown): string {
  let text: string;
  if (typeof value === 'string')
    text = JSON.stringify(value.length > MAX_VALUE_CHARS ? `${value.slice(0, MAX_VALUE_CHARS)}…` : value);
  else if (typeof value === 'number' || typeof value === 'boolean' || value === null) text = String(value);
  else if (Array.isArray(value)) text = `[${value.length} item${value.length === 1 ? '' : 's'}]`;
  else if (isRecord(value)) text = '{…}';
  else text = String(value);
  return text.replace(/\s+/g, ' ');
}

/**
 * A short, one-line form of a call's arguments for a title: `command="npm test", cwd="/repo"`, at most 80
 * characters (long values and the rest cut with `…`). Empty for a call without arguments.
 */
export function shortArguments(input: unknown): string {
  if (input === undefined || input === null) return '';
  if (!isRecord(input)) return shortValue(input).slice(0, MAX_ARGUMENTS_CHARS);
  let text = '';
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const part = `${text === '' ? '' : ', '}${key}=${shortValue(value)}`;
    if (text.length + part.length > MAX_ARGUMENTS_CHARS) return `${text}${text === '' ? '' : ', '}…`;
    text += part;
  }
  return text;
}

/** How a call of a tool is shown, as {@link withToolCallDisplay} declares it. */
export type ToolCallDisplaySpec = ToolCallDisplay | ((input: unknown) => ToolCallDisplay | undefined);

/**
 * Declares how calls of `tool` are shown to the client (title, kind, locations), overriding the conventions (kind
 * from the tool's name, locations from `path`-like input fields). Returns the same tool object.
 *
 * @example
 * ```ts
 * import { withToolCallDisplay } from '@acpkit/ai-sdk';
 * import { tool } from 'ai';
 * import { z } from 'zod';
 *
 * const lint = withToolCallDisplay(
 *   tool({ description: 'Lint a file.', inputSchema: z.object({ file: z.string() }), execute: async () => 'ok' }),
 *   (input) => ({ title: `Lint ${(input as { file: string }).file}`, kind: 'execute' }),
 * );
 * ```
 */
export function withToolCallDisplay<T extends Tool>(tool: T, display: ToolCallDisplaySpec): T {
  Object.defineProperty(tool, DISPLAY, { value: display, enumerable: false, configurable: true });
  return tool;
}

/** The display a tool declared for `input` (see {@link withToolCallDisplay}). */
export function declaredDisplay(tool: Tool | undefined, input: unknown): ToolCallDisplay | undefined {
  const spec = (tool as { [DISPLAY]?: ToolCallDisplaySpec } | undefined)?.[DISPLAY];
  if (spec === undefined) return undefined;
  return typeof spec === 'function' ? spec(input) : spec;
}

/** The title of a permission request: the call's title and a short form of its arguments. */
export function permissionTitle(title: string, input: unknown): string {
  const args = shortArguments(input);
  return args === '' ? title : `${title} (${args})`;
}
