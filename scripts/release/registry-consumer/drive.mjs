// Drives an agent of the registry consumer over stdio with an SDK client, as an editor would: initialize with form
// elicitation, open a session, prompt, accept a form with its second option and allow a tool call once. Prints the
// outcome as JSON. `drive.mjs` runs the built AI SDK agent, `drive.mjs choice` its askChoice agent, `drive.mjs
// langchain` the LangChain agent (langchain-agent.mjs).
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';

const script =
  process.argv[2] === 'langchain' ? ['langchain-agent.mjs'] : ['dist/agent.js', ...process.argv.slice(2)];
const child = spawn(process.execPath, script, { stdio: ['pipe', 'pipe', 'inherit'] });
const forms = [];
const permissions = [];
const texts = [];
const editor = client({ name: 'registry-consumer' })
  .onRequest(methods.client.elicitation.create, ({ params }) => {
    forms.push(params.message);
    const [property, schema] = Object.entries(params.requestedSchema.properties)[0];
    const options = schema.oneOf ?? schema.enum?.map((value) => ({ const: value }));
    return { action: 'accept', content: { [property]: options[1].const } };
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    permissions.push(params.toolCall.title);
    return { outcome: { outcome: 'selected', optionId: 'allow_once' } };
  })
  .onNotification(methods.client.session.update, ({ params }) => {
    const { update } = params;
    if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text')
      texts.push(update.content.text);
  })
  .connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout)));
try {
  await editor.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { elicitation: { form: {} } },
  });
  const { sessionId } = await editor.agent.request(methods.agent.session.new, {
    cwd: process.cwd(),
    mcpServers: [],
  });
  const { stopReason } = await editor.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text: 'Deploy' }],
  });
  // The SDK resolves a response as soon as it is read but runs a notification through its handler chain (microtasks):
  // an update read in the same chunk as the response is still being handled. One macrotask turn lets it finish.
  await new Promise((resolve) => setImmediate(resolve));
  console.log(JSON.stringify({ stopReason, forms, permissions, text: texts.join('') }));
} finally {
  child.stdin.end();
  child.kill();
}
