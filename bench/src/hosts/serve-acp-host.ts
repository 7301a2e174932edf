// Runs `serveAcp` with an in-process echo agent: one SDK agent app per connection (the factory form). It announces its
// WebSocket URL, or with `--http` its Streamable HTTP endpoint (the same server serves both). With `--streaming` the
// agent is the streaming workload's (`session/update`s on request) instead of the echo agent.
import { serveAcp } from '@acpkit/remote';
import { createEchoAgentApp } from '../fixtures/echo-agent-app.js';
import { createStreamingAgentApp } from '../fixtures/streaming-agent-app.js';
import { benchToken } from './bench-token.js';
import { announceReady } from './host-ipc.js';
import { quietLogger } from './quiet-logger.js';

const createAgent = process.argv.includes('--streaming') ? createStreamingAgentApp : createEchoAgentApp;
const server = await serveAcp(() => createAgent(), {
  port: 0,
  bearerToken: benchToken,
  logger: quietLogger,
});
announceReady(process.argv.includes('--http') ? server.endpoint : server.url, () => server.close());
