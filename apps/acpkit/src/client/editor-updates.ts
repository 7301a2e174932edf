// How the terminal client shows what an agent puts on tool calls and around them: diffs (a compact unified view,
// bounded), embedded terminals, file locations, usage, modes, config options and slash commands.
import type {
  AvailableCommand,
  SessionConfigOption,
  ToolCallContent,
  ToolCallLocation,
} from '@agentclientprotocol/sdk';

/** At most this many changed lines of a diff are printed (the rest is counted). */
const MAX_DIFF_LINES = 40;

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * A diff as `--- path` / `+++ path` and its changed lines (`-` old, `+` new), the unchanged lines around the change
 * left out; at most MAX_DIFF_LINES lines.
 */
export function renderDiff(diff: Extract<ToolCallContent, { type: 'diff' }>): string {
  const before = splitLines(diff.oldText ?? '');
  const after = splitLines(diff.newText);
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start += 1;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore -= 1;
    endAfter -= 1;
  }
  const meta = (diff._meta as { acpkit?: { firstLine?: number } } | null | undefined)?.acpkit;
  const firstLine = (meta?.firstLine ?? 1) + start;
  const changed = [
    ...before.slice(start, endBefore).map((line) => `  - ${line}`),
    ...after.slice(start, endAfter).map((line) => `  + ${line}`),
  ];
  const shown = changed.slice(0, MAX_DIFF_LINES);
  const more = changed.length - shown.length;
  const header =
    diff.oldText === null || diff.oldText === undefined
      ? `  new file ${diff.path}`
      : `  --- ${diff.path}:${firstLine}`;
  return [header, ...shown, ...(more > 0 ? [`  … ${more} more changed lines`] : [])].join('\n');
}

/** `path:line` for each location, joined. */
export function renderLocations(locations: readonly ToolCallLocation[] | null | undefined): string {
  if (!locations || locations.length === 0) return '';
  return locations
    .map((location) => (location.line ? `${location.path}:${location.line}` : location.path))
    .join(', ');
}

/** The lines a tool call's content adds (diffs and terminals; text content is the agent's own business). */
export function renderToolContent(content: readonly ToolCallContent[] | null | undefined): string[] {
  const lines: string[] = [];
  for (const item of content ?? []) {
    if (item.type === 'diff') lines.push(renderDiff(item));
    else if (item.type === 'terminal') lines.push(`  ▶ terminal ${item.terminalId}`);
  }
  return lines;
}

/** `Context: 1,100 / 200,000 tokens (0.6%) · cost 0.0079 USD`. */
export function renderUsage(
  used: number,
  size: number,
  cost?: { amount: number; currency: string } | null,
): string {
  const percent = size > 0 ? ` (${((used / size) * 100).toFixed(1)}%)` : '';
  const money = cost ? ` · cost ${cost.amount.toFixed(4)} ${cost.currency}` : '';
  return `Context: ${used.toLocaleString('en')} / ${size.toLocaleString('en')} tokens${percent}${money}`;
}

/** `Options: Model = Fast (fast, smart) · Careful = false`. */
export function renderConfigOptions(options: readonly SessionConfigOption[]): string {
  return `Options: ${options
    .map((option) =>
      option.type === 'select'
        ? `${option.name} = ${option.currentValue}${'options' in option && Array.isArray(option.options) ? ` (${option.options.map((entry) => ('value' in entry ? entry.value : '')).join(', ')})` : ''}`
        : `${option.name} = ${String(option.currentValue)}`,
    )
    .join(' · ')} — /set <option> <value> changes one`;
}

/** `Commands: /review <file>, /echo` with how to run them. */
export function renderCommands(commands: readonly AvailableCommand[]): string {
  return `Commands: ${commands
    .map(
      (command) =>
        `/${command.name}${command.input ? ` <${command.input.hint}>` : ''} — ${command.description}`,
    )
    .join('; ')}`;
}
