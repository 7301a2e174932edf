// Tools that need the ACP session (to ask the user, to call the client's fs/terminal methods, to publish a plan) are
// built per turn: such a tool carries a marker whose `bind(runtime)` returns the working tool, or `undefined` when
// the client cannot serve it (then the model is not offered it). The same tool object run outside an agent fails
// with TOOL_OUTSIDE_SESSION instead of guessing a session.
import type { AcpSessionContext } from '@acpkit/elicitation';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { FlexibleSchema, Tool, ToolSet } from 'ai';
import { AiSdkAgentError, AiSdkAgentErrorCode } from '../errors.js';
import type { ToolCallDisplay } from '../options.js';
import type { SessionState } from '../session-state/session-state.js';

const SESSION_TOOL = Symbol.for('acpkit.ai-sdk.session-tool');

/**
 * What a session tool's call gets from the AI SDK besides its input (the part of `ToolExecutionOptions` both majors
 * share; ai 7 made that type generic).
 */
export interface ToolCallContext {
  readonly toolCallId: string;
  readonly abortSignal?: AbortSignal | undefined;
}

/** What a session tool runs against: the turn's session, its state, and the turn's recorded update channel. */
export interface ToolRuntime {
  /** The turn as `@acpkit/elicitation` sees it (client, capabilities, `signal`). */
  readonly session: AcpSessionContext;
  /** The session's working directory (relative paths resolve against it). */
  readonly cwd: string;
  /** The session's mode, config values and plan. */
  readonly state: SessionState;
  /** Sends a `session/update` of this turn (recorded for replay, in order with the turn's own updates). */
  send(update: SessionUpdate): Promise<void>;
}

/** A tool that runs in an ACP session. */
export interface SessionToolSpec<Input, Output> {
  readonly description: string;
  /** Title of the tool (the AI SDK's `title`), and of its calls unless `describe` says otherwise. */
  readonly title: string;
  readonly inputSchema: FlexibleSchema<Input>;
  /** Runs one call in `runtime`. */
  execute(runtime: ToolRuntime, input: Input, options: ToolCallContext): Promise<Output>;
  /** How a call is shown, from its input. */
  describe?(input: unknown): ToolCallDisplay | undefined;
  /** Whether the tool is offered in this session (e.g. only when the client advertises `fs.readTextFile`). */
  offered?(runtime: ToolRuntime): boolean;
  /** The tool sends its own tool-call content (a diff, a terminal): its output is not shown in its place. */
  readonly keepsContent?: boolean;
  /** Marks the call as needing the user's approval (the AI SDK's `needsApproval`). */
  readonly needsApproval?: boolean;
}

interface SessionToolMarker {
  bind(runtime: ToolRuntime): Tool | undefined;
  describe?(input: unknown): ToolCallDisplay | undefined;
  readonly keepsContent: boolean;
}

/** A session tool: the unbound AI SDK tool (its `execute` throws TOOL_OUTSIDE_SESSION) with its marker. */
export function sessionTool<Input, Output>(
  spec: SessionToolSpec<Input, Output>,
  helperName: string,
): Tool<Input, Output> {
  const { description, title, inputSchema } = spec;
  const approval = spec.needsApproval === true ? { needsApproval: true } : {};
  // `Tool<Input, Output>` is a conditional type over Output that TypeScript cannot resolve for a generic Output,
  // hence the casts; the objects are plain function tools ({ description, title, inputSchema, execute }).
  const unbound = {
    description,
    title,
    inputSchema,
    ...approval,
    execute: () => {
      throw new AiSdkAgentError(
        AiSdkAgentErrorCode.ToolOutsideSession,
        `A tool made by ${helperName} works through an ACP session, so it only runs inside an agent made ` +
          'by createAiSdkAgent({ tools: { … } }); it was called without one.',
      );
    },
  } as unknown as Tool<Input, Output>;
  const marker: SessionToolMarker = {
    keepsContent: spec.keepsContent === true,
    bind: (runtime) =>
      spec.offered !== undefined && !spec.offered(runtime)
        ? undefined
        : ({
            description,
            title,
            inputSchema,
            ...approval,
            execute: (input: Input, options: ToolCallContext) => spec.execute(runtime, input, options),
          } as unknown as Tool),
  };
  if (spec.describe !== undefined) marker.describe = spec.describe;
  Object.defineProperty(unbound, SESSION_TOOL, { value: marker, enumerable: false });
  return unbound;
}

function markerOf(tool: Tool | undefined): SessionToolMarker | undefined {
  return (tool as { [SESSION_TOOL]?: SessionToolMarker } | undefined)?.[SESSION_TOOL];
}

/**
 * The tools as one turn runs them: session tools bound to `runtime` (left out when the client cannot serve them),
 * the others as given (same object when there are no session tools).
 */
export function bindSessionTools(tools: ToolSet, runtime: ToolRuntime): ToolSet {
  let bound: Record<string, Tool> | undefined;
  for (const [name, tool] of Object.entries(tools)) {
    const marker = markerOf(tool);
    if (marker === undefined) continue;
    bound ??= { ...tools };
    const working = marker.bind(runtime);
    if (working === undefined) delete bound[name];
    else bound[name] = working;
  }
  return (bound as ToolSet | undefined) ?? tools;
}

/** How a session tool's call is shown, when it says. */
export function describeSessionToolCall(tool: Tool | undefined, input: unknown): ToolCallDisplay | undefined {
  return markerOf(tool)?.describe?.(input);
}

/** Whether a tool shows its own content (its output must not replace it). */
export function keepsOutputContent(tool: Tool | undefined): boolean {
  return markerOf(tool)?.keepsContent === true;
}
