// Runs `serveCommand` (the `acpremote expose` relay) for the command given after `--`, on a free port; `--metrics`
// before `--` turns its Prometheus metrics on.
import process from 'node:process';
import { serveCommand } from '@acpkit/remote';
import { benchToken } from './bench-token.js';
import { announceReady } from './host-ipc.js';
import { quietLogger } from './quiet-logger.js';

const separator = process.argv.indexOf('--');
const command = separator === -1 ? [] : process.argv.slice(separator + 1);
if (command.length === 0) throw new Error('usage: serve-command-host.ts -- <command> [args...]');

const metrics = process.argv.slice(2, separator === -1 ? undefined : separator).includes('--metrics');

const server = await serveCommand(command, {
  port: 0,
  metrics,
  stderr: 'inherit',
  bearerToken: benchToken,
  logger: quietLogger,
});
announceReady(server.url, () => server.close());
