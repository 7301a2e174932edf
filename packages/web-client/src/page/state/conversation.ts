// The conversation the page shows, built from session updates and the agent's requests: plain data, no DOM.
import { type FormModel, readForm } from '@acpkit/form-schema';

export interface ToolContent {
  readonly type: 'content' | 'diff' | 'terminal';
  readonly text?: string;
  readonly path?: string;
  readonly oldText?: string | null;
  readonly newText?: string;
  readonly terminalId?: string;
}

export interface ToolCallEntry {
  readonly kind: 'tool';
  readonly key: string;
  toolCallId: string;
  title: string;
  toolKind: string;
  status: string;
  content: ToolContent[];
  locations: { path: string; line?: number | null }[];
  rawInput: unknown;
  rawOutput: unknown;
  /** Output of the tool's terminal, when the agent reports it in `_meta.terminal_output` (Claude Code's convention). */
  terminalOutput: string;
  exitCode: number | undefined;
}

export interface TextEntry {
  readonly kind: 'user' | 'agent' | 'thought';
  readonly key: string;
  text: string;
}

export interface PlanEntryView {
  readonly content: string;
  readonly priority: string;
  readonly status: string;
}

/** What the person answered to a request, shown once it is settled. */
export type Settled = { readonly summary: string };

export interface PermissionEntry {
  readonly kind: 'permission';
  readonly key: string;
  readonly requestId: number | string;
  readonly sessionId: string | undefined;
  readonly title: string;
  readonly options: readonly { optionId: string; name: string; kind: string }[];
  settled: Settled | undefined;
}

export interface FormEntry {
  readonly kind: 'form';
  readonly key: string;
  readonly requestId: number | string;
  readonly sessionId: string | undefined;
  readonly message: string;
  readonly model: FormModel;
  settled: Settled | undefined;
}

export interface NoticeEntry {
  readonly kind: 'notice';
  readonly key: string;
  readonly text: string;
  readonly tone: 'info' | 'warning' | 'error';
}

export type Entry = TextEntry | ToolCallEntry | PermissionEntry | FormEntry | NoticeEntry;

export interface ModeView {
  readonly id: string;
  readonly name: string;
  readonly description?: string | null;
}

export interface ConfigOptionView {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly currentValue: unknown;
  readonly options: readonly { value: string; name: string }[];
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Text of a content block: text as is, other blocks named by their type. */
function blockText(block: unknown): string {
  if (!isRecord(block)) return '';
  if (block.type === 'text') return text(block.text);
  if (block.type === 'resource_link') return `[${text(block.name) || text(block.uri)}]`;
  return `[${text(block.type)}]`;
}

function readToolContent(items: unknown): ToolContent[] {
  if (!Array.isArray(items)) return [];
  const content: ToolContent[] = [];
  for (const item of items) {
    if (!isRecord(item)) continue;
    if (item.type === 'diff') {
      content.push({
        type: 'diff',
        path: text(item.path),
        oldText: typeof item.oldText === 'string' ? item.oldText : null,
        newText: text(item.newText),
      });
    } else if (item.type === 'terminal') {
      content.push({ type: 'terminal', terminalId: text(item.terminalId) });
    } else if (item.type === 'content') {
      content.push({ type: 'content', text: blockText(item.content) });
    }
  }
  return content;
}

function readOptions(options: unknown): { value: string; name: string }[] {
  if (!Array.isArray(options)) return [];
  const flat: { value: string; name: string }[] = [];
  for (const option of options) {
    if (!isRecord(option)) continue;
    if (Array.isArray(option.options)) flat.push(...readOptions(option.options));
    else flat.push({ value: text(option.value), name: text(option.name) || text(option.value) });
  }
  return flat;
}

export function readConfigOptions(value: unknown): ConfigOptionView[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((option) => ({
    id: text(option.id),
    name: text(option.name) || text(option.id),
    type: text(option.type),
    currentValue: option.currentValue,
    options: readOptions(option.options),
  }));
}

/**
 * Everything on screen for one session, updated in place; `version` grows with each change so the view can redraw
 * once per frame however many updates arrived.
 */
export class Conversation {
  entries: Entry[] = [];
  plan: PlanEntryView[] = [];
  modes: ModeView[] = [];
  currentModeId: string | undefined;
  configOptions: ConfigOptionView[] = [];
  commands: { name: string; description: string }[] = [];
  usage: { used: number; size: number; cost?: { amount: number; currency: string } } | undefined;
  title: string | undefined;
  turnActive = false;
  version = 0;
  private nextKey = 0;
  private readonly tools = new Map<string, ToolCallEntry>();

  key(): string {
    this.nextKey += 1;
    return `e${this.nextKey}`;
  }

  changed(): void {
    this.version += 1;
  }

  addUser(textValue: string): void {
    this.entries.push({ kind: 'user', key: this.key(), text: textValue });
    this.changed();
  }

  notice(textValue: string, tone: NoticeEntry['tone'] = 'info'): void {
    this.entries.push({ kind: 'notice', key: this.key(), text: textValue, tone });
    this.changed();
  }

