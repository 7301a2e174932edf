// Real SDK agent apps for the test client's integration tests: a typed choice (askChoice), a multi-field form,
// permissions, and a failing turn. Each reply names what the client answered, so a test can read it off the text.
import { randomUUID } from 'node:crypto';
import { acpSessions } from '@acpkit/elicitation';
import { type AgentApp, agent, methods, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';

export const RELEASE_SCHEMA = {
  type: 'object',
  title: 'Release details',
  required: ['name', 'channels'],
  properties: {
    name: { type: 'string', title: 'Release name', minLength: 3, pattern: '^[a-z0-9-]+$' },
    replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 5, default: 2 },
    notify: { type: 'boolean', title: 'Notify the team', default: true },
    channels: {
      type: 'array',
      title: 'Channels',
      minItems: 1,
      items: {
        anyOf: [
          { const: 'stable', title: 'Stable' },
          { const: 'beta', title: 'Beta' },
        ],
      },
    },
  },
} as const;

/**
 * On each prompt: asks "Choose a deployment target" with askChoice, then (when the prompt says "release") the release
 * form, then (when it says "tool") a permission; replies with one text chunk per answer.
 */
export function createScenarioAgent(): AgentApp {
  const sessions = acpSessions();
  return agent({ name: 'scenario-agent' })
    .onRequest(
      methods.agent.initialize,
      sessions.initialize(() => ({
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {},
        agentInfo: { name: 'scenario-agent', version: '1.0.0' },
      })),
    )
    .onNotification(methods.agent.session.cancel, sessions.cancel())
    .onRequest(methods.agent.session.new, () => ({ sessionId: randomUUID() }))
    .onRequest(methods.agent.session.prompt, async (context) => {
      const { sessionId, prompt } = context.params;
      const text = prompt.map((block) => (block.type === 'text' ? block.text : '')).join('');
      const say = (reply: string) =>
        context.client.notify(methods.client.session.update, {
          sessionId,
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: reply } },
        });
      if (text.includes('fail')) throw new Error('at most one choice may be the default');
      const choice = await sessions.sessionFor(context).askChoice('Choose a deployment target', [
        { value: 'preview', label: 'Preview' },
        { value: 'production', label: 'Production', default: true },
      ] as const);
      await say(
        choice.status === 'accepted' ? `Selected: ${choice.value}` : `Not selected: ${choice.status}`,
      );
      if (text.includes('release')) {
        const form = await context.client.request(methods.client.elicitation.create, {
          sessionId,
          mode: 'form',
          message: 'Describe the release',
          requestedSchema: RELEASE_SCHEMA,
        });
        await say(`Release: ${form.action} ${JSON.stringify('content' in form ? form.content : null)}`);
      }
      if (text.includes('tool')) {
        const permission = await context.client.request(methods.client.session.requestPermission, {
          sessionId,
          toolCall: { toolCallId: 'call-1', title: 'Run deploy script' },
          options: [
            { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
            { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
          ],
        });
        await say(
          `Permission: ${permission.outcome.outcome === 'selected' ? permission.outcome.optionId : 'cancelled'}`,
        );
      }
      return { stopReason: 'end_turn' };
    });
}
