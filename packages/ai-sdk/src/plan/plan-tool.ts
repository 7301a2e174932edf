// planTool(): the model publishes its plan and keeps it current; every call sends the whole plan as an ACP `plan`
// update (ACP plans are replaced whole) and keeps it in the session's state for replay.
import { invalidOption } from '@acpkit/errors';
import type { PlanEntry } from '@agentclientprotocol/sdk';
import type { Tool } from 'ai';
import { z } from 'zod';
import { sessionTool, type ToolRuntime } from '../tools/session-tools.js';

/** At most this many entries in a plan, each at most MAX_ENTRY_CHARS characters: a plan is read by a person. */
export const MAX_PLAN_ENTRIES = 50;
const MAX_ENTRY_CHARS = 500;

const planInput = z.object({
  entries: z
    .array(
      z.object({
        content: z.string().min(1).max(MAX_ENTRY_CHARS).describe('What this step does, in a short sentence.'),
        priority: z.enum(['high', 'medium', 'low']).default('medium'),
        status: z.enum(['pending', 'in_progress', 'completed']).default('pending'),
      }),
    )
    .max(MAX_PLAN_ENTRIES)
    .describe('The whole plan, in order: every step, with its current status.'),
});

/**
 * What the model passes to the tool made by {@link planTool}: the whole plan, each time.
 *
 * @example
 * ```ts
 * import type { PlanToolInput } from '@acpkit/ai-sdk';
 *
 * const input: PlanToolInput = { entries: [{ content: 'Read the failing test', priority: 'high', status: 'in_progress' }] };
 * ```
 */
export type PlanToolInput = z.input<typeof planInput>;

/**
 * Options of {@link planTool}.
 *
 * @example
 * ```ts
 * import type { PlanToolOptions } from '@acpkit/ai-sdk';
 *
 * const options: PlanToolOptions = { description: 'Keep your plan current.' };
 * ```
 */
export interface PlanToolOptions {
  readonly description?: string | undefined;
}

const DEFAULT_DESCRIPTION =
  'Publish your plan for the task and keep it current: pass every step each time, with its status ' +
  '(pending, in_progress, completed). The user sees the plan as you update it. Use it for tasks of several steps; ' +
  'mark a step in_progress when you start it and completed when it is done.';

async function publish(runtime: ToolRuntime, input: z.output<typeof planInput>): Promise<string> {
  const entries: PlanEntry[] = input.entries.map(({ content, priority, status }) => ({
    content,
    priority,
    status,
  }));
  runtime.state.plan = entries;
  await runtime.send({ sessionUpdate: 'plan', entries });
  const done = entries.filter((entry) => entry.status === 'completed').length;
  return `Plan updated: ${entries.length} step${entries.length === 1 ? '' : 's'}, ${done} completed.`;
}

/**
 * An AI SDK tool that lets the model publish and update its plan: each call sends the whole plan as an ACP `plan`
 * update (entries with `content`, `priority`, `status`), which the client shows as a checklist; the session keeps
 * the last plan (`state.plan`) and shows it again on `session/load`. Put it in the `tools` of
 * {@link createAiSdkAgent}.
 *
 * @throws `OptionError` (`@acpkit/errors`, code `INVALID_OPTION`) for a `description` that is not a non-empty string.
 * @example
 * ```ts
 * import { createAiSdkAgent, planTool } from '@acpkit/ai-sdk';
 * import type { LanguageModel } from 'ai';
 *
 * declare const model: LanguageModel;
 * export const createAgent = () =>
 *   createAiSdkAgent({ name: 'coder', version: '1.0.0', model, tools: { plan: planTool() } });
 * ```
 */
export function planTool(options: PlanToolOptions = {}): Tool<PlanToolInput, string> {
  const description = options.description ?? DEFAULT_DESCRIPTION;
  if (typeof description !== 'string' || description.trim() === '') {
    throw invalidOption('planTool description', 'a non-empty string', description);
  }
  return sessionTool(
    {
      description,
      title: 'Update the plan',
      inputSchema: planInput as unknown as z.ZodType<PlanToolInput>,
      execute: (runtime, input) => publish(runtime, input as z.output<typeof planInput>),
      describe: () => ({ title: 'Update the plan', kind: 'think' }),
    },
    'planTool()',
  );
}
