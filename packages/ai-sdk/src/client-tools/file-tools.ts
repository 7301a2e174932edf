// clientFileTools(): read, write and edit files through the editor (`fs/read_text_file`, `fs/write_text_file`), so
// the model sees unsaved buffers and the user sees each change as a diff on the tool call. A tool is offered only
// when the client advertises the method it needs.
import { isAbsolute, resolve } from 'node:path';
import { invalidOption } from '@acpkit/errors';
import type { Tool } from 'ai';
import { z } from 'zod';
import { sessionTool, type ToolRuntime } from '../tools/session-tools.js';
import { boundedDiff, DEFAULT_MAX_DIFF_CHARS } from './bounded-diff.js';
import { ClientRequestFailed, clientRequest, textOf } from './client-requests.js';

/**
 * Options of {@link clientFileTools}.
 *
 * @example
 * ```ts
 * import type { ClientFileToolsOptions } from '@acpkit/ai-sdk';
 *
 * const options: ClientFileToolsOptions = { approveWrites: true, maxReadChars: 50_000 };
 * ```
 */
export interface ClientFileToolsOptions {
  /** Ask the user before each write or edit (`session/request_permission`). Default `false`: the diff shows it. */
  readonly approveWrites?: boolean | undefined;
  /** The model gets at most this many characters of a file per read (the rest: read on with `line`). Default 100 000. */
  readonly maxReadChars?: number | undefined;
  /** Diffs of texts longer than this show only the changed region. Default 262 144 characters. */
  readonly maxDiffChars?: number | undefined;
}

/** The default of {@link ClientFileToolsOptions.maxReadChars}. */
export const DEFAULT_MAX_READ_CHARS = 100_000;

const pathField = z.string().min(1).describe('The file path, absolute or relative to the working directory.');
const readInput = z.object({
  path: pathField,
  line: z.int().min(1).optional().describe('The first line to read (1-based).'),
  limit: z.int().min(1).optional().describe('How many lines to read.'),
});
const writeInput = z.object({
  path: pathField,
  content: z.string().describe('The whole new content of the file.'),
});
const editInput = z.object({
  path: pathField,
  oldText: z.string().min(1).describe('The exact text to replace (include enough lines to make it unique).'),
  newText: z.string().describe('The text to put in its place.'),
  replaceAll: z.boolean().optional().describe('Replace every occurrence instead of exactly one.'),
});

/** The tools made by {@link clientFileTools}. */
export interface ClientFileTools {
  readonly readFile: Tool<z.infer<typeof readInput>, string>;
  readonly writeFile: Tool<z.infer<typeof writeInput>, string>;
  readonly editFile: Tool<z.infer<typeof editInput>, string>;
}

interface ResolvedFileOptions {
  readonly approveWrites: boolean;
  readonly maxReadChars: number;
  readonly maxDiffChars: number;
}

function absolute(runtime: ToolRuntime, path: string): string {
  return isAbsolute(path) ? path : resolve(runtime.cwd, path);
}

function canRead(runtime: ToolRuntime): boolean {
  return runtime.session.clientCapabilities?.fs?.readTextFile === true;
}

function canWrite(runtime: ToolRuntime): boolean {
  return runtime.session.clientCapabilities?.fs?.writeTextFile === true;
}

async function readText(runtime: ToolRuntime, path: string, extra: { line?: number; limit?: number } = {}) {
  const response = await clientRequest(
    runtime.session.client,
    'fs/read_text_file',
    { sessionId: runtime.session.sessionId, path, ...extra },
    `read ${path}`,
    runtime.session.signal,
  );
  return textOf(response, path);
}

/** The file's text before a write, `null` when it cannot be read (a new file, or a client that cannot read). */
async function textBefore(runtime: ToolRuntime, path: string): Promise<string | null> {
  if (!canRead(runtime)) return null;
  try {
    return await readText(runtime, path);
  } catch (error) {
    if (error instanceof ClientRequestFailed) return null;
    throw error;
  }
}

/** Shows the change as a diff on the tool call, then writes it through the client. */
async function writeWithDiff(
  runtime: ToolRuntime,
  toolCallId: string,
  path: string,
  oldText: string | null,
  newText: string,
  options: ResolvedFileOptions,
): Promise<{ line: number; cropped: boolean }> {
  const diff = boundedDiff(path, oldText, newText, options.maxDiffChars);
  await runtime.send({
    sessionUpdate: 'tool_call_update',
    toolCallId,
    content: [diff.content],
    locations: [{ path, line: diff.line }],
  });
  await clientRequest(
    runtime.session.client,
    'fs/write_text_file',
    { sessionId: runtime.session.sessionId, path, content: newText },
    `write ${path}`,
    runtime.session.signal,
  );
  return { line: diff.line, cropped: diff.cropped };
}

function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines += 1;
  return lines;
}

function occurrences(text: string, search: string, stopAt: number): number {
  let count = 0;
  for (
    let at = text.indexOf(search);
    at >= 0 && count < stopAt;
    at = text.indexOf(search, at + search.length)
  ) {
    count += 1;
  }
  return count;
}

