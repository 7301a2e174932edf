// Tools that need the ACP session (to ask the user) are built per session: such a tool carries a marker whose
// `bind(session)` returns the working tool. The agent binds them when a session opens; the same tool object run
// outside an agent fails with TOOL_OUTSIDE_SESSION instead of guessing a session.
import type { AcpSessionContext } from '@acpkit/elicitation';
import type { FlexibleSchema, Tool, ToolSet } from 'ai';
import { AiSdkAgentError, AiSdkAgentErrorCode } from '../errors.js';
import type { ToolCallDisplay } from '../options.js';

const SESSION_TOOL = Symbol.for('acpkit.ai-sdk.session-tool');

/**
 * What a session tool's call gets from the AI SDK besides its input (the part of `ToolExecutionOptions` both majors
 * share; ai 7 made that type generic).
 */
export interface ToolCallContext {
  readonly toolCallId: string;
  readonly abortSignal?: AbortSignal | undefined;
}

/** A tool that runs in an ACP session. */
export interface SessionToolSpec<Input, Output> {
  readonly description: string;
  /** Title of the tool (the AI SDK's `title`), and of its calls unless `describe` says otherwise. */
  readonly title: string;
  readonly inputSchema: FlexibleSchema<Input>;
  /** Runs one call in `session`. */
  execute(session: AcpSessionContext, input: Input, options: ToolCallContext): Promise<Output>;
  /** How a call is shown, from its input. */
  describe?(input: unknown): ToolCallDisplay | undefined;
}

interface SessionToolMarker {
  bind(session: AcpSessionContext): Tool;
  describe?(input: unknown): ToolCallDisplay | undefined;
}

/** A session tool: the unbound AI SDK tool (its `execute` throws TOOL_OUTSIDE_SESSION) with its marker. */
export function sessionTool<Input, Output>(
  spec: SessionToolSpec<Input, Output>,
  helperName: string,
): Tool<Input, Output> {
  const { description, title, inputSchema } = spec;
  // `Tool<Input, Output>` is a conditional type over Output that TypeScript cannot resolve for a generic Output,
  // hence the casts; the objects are plain function tools ({ description, title, inputSchema, execute }).
  const unbound = {
    description,
    title,
    inputSchema,
    execute: () => {
      throw new AiSdkAgentError(
        AiSdkAgentErrorCode.ToolOutsideSession,
        `A tool made by ${helperName} asks the user through an ACP session, so it only runs inside an agent made ` +
          'by createAiSdkAgent({ tools: { … } }); it was called without one.',
      );
    },
  } as unknown as Tool<Input, Output>;
  const marker: SessionToolMarker = {
    bind: (session) =>
      ({
        description,
        title,
        inputSchema,
        execute: (input: Input, options: ToolCallContext) => spec.execute(session, input, options),
      }) as unknown as Tool,
  };
  if (spec.describe !== undefined) marker.describe = spec.describe;
  Object.defineProperty(unbound, SESSION_TOOL, { value: marker, enumerable: false });
  return unbound;
}

function markerOf(tool: Tool): SessionToolMarker | undefined {
  return (tool as { [SESSION_TOOL]?: SessionToolMarker })[SESSION_TOOL];
}

/** The tools as one session runs them: session tools bound to `session`, the others as given (same object when none). */
export function bindSessionTools(tools: ToolSet, session: AcpSessionContext): ToolSet {
  let bound: Record<string, Tool> | undefined;
  for (const [name, tool] of Object.entries(tools)) {
    const marker = markerOf(tool);
    if (marker === undefined) continue;
    bound ??= { ...tools };
    bound[name] = marker.bind(session);
  }
  return (bound as ToolSet | undefined) ?? tools;
}

/** How a session tool's call is shown, when it says. */
export function describeSessionToolCall(tool: Tool | undefined, input: unknown): ToolCallDisplay | undefined {
  return tool === undefined ? undefined : markerOf(tool)?.describe?.(input);
}