  /** Applies one `session/update` notification's `update`. Unknown kinds are ignored (newer agents). */
  apply(update: unknown): void {
    if (!isRecord(update)) return;
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        this.appendText('agent', blockText(update.content));
        break;
      case 'agent_thought_chunk':
        this.appendText('thought', blockText(update.content));
        break;
      case 'user_message_chunk':
        this.appendText('user', blockText(update.content));
        break;
      case 'tool_call':
      case 'tool_call_update':
        this.applyTool(update);
        break;
      case 'plan':
        this.plan = Array.isArray(update.entries)
          ? update.entries.filter(isRecord).map((entry) => ({
              content: text(entry.content),
              priority: text(entry.priority),
              status: text(entry.status),
            }))
          : [];
        break;
      case 'available_commands_update':
        this.commands = Array.isArray(update.availableCommands)
          ? update.availableCommands
              .filter(isRecord)
              .map((command) => ({ name: text(command.name), description: text(command.description) }))
          : [];
        break;
      case 'current_mode_update':
        this.currentModeId = text(update.currentModeId);
        break;
      case 'config_option_update':
        this.configOptions = readConfigOptions(update.configOptions);
        break;
      case 'session_info_update':
        if (typeof update.title === 'string') this.title = update.title;
        break;
      case 'usage_update':
        this.usage = {
          used: Number(update.used) || 0,
          size: Number(update.size) || 0,
          ...(isRecord(update.cost)
            ? { cost: { amount: Number(update.cost.amount) || 0, currency: text(update.cost.currency) } }
            : {}),
        };
        break;
      default:
        return;
    }
    this.changed();
  }

  /** Shows the modes and config options a session/new or session/load answer carried. */
  applySetup(result: unknown): void {
    if (!isRecord(result)) return;
    if (isRecord(result.modes)) {
      this.currentModeId = text(result.modes.currentModeId);
      this.modes = Array.isArray(result.modes.availableModes)
        ? result.modes.availableModes.filter(isRecord).map((mode) => ({
            id: text(mode.id),
            name: text(mode.name) || text(mode.id),
            description: typeof mode.description === 'string' ? mode.description : null,
          }))
        : [];
    }
    if (Array.isArray(result.configOptions)) this.configOptions = readConfigOptions(result.configOptions);
    this.changed();
  }

  addPermission(requestId: number | string, params: unknown, settled: Settled | undefined): PermissionEntry {
    const request = isRecord(params) ? params : {};
    const toolCall = isRecord(request.toolCall) ? request.toolCall : {};
    if (typeof toolCall.toolCallId === 'string')
      this.applyTool({ ...toolCall, sessionUpdate: 'tool_call_update' });
    const entry: PermissionEntry = {
      kind: 'permission',
      key: this.key(),
      requestId,
      sessionId: typeof request.sessionId === 'string' ? request.sessionId : undefined,
      title:
        text(toolCall.title) ||
        this.tools.get(text(toolCall.toolCallId))?.title ||
        'The agent asks for permission',
      options: Array.isArray(request.options)
        ? request.options.filter(isRecord).map((option) => ({
            optionId: text(option.optionId),
            name: text(option.name),
            kind: text(option.kind),
          }))
        : [],
      settled,
    };
    this.entries.push(entry);
    this.changed();
    return entry;
  }

  addForm(requestId: number | string, params: unknown, settled: Settled | undefined): FormEntry {
    const request = isRecord(params) ? params : {};
    const entry: FormEntry = {
      kind: 'form',
      key: this.key(),
      requestId,
      sessionId: typeof request.sessionId === 'string' ? request.sessionId : undefined,
      message: text(request.message),
      model: readForm(request.requestedSchema),
      settled,
    };
    this.entries.push(entry);
    this.changed();
    return entry;
  }

  /** The requests still waiting for the person (to answer `cancelled` when the turn is cancelled). */
  openRequests(): (PermissionEntry | FormEntry)[] {
    return this.entries.filter(
      (entry): entry is PermissionEntry | FormEntry =>
        (entry.kind === 'permission' || entry.kind === 'form') && entry.settled === undefined,
    );
  }

  private appendText(kind: TextEntry['kind'], chunk: string): void {
    const last = this.entries.at(-1);
    if (last !== undefined && last.kind === kind) {
      last.text += chunk;
    } else {
      this.entries.push({ kind, key: this.key(), text: chunk });
    }
  }

  private applyTool(update: Json): void {
    const id = text(update.toolCallId);
    let entry = this.tools.get(id);
    if (entry === undefined) {
      entry = {
        kind: 'tool',
        key: this.key(),
        toolCallId: id,
        title: '',
        toolKind: 'other',
        status: 'pending',
        content: [],
        locations: [],
        rawInput: undefined,
        rawOutput: undefined,
        terminalOutput: '',
        exitCode: undefined,
      };
      this.tools.set(id, entry);
      this.entries.push(entry);
    }
    if (typeof update.title === 'string') entry.title = update.title;
    if (typeof update.kind === 'string') entry.toolKind = update.kind;
    if (typeof update.status === 'string') entry.status = update.status;
    if (Array.isArray(update.content)) entry.content = readToolContent(update.content);
    if (Array.isArray(update.locations)) {
      entry.locations = update.locations.filter(isRecord).map((location) => ({
        path: text(location.path),
        line: typeof location.line === 'number' ? location.line : null,
      }));
    }
    if ('rawInput' in update) entry.rawInput = update.rawInput;
    if ('rawOutput' in update) entry.rawOutput = update.rawOutput;
    const meta = isRecord(update._meta) ? update._meta : {};
    if (isRecord(meta.terminal_output)) entry.terminalOutput += text(meta.terminal_output.data);
    if (isRecord(meta.terminal_exit) && typeof meta.terminal_exit.exit_code === 'number') {
      entry.exitCode = meta.terminal_exit.exit_code;
    }
  }
}