function resolveFileOptions(options: ClientFileToolsOptions): ResolvedFileOptions {
  const positive = (name: string, value: number | undefined, fallback: number) => {
    if (value === undefined) return fallback;
    if (!Number.isSafeInteger(value) || value < 1)
      throw invalidOption(`clientFileTools ${name}`, 'a positive integer', value);
    return value;
  };
  if (options.approveWrites !== undefined && typeof options.approveWrites !== 'boolean') {
    throw invalidOption('clientFileTools approveWrites', 'true or false', options.approveWrites);
  }
  return {
    approveWrites: options.approveWrites === true,
    maxReadChars: positive('maxReadChars', options.maxReadChars, DEFAULT_MAX_READ_CHARS),
    maxDiffChars: positive('maxDiffChars', options.maxDiffChars, DEFAULT_MAX_DIFF_CHARS),
  };
}

/**
 * File tools that work through the ACP client: `readFile` (`fs/read_text_file`: the editor's buffer, unsaved
 * changes included), `writeFile` and `editFile` (`fs/write_text_file`; an edit replaces an exact text). Each is
 * offered only when the client advertises the method (`clientCapabilities.fs`); writes and edits show a `diff` and
 * the file's location on their tool call (large files: only the changed region). A client error is the tool's error
 * (the model reads it and the session goes on). Spread them into the `tools` of {@link createAiSdkAgent}.
 *
 * @throws `OptionError` (`@acpkit/errors`, code `INVALID_OPTION`) for a bad option.
 * @example
 * ```ts
 * import { clientFileTools, createAiSdkAgent } from '@acpkit/ai-sdk';
 * import type { LanguageModel } from 'ai';
 *
 * declare const model: LanguageModel;
 * export const createAgent = () =>
 *   createAiSdkAgent({ name: 'coder', version: '1.0.0', model, tools: { ...clientFileTools() } });
 * ```
 */
export function clientFileTools(options: ClientFileToolsOptions = {}): ClientFileTools {
  const resolved = resolveFileOptions(options);
  const readFile = sessionTool(
    {
      description:
        'Read a text file as the editor has it (unsaved changes included). Long files are cut; read on with `line` ' +
        'and `limit`.',
      title: 'Read file',
      inputSchema: readInput,
      offered: canRead,
      describe: (input) => {
        const { path, line } = (input ?? {}) as Partial<z.infer<typeof readInput>>;
        return {
          title: `Read ${path ?? 'a file'}`,
          kind: 'read',
          locations: path === undefined ? [] : [{ path, line: line ?? null }],
        };
      },
      execute: async (runtime, input) => {
        const path = absolute(runtime, input.path);
        const text = await readText(runtime, path, {
          ...(input.line === undefined ? {} : { line: input.line }),
          ...(input.limit === undefined ? {} : { limit: input.limit }),
        });
        if (text.length <= resolved.maxReadChars) return text;
        const shown = text.slice(0, resolved.maxReadChars);
        return (
          `${shown}\n\n[The file is cut here: it has ${text.length} characters, ${lineCount(text)} lines; ` +
          `this shows the first ${resolved.maxReadChars} (${lineCount(shown)} lines). Read on with line and limit.]`
        );
      },
    },
    'clientFileTools()',
  );
  const writeFile = sessionTool(
    {
      description: 'Write a whole text file through the editor (creates it or replaces its content).',
      title: 'Write file',
      inputSchema: writeInput,
      offered: canWrite,
      keepsContent: true,
      needsApproval: resolved.approveWrites,
      describe: (input) => {
        const { path } = (input ?? {}) as Partial<z.infer<typeof writeInput>>;
        return {
          title: `Write ${path ?? 'a file'}`,
          kind: 'edit',
          locations: path === undefined ? [] : [{ path }],
        };
      },
      execute: async (runtime, input, { toolCallId }) => {
        const path = absolute(runtime, input.path);
        const before = await textBefore(runtime, path);
        await writeWithDiff(runtime, toolCallId, path, before, input.content, resolved);
        return `${before === null ? 'Wrote' : 'Replaced'} ${path} (${lineCount(input.content)} lines).`;
      },
    },
    'clientFileTools()',
  );
  const editFile = sessionTool(
    {
      description:
        'Edit a text file through the editor: replace `oldText` (exact, unique unless replaceAll) with `newText`.',
      title: 'Edit file',
      inputSchema: editInput,
      offered: (runtime) => canRead(runtime) && canWrite(runtime),
      keepsContent: true,
      needsApproval: resolved.approveWrites,
      describe: (input) => {
        const { path } = (input ?? {}) as Partial<z.infer<typeof editInput>>;
        return {
          title: `Edit ${path ?? 'a file'}`,
          kind: 'edit',
          locations: path === undefined ? [] : [{ path }],
        };
      },
      execute: async (runtime, input, { toolCallId }) => {
        const path = absolute(runtime, input.path);
        const before = await readText(runtime, path);
        const found = occurrences(before, input.oldText, 2);
        if (found === 0)
          throw new Error(`oldText was not found in ${path}; read the file and copy the text exactly.`);
        if (found > 1 && input.replaceAll !== true) {
          throw new Error(
            `oldText occurs more than once in ${path}; include more lines to make it unique, or set replaceAll.`,
          );
        }
        const after =
          input.replaceAll === true
            ? before.replaceAll(input.oldText, () => input.newText)
            : before.replace(input.oldText, () => input.newText);
        const { line } = await writeWithDiff(runtime, toolCallId, path, before, after, resolved);
        return `Edited ${path} at line ${line}.`;
      },
    },
    'clientFileTools()',
  );
  return { readFile, writeFile, editFile };
}
