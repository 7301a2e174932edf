// createAiSdkAgent: an SDK AgentApp around an AI SDK model and its tools. Handlers: initialize (honest
// capabilities), session/new, session/prompt (a turn on @acpkit/elicitation's sessions.prompt), session/cancel, and
// the session lifecycle over the session store (sessions/agent-sessions.ts: list, load, resume, close, delete).
// Open sessions live in the app; the store keeps them longer.
import { randomUUID } from 'node:crypto';
import { acpSessions, initializeResponse } from '@acpkit/elicitation';
import { OpenSessions } from '@acpkit/sessions';
import {
  type AgentApp,
  type AgentCapabilities,
  agent,
  methods,
  RequestError,
  type StopReason,
} from '@agentclientprotocol/sdk';
import type { ToolSet } from 'ai';
import { type AiSdkAgentOptions, type ResolvedAgentOptions, resolveAgentOptions } from './options.js';
import { mcpCapabilitiesOf, withSessionControls } from './session-state/session-controls.js';
import { AgentSessions } from './sessions/agent-sessions.js';
import type { LiveSession } from './sessions/live-session.js';

class AiSdkAgent {
  readonly #options: ResolvedAgentOptions;
  readonly #acp = acpSessions();
  readonly #sessions: OpenSessions<LiveSession>;
  readonly #lifecycle: AgentSessions;

  constructor(options: ResolvedAgentOptions) {
    this.#options = options;
    this.#sessions = new OpenSessions<LiveSession>(options.maxOpenSessions);
    this.#lifecycle = new AgentSessions(options, this.#acp, this.#sessions);
  }

  capabilities(): AgentCapabilities {
    const { modelInputs } = this.#options;
    const mcpCapabilities = mcpCapabilitiesOf(this.#options);
    return {
      ...this.#lifecycle.capabilities(),
      promptCapabilities: { image: modelInputs.image, audio: modelInputs.audio, embeddedContext: true },
      ...(mcpCapabilities === undefined ? {} : { mcpCapabilities }),
    };
  }

  app(): AgentApp {
    const options = this.#options;
    let app = agent({ name: options.name })
      .onRequest(
        methods.agent.initialize,
        this.#acp.initialize(({ params }) => initializeResponse(params, options, this.capabilities())),
      )
      // Cancels the session's running turn: its signal aborts the model call and its permission requests, and its
      // pending questions resolve cancelled.
      .onNotification(methods.agent.session.cancel, this.#acp.cancel())
      .onRequest(methods.agent.session.new, async (context) => {
        const { params } = context;
        const sessionId = randomUUID();
        const live = await this.#lifecycle.create(sessionId, params.cwd);
        return {
          sessionId,
          ...this.#lifecycle.setUp(live, { ...context, params: { ...params, sessionId } }),
        };
      })
      .onRequest(
        methods.agent.session.prompt,
        // sessions.prompt answers `cancelled` for a cancelled turn, whatever the handler returns.
        this.#acp.prompt(async (session, { params }) => {
          const live = this.#sessions.find(params.sessionId);
          if (live === undefined) throw RequestError.sessionNotFound(params.sessionId);
          this.#lifecycle.nameFromFirstPrompt(live, params.prompt);
          let stopReason: StopReason;
          try {
            stopReason = await live.prompt(session, params.prompt);
          } catch (error) {
            // The turn's own error says more than a failed save would.
            await this.#lifecycle.save(live).catch(() => undefined);
            throw error;
          }
          await this.#lifecycle.afterTurn(live, session, stopReason);
          return { stopReason };
        }),
      );
    app = this.#lifecycle.register(app);
    app = withSessionControls(app, {
      options,
      find: (sessionId) => this.#sessions.find(sessionId),
      save: async (session) => {
        await this.#lifecycle.save(session);
      },
      sessionFor: (context) => this.#acp.sessionFor(context as never),
    });
    // The editor's MCP servers end with the connection (a stdio server's process with them).
    return app.onConnect((connection) => {
      void connection.closed.then(() => this.#sessions.closeAll());
    });
  }
}

/**
 * Exposes an AI SDK agent over ACP: returns an SDK `AgentApp` that streams the model's text
 * (`agent_message_chunk`) and reasoning (`agent_thought_chunk`), shows each tool call (`tool_call`, then
 * `tool_call_update` until completed or failed), asks `session/request_permission` before a tool with
 * `needsApproval` runs (allow once, allow always for the session, reject — a rejected call never runs and the model
 * is told), lets the model ask the user through {@link askUserTool} and {@link formTool}, keeps each session's
 * history, and maps the AI SDK's finish reasons to ACP stop reasons (`end_turn`, `max_tokens`,
 * `max_turn_requests` at `maxSteps`, `refusal`, `cancelled`). `session/cancel` aborts the model call and any pending
 * question or permission request; a failed model call fails that prompt with a JSON-RPC error carrying the
 * provider's message, and the session stays usable. Serve it with `acpremote serve`, run it over stdio with
 * `ndJsonStream`, or test it with `@acpkit/testing`.
 *
 * @throws `OptionError` (`@acpkit/errors`, code `INVALID_OPTION`) naming the first bad option.
 * @example
 * ```ts
 * import { askUserTool, createAiSdkAgent, formTool } from '@acpkit/ai-sdk';
 * import { tool } from 'ai';
 * import { z } from 'zod';
 *
 * const deploy = tool({
 *   description: 'Deploy the service to an environment.',
 *   inputSchema: z.object({ environment: z.enum(['staging', 'production']) }),
 *   needsApproval: true,
 *   execute: async ({ environment }) => `Deployed to ${environment}.`,
 * });
 *
 * export const createAgent = () =>
 *   createAiSdkAgent({
 *     name: 'release-helper',
 *     version: '1.0.0',
 *     model: 'openai/gpt-5-mini', // through the AI Gateway; or any provider's model, e.g. openai('gpt-5-mini')
 *     system: 'You help release services.',
 *     tools: {
 *       deploy,
 *       askUser: askUserTool(),
 *       settings: formTool({
 *         description: 'Ask for the rollout settings.',
 *         schema: z.object({ replicas: z.int().min(1).max(5).default(2).meta({ title: 'Replicas' }) }),
 *       }),
 *     },
 *     maxSteps: 20,
 *   });
 * ```
 */
export function createAiSdkAgent<Tools extends ToolSet>(options: AiSdkAgentOptions<Tools>): AgentApp {
  return new AiSdkAgent(resolveAgentOptions(options as AiSdkAgentOptions)).app();
}
