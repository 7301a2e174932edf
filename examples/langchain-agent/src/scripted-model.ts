// The offline model: LangChain's own `fakeModel()` with a response factory that reads the conversation, so the same
// script plays any number of releases: plan (write_todos), deploy (needs approval), report.
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';

let calls = 0;

function reply(messages: BaseMessage[]): BaseMessage {
  calls += 1;
  const last = messages.at(-1);
  if (last instanceof ToolMessage && last.name === 'write_todos') {
    return new AIMessage({
      content: 'Deploying to staging first.',
      tool_calls: [
        {
          id: `deploy-${calls}`,
          name: 'deploy',
          args: { environment: 'staging', replicas: 2 },
          type: 'tool_call',
        },
      ],
    });
  }
  if (last instanceof ToolMessage && last.name === 'deploy') {
    return new AIMessage(
      last.status === 'error' ? 'The deployment did not run.' : `${String(last.content)} All done.`,
    );
  }
  return new AIMessage({
    content: 'Planning the release.',
    tool_calls: [
      {
        id: `todos-${calls}`,
        name: 'write_todos',
        args: {
          todos: [
            { content: 'Deploy to staging', status: 'in_progress' },
            { content: 'Report the result', status: 'pending' },
          ],
        },
        type: 'tool_call',
      },
    ],
  });
}

/**
 * A scripted chat model (LangChain's `fakeModel()`) that plans, deploys and reports.
 *
 * @example
 * ```ts
 * import { createScriptedReleaseModel } from '@acpkit/example-langchain-agent';
 *
 * const model = createScriptedReleaseModel();
 * ```
 */
export function createScriptedReleaseModel() {
  const model = fakeModel();
  // One factory per call the script can take; a session rarely needs more than a few dozen.
  for (let index = 0; index < 1_000; index += 1) model.respond(reply);
  return model;
}
