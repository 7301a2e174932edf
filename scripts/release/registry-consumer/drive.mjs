// Drives the built agent of the registry consumer over stdio with an SDK client, as an editor would: initialize with
// form elicitation, open a session, prompt, accept the form with its second option. Prints the outcome as JSON.
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';

const child = spawn(process.execPath, ['dist/agent.js', ...process.argv.slice(2)], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const forms = [];
const texts = [];
const editor = client({ name: 'registry-consumer' })
  .onRequest(methods.client.elicitation.create, ({ params }) => {
    forms.push(params.message);
    const [property, schema] = Object.entries(params.requestedSchema.properties)[0];
    const options = schema.oneOf ?? schema.enum?.map((value) => ({ const: value }));
    return { action: 'accept', content: { [property]: options[1].const } };
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
  console.log(JSON.stringify({ stopReason, forms, text: texts.join('') }));
} finally {
  child.stdin.end();
  child.kill();
}
