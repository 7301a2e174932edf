// The session's controls as the terminal client knows them: modes, config options (the model among them) and the
// agent's slash commands, from the session/new response and later updates; and the client's own commands that
// switch them (`/mode`, `/model`, `/set`, `/help`). The agent's own `/name` commands go to the agent as prompts.
import {
  type AvailableCommand,
  type ClientContext,
  methods,
  type NewSessionResponse,
  RequestError,
  type SessionConfigOption,
  type SessionModeState,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { renderCommands, renderConfigOptions } from './editor-updates.js';

const LOCAL = ['mode', 'model', 'set', 'help'] as const;

export class ClientSessionControls {
  private modes: SessionModeState | undefined;
  private options: SessionConfigOption[] = [];
  private commands: AvailableCommand[] = [];

  /** Lines describing what the new session offers ('' when it offers nothing to switch). */
  opened(response: NewSessionResponse): string[] {
    this.modes = response.modes ?? undefined;
    this.options = response.configOptions ?? [];
    const lines: string[] = [];
    if (this.modes) lines.push(this.describeModes());
    if (this.options.length > 0) lines.push(renderConfigOptions(this.options));
    return lines;
  }

  /** Keeps track of switches the agent announces. */
  observe(update: SessionUpdate): void {
    if (update.sessionUpdate === 'current_mode_update' && this.modes) {
      this.modes = { ...this.modes, currentModeId: update.currentModeId };
    } else if (update.sessionUpdate === 'config_option_update') {
      this.options = update.configOptions;
    } else if (update.sessionUpdate === 'available_commands_update') {
      this.commands = update.availableCommands;
    }
  }

  /**
   * Runs `text` when it is one of the client's own commands (and not one the agent announced under that name):
   * resolves the line to print, or `undefined` for a prompt the agent should get.
   */
  async handle(text: string, agent: ClientContext, sessionId: string): Promise<string | undefined> {
    const match = /^\/(\w+)(?:\s+(.*))?$/.exec(text.trim());
    const name = match?.[1] as (typeof LOCAL)[number] | undefined;
    if (!match || !name || !LOCAL.includes(name) || this.commands.some((command) => command.name === name)) {
      return undefined;
    }
    const argument = (match[2] ?? '').trim();
    try {
      switch (name) {
        case 'mode':
          return await this.switchMode(argument, agent, sessionId);
        case 'model': {
          const option = this.options.find((candidate) => candidate.category === 'model');
          if (!option) return 'This agent offers no model choice.';
          return await this.set(option.id, argument, agent, sessionId);
        }
        case 'set': {
          const [id = '', ...rest] = argument.split(/\s+/);
          return await this.set(id, rest.join(' '), agent, sessionId);
        }
        default:
          return this.help();
      }
    } catch (error) {
      if (error instanceof RequestError) return `The agent refused: ${error.message}`;
      throw error;
    }
  }

  private async switchMode(modeId: string, agent: ClientContext, sessionId: string): Promise<string> {
    if (!this.modes) return 'This agent offers no modes.';
    if (modeId === '') return this.describeModes();
    await agent.request(methods.agent.session.setMode, { sessionId, modeId });
    this.modes = { ...this.modes, currentModeId: modeId };
    return `Mode: ${modeId}`;
  }

  private async set(id: string, value: string, agent: ClientContext, sessionId: string): Promise<string> {
    const option = this.options.find((candidate) => candidate.id === id);
    if (!option) {
      return this.options.length === 0 ? 'This agent offers no options.' : renderConfigOptions(this.options);
    }
    if (value === '') return renderConfigOptions([option]);
    const response =
      option.type === 'boolean'
        ? await agent.request(methods.agent.session.setConfigOption, {
            sessionId,
            configId: id,
            type: 'boolean',
            value: /^(true|on|yes|1)$/i.test(value),
          })
        : await agent.request(methods.agent.session.setConfigOption, { sessionId, configId: id, value });
    this.options = response.configOptions;
    return renderConfigOptions(this.options);
  }

  private describeModes(): string {
    const modes = this.modes;
    if (!modes) return 'This agent offers no modes.';
    return `Modes: ${modes.availableModes
      .map((mode) => `${mode.id === modes.currentModeId ? '*' : ''}${mode.id} (${mode.name})`)
      .join(', ')} — /mode <id> switches`;
  }

  private help(): string {
    return [
      'Client commands: /mode [id], /model [id], /set <option> <value>, /help, /exit',
      ...(this.commands.length > 0 ? [renderCommands(this.commands)] : []),
    ].join('\n');
  }
}
