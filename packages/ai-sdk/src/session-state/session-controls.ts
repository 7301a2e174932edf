// The session's controls beyond prompts: `session/set_mode` (announced with `current_mode_update`),
// `session/set_config_option` (answered with every option, announced with `config_option_update`), the modes and
// options a new or loaded session starts with, and the `available_commands_update` that follows it.
import type { AcpSessionContext } from '@acpkit/elicitation';
import {
  type AgentApp,
  type McpCapabilities,
  methods,
  RequestError,
  type SessionConfigOption,
  type SessionModeState,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { availableCommands } from '../commands/slash-commands.js';
import { configOptionsFor, configValueProblem } from '../config/config-options.js';
import { modeState } from '../modes/modes.js';
import type { ResolvedAgentOptions } from '../options.js';
import type { LiveSession } from '../sessions/live-session.js';

/** What the controls need from the agent. */
export interface SessionControlsHost {
  readonly options: ResolvedAgentOptions;
  find(sessionId: string): LiveSession | undefined;
  save(session: LiveSession): Promise<void>;
  sessionFor(context: unknown): AcpSessionContext;
}

/** The MCP transports the agent connects (`agentCapabilities.mcpCapabilities`), when it has `mcp`. */
export function mcpCapabilitiesOf(options: ResolvedAgentOptions): McpCapabilities | undefined {
  return options.mcp?.capabilities;
}

/** The fields a `session/new` or `session/load` response adds for `live`: its modes and config options. */
export function sessionSetupResponse(
  options: ResolvedAgentOptions,
  live: LiveSession,
): { modes?: SessionModeState; configOptions?: SessionConfigOption[] } {
  const modes = modeState(options.modes, live.state.modeId);
  const configOptions = configOptionsFor(options.config, live.state.config);
  return {
    ...(modes === undefined ? {} : { modes }),
    ...(configOptions.length === 0 ? {} : { configOptions }),
  };
}

/**
 * Announces the commands of a session just opened, after its `session/new` or `session/load` response (a client
 * drops updates for a session it does not know yet). Failures are dropped: the connection is gone.
 */
export function announceCommandsAfterResponse(
  options: ResolvedAgentOptions,
  session: AcpSessionContext,
): void {
  if (options.commands.length === 0) return;
  const update: SessionUpdate = {
    sessionUpdate: 'available_commands_update',
    availableCommands: availableCommands(options.commands),
  };
  // The SDK writes the response when the handler's promise settles; a macrotask later the notification follows it.
  setImmediate(() => void session.update(update).catch(() => undefined));
}

function liveSession(host: SessionControlsHost, sessionId: string): LiveSession {
  const live = host.find(sessionId);
  if (live === undefined) throw RequestError.sessionNotFound(sessionId);
  return live;
}

/**
 * Keeps a switch the client made (recorded for replay, saved with the session) and announces it after the response,
 * so every view of the session follows.
 */
async function announceChange(
  host: SessionControlsHost,
  live: LiveSession,
  context: unknown,
  update: SessionUpdate,
): Promise<void> {
  live.transcript.record(update);
  await host.save(live);
  setImmediate(
    () =>
      void host
        .sessionFor(context)
        .update(update)
        .catch(() => undefined),
  );
}

/** Registers `session/set_mode` (with modes) and `session/set_config_option` (with options) on `app`. */
export function withSessionControls(app: AgentApp, host: SessionControlsHost): AgentApp {
  const { options } = host;
  let controlled = app;
  if (options.modes.length > 0) {
    controlled = controlled.onRequest(methods.agent.session.setMode, async (context) => {
      const { params } = context;
      const live = liveSession(host, params.sessionId);
      if (!options.modes.some((mode) => mode.id === params.modeId)) {
        throw RequestError.invalidParams(
          { modeId: params.modeId, availableModes: options.modes.map((mode) => mode.id) },
          `this agent has no mode "${params.modeId}"; use one of ${options.modes.map((mode) => mode.id).join(', ')}`,
        );
      }
      live.state.modeId = params.modeId;
      await announceChange(host, live, context, {
        sessionUpdate: 'current_mode_update',
        currentModeId: params.modeId,
      });
      return {};
    });
  }
  if (options.config.models.size > 0 || options.config.options.length > 0) {
    controlled = controlled.onRequest(methods.agent.session.setConfigOption, async (context) => {
      const { params } = context;
      const live = liveSession(host, params.sessionId);
      const problem = configValueProblem(options.config, params.configId, params.value);
      if (problem !== undefined) {
        throw RequestError.invalidParams({ configId: params.configId, value: params.value }, problem);
      }
      live.state.config.set(params.configId, params.value);
      const configOptions = configOptionsFor(options.config, live.state.config);
      await announceChange(host, live, context, { sessionUpdate: 'config_option_update', configOptions });
      return { configOptions };
    });
  }
  return controlled;
}
