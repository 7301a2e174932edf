// Session modes: what the author declares (`modes`), their check, and what a mode changes in a turn (the system
// prompt, the tool set). `session/set_mode` switches them; `current_mode_update` announces the switch.
import { invalidOption } from '@acpkit/errors';
import type { SessionModeState } from '@agentclientprotocol/sdk';

/**
 * One mode of the agent (ACP `availableModes`), e.g. "ask" (read-only tools) and "code" (every tool).
 *
 * @example
 * ```ts
 * import type { AiSdkMode } from '@acpkit/ai-sdk';
 *
 * const ask: AiSdkMode = { id: 'ask', name: 'Ask', description: 'Answers, changes nothing.', tools: ['readFile'] };
 * ```
 */
export interface AiSdkMode {
  /** The mode's id (`session/set_mode`'s `modeId`). */
  readonly id: string;
  /** What the client shows. */
  readonly name: string;
  readonly description?: string | undefined;
  /** The system prompt in this mode (in place of the agent's `system`). */
  readonly system?: string | undefined;
  /**
   * The names of the tools the model may call in this mode (the agent's tools and the editor's MCP tools, which are
   * named `server__tool`; a name ending in `*` matches a prefix, e.g. `'github__*'`). Default: every tool.
   */
  readonly tools?: readonly string[] | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks `modes` (unique non-empty ids, names, string arrays). */
export function resolveModes(value: unknown): readonly AiSdkMode[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalidOption('modes', 'an array of { id, name, … }', value);
  const seen = new Set<string>();
  value.forEach((mode: unknown, index) => {
    const at = `modes[${index}]`;
    if (!isRecord(mode))
      throw invalidOption(at, 'an object { id, name, description?, system?, tools? }', mode);
    if (typeof mode.id !== 'string' || mode.id === '')
      throw invalidOption(`${at}.id`, 'a non-empty string', mode.id);
    if (seen.has(mode.id)) throw invalidOption(`${at}.id`, 'an id no other mode has', mode.id);
    seen.add(mode.id);
    if (typeof mode.name !== 'string' || mode.name === '') {
      throw invalidOption(`${at}.name`, 'a non-empty string', mode.name);
    }
    for (const key of ['description', 'system'] as const) {
      if (mode[key] !== undefined && typeof mode[key] !== 'string') {
        throw invalidOption(`${at}.${key}`, 'a string', mode[key]);
      }
    }
    if (
      mode.tools !== undefined &&
      !(Array.isArray(mode.tools) && mode.tools.every((name) => typeof name === 'string'))
    ) {
      throw invalidOption(`${at}.tools`, 'an array of tool names', mode.tools);
    }
  });
  return value as readonly AiSdkMode[];
}

/** The modes as ACP offers them, with `currentModeId`; `undefined` without modes. */
export function modeState(
  modes: readonly AiSdkMode[],
  currentModeId: string | undefined,
): SessionModeState | undefined {
  const first = modes[0];
  if (first === undefined) return undefined;
  return {
    currentModeId: currentModeId ?? first.id,
    availableModes: modes.map((mode) => ({
      id: mode.id,
      name: mode.name,
      ...(mode.description === undefined ? {} : { description: mode.description }),
    })),
  };
}

/** The mode of a session: its chosen one, else the first. */
export function currentMode(modes: readonly AiSdkMode[], modeId: string | undefined): AiSdkMode | undefined {
  return modes.find((mode) => mode.id === modeId) ?? modes[0];
}

/** Whether `mode` lets the model call `toolName`. */
export function modeAllows(mode: AiSdkMode | undefined, toolName: string): boolean {
  const allowed = mode?.tools;
  if (allowed === undefined) return true;
  return allowed.some((name) =>
    name.endsWith('*') ? toolName.startsWith(name.slice(0, -1)) : name === toolName,
  );
}
