import { randomUUID } from 'node:crypto';
import {
  acpSessions,
  type ElicitationResult,
  ElicitationUnsupportedError,
  InvalidElicitationResponseError,
} from '@acpkit/elicitation';
import { type AgentApp, agent, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';

/**
 * The question the agent asks on every prompt.
 *
 * @example
 * ```ts
 * import { DEPLOY_TARGET_QUESTION } from '@acpkit/example-deploy-target';
 *
 * console.log(DEPLOY_TARGET_QUESTION); // 'Choose a deployment target'
 * ```
 */
export const DEPLOY_TARGET_QUESTION = 'Choose a deployment target';

/**
 * The offered targets: Preview, and Production (described, the default).
 *
 * @example
 * ```ts
 * import { DEPLOY_TARGETS } from '@acpkit/example-deploy-target';
 *
 * const labels = DEPLOY_TARGETS.map((target) => target.label); // ['Preview', 'Production']
 * ```
 */
export const DEPLOY_TARGETS = [
  { value: 'preview', label: 'Preview' },
  {
    value: 'production',
    label: 'Production',
    description: 'Deploy to the production environment.',
    default: true,
  },
] as const;

/**
 * A deployment target value.
 *
 * @example
 * ```ts
 * import type { DeployTarget } from '@acpkit/example-deploy-target';
 *
 * const target: DeployTarget = 'preview';
 * ```
 */
export type DeployTarget = (typeof DEPLOY_TARGETS)[number]['value'];

/**
 * Reply when the client cannot show forms.
 *
 * @example
 * ```ts
 * import { UNSUPPORTED_REPLY } from '@acpkit/example-deploy-target';
 *
 * console.log(UNSUPPORTED_REPLY);
 * ```
 */
export const UNSUPPORTED_REPLY =
  'This ACP client does not support form elicitation, so no deployment target could be chosen.';

/**
 * The text the agent replies for a result.
 *
 * @example
 * ```ts
 * import { ElicitationAccepted } from '@acpkit/elicitation';
 * import { replyFor } from '@acpkit/example-deploy-target';
 *
 * replyFor(new ElicitationAccepted('preview')); // 'Selected: preview'
 * ```
 */
export function replyFor(result: ElicitationResult<DeployTarget>): string {
  switch (result.status) {
    case 'accepted':
      return `Selected: ${result.value}`;
    case 'declined':
      return 'The user declined to choose.';
    case 'cancelled':
      return 'The choice was cancelled.';
  }
}

/**
 * Creates a fresh ACP agent app that, on any prompt, asks the client to choose a deployment target and replies
 * with the outcome as `agent_message_chunk` text. Each call returns a new app; state lives per connection.
 *
 * @example
 * ```ts
 * import { ndJsonStream } from '@agentclientprotocol/sdk';
 * import { Readable, Writable } from 'node:stream';
 * import { createDeployTargetAgent } from '@acpkit/example-deploy-target';
 *
 * createDeployTargetAgent().connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
 * ```
 */
export function createDeployTargetAgent(): AgentApp {
  const sessions = acpSessions();
  return (
    agent({ name: 'deploy-target' })
      .onRequest(
        methods.agent.initialize,
        sessions.initialize(({ params }) => ({
          protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
          agentCapabilities: {},
          authMethods: [],
          agentInfo: { name: 'deploy-target', title: 'Deploy target example', version: '0.0.0' },
        })),
      )
      .onNotification(methods.agent.session.cancel, sessions.cancel())
      .onRequest(methods.agent.session.new, () => ({ sessionId: randomUUID() }))
      // sessions.prompt ties the question to session/cancel and ends a cancelled turn with stopReason "cancelled".
      .onRequest(
        methods.agent.session.prompt,
        sessions.prompt(async (session) => {
          try {
            await session.say(replyFor(await session.askChoice(DEPLOY_TARGET_QUESTION, DEPLOY_TARGETS)));
          } catch (error) {
            if (ElicitationUnsupportedError.isInstance(error)) await session.say(UNSUPPORTED_REPLY);
            else if (InvalidElicitationResponseError.isInstance(error)) {
              await session.say(`The client's answer was not usable: ${error.message}`);
            } else throw error;
          }
        }),
      )
  );
}
