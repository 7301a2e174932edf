import type {
  ContentBlock,
  PlanEntry,
  SessionUpdate,
  StopReason,
  ToolCallStatus,
} from '@agentclientprotocol/sdk';

import {
  renderCommands,
  renderConfigOptions,
  renderLocations,
  renderToolContent,
  renderUsage,
} from './editor-updates.js';

const STATUS_MARKS: Record<ToolCallStatus, string> = {
  pending: '…',
  in_progress: '…',
  completed: '✓',
  failed: '✗',
};

const PLAN_MARKS: Record<PlanEntry['status'], string> = {
  pending: '[ ]',
  in_progress: '[~]',
  completed: '[x]',
};

function describeContent(content: ContentBlock): string {
  switch (content.type) {
    case 'text':
      return content.text;
    case 'resource_link':
      return `[link: ${content.uri}]`;
    case 'resource':
      return `[resource: ${content.resource.uri}]`;
    default:
      return `[${content.type}]`;
  }
}

/**
 * Turns `session/update` notifications into terminal text: message chunks are streamed as they come, tool calls
 * take one line each (and one more when their status changes), plans print as a checklist. It tracks whether the
 * cursor is at the start of a line so that compact lines never glue onto streamed text.
 *
 * @example
 * ```ts
 * const transcript = new Transcript();
 * process.stdout.write(transcript.render({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hi' } }));
 * process.stdout.write(transcript.endTurn('end_turn'));
 * ```
 */
export class Transcript {
  private atLineStart = true;
  private readonly toolTitles = new Map<string, string>();
  private readonly toolStatuses = new Map<string, string>();

  /** The text to print for one update ('' for updates this client does not show). */
  render(update: SessionUpdate): string {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        return this.stream(describeContent(update.content));
      case 'tool_call': {
        this.toolTitles.set(update.toolCallId, update.title);
        const status = update.status ?? 'pending';
        this.toolStatuses.set(update.toolCallId, status);
        const kind = update.kind && update.kind !== 'other' ? ` (${update.kind})` : '';
        const where = renderLocations(update.locations);
        return this.line(
          [
            `⚙ ${update.title}${kind} ${STATUS_MARKS[status]} ${status}${where ? ` — ${where}` : ''}`,
            ...renderToolContent(update.content),
          ].join('\n'),
        );
      }
      case 'tool_call_update': {
        if (update.title) this.toolTitles.set(update.toolCallId, update.title);
        const shown = renderToolContent(update.content);
        const status = update.status;
        const title = this.toolTitles.get(update.toolCallId) ?? update.toolCallId;
        if (!status || this.toolStatuses.get(update.toolCallId) === status) {
          return shown.length === 0 ? '' : this.line(shown.join('\n'));
        }
        this.toolStatuses.set(update.toolCallId, status);
        return this.line([`${STATUS_MARKS[status]} ${title} ${status}`, ...shown].join('\n'));
      }
      case 'usage_update':
        return this.line(renderUsage(update.used, update.size, update.cost));
      case 'current_mode_update':
        return this.line(`Mode: ${update.currentModeId}`);
      case 'config_option_update':
        return this.line(renderConfigOptions(update.configOptions));
      case 'available_commands_update':
        return this.line(renderCommands(update.availableCommands));
      case 'plan':
        return this.line(
          ['Plan:', ...update.entries.map((entry) => `  ${PLAN_MARKS[entry.status]} ${entry.content}`)].join(
            '\n',
          ),
        );
      default:
        return '';
    }
  }

  /** Closes the turn: ends the streamed line and names any stop reason other than a normal end of turn. */
  endTurn(stopReason: StopReason): string {
    const suffix = stopReason === 'end_turn' ? '' : this.line(`(turn ended: ${stopReason})`);
    const text = this.breakLine() + suffix;
    this.atLineStart = true;
    return text;
  }

  /** A compact line of its own, for notices between streamed text. */
  line(text: string): string {
    const prefix = this.breakLine();
    this.atLineStart = true;
    return `${prefix}${text}\n`;
  }

  /** Returns the newline needed to start a fresh line ('' when already at one) and marks the line as fresh. */
  breakLine(): string {
    if (this.atLineStart) return '';
    this.atLineStart = true;
    return '\n';
  }

  private stream(text: string): string {
    if (text.length > 0) this.atLineStart = text.endsWith('\n');
    return text;
  }
}
