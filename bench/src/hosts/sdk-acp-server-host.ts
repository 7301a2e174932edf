// The TypeScript SDK's own Streamable HTTP server (`AcpServer` through `/experimental/node`) with the in-process echo
// agent: the reference our Streamable HTTP path is measured against, with the bench token checked on every request
// as a deployment in front of it would (a plain string comparison, cheaper than ours). With `--streaming` the agent
// is the streaming workload's.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeHttpHandler } from '@agentclientprotocol/sdk/experimental/node';
import { AcpServer } from '@agentclientprotocol/sdk/experimental/server';
import { createEchoAgentApp } from '../fixtures/echo-agent-app.js';
import { createStreamingAgentApp } from '../fixtures/streaming-agent-app.js';
import { benchToken } from './bench-token.js';
import { announceReady } from './host-ipc.js';

const createAgent = process.argv.includes('--streaming') ? createStreamingAgentApp : createEchoAgentApp;
const acp = new AcpServer({ createAgent: () => createAgent() });
const handle = createNodeHttpHandler(acp);
const expected = `Bearer ${benchToken}`;
const server = createServer((request, response) => {
  if (request.headers.authorization !== expected) {
    response.writeHead(401, { 'Content-Type': 'text/plain' }).end('unauthorized\n');
    return;
  }
  handle(request, response);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  announceReady(`http://127.0.0.1:${port}/acp`, async () => {
    await acp.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
