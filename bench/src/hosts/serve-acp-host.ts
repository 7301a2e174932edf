// Runs `serveAcp` with an in-process echo agent: one SDK agent app per connection (the factory form).
import { serveAcp } from '@acpkit/remote';
import { createEchoAgentApp } from '../fixtures/echo-agent-app.js';
import { benchToken } from './bench-token.js';
import { announceReady } from './host-ipc.js';
import { quietLogger } from './quiet-logger.js';

const server = await serveAcp(() => createEchoAgentApp(), {
  port: 0,
  bearerToken: benchToken,
  logger: quietLogger,
});
announceReady(server.url, () => server.close());
