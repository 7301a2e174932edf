// Runs `serveCommand` (the `acpremote expose` relay) for the command given after `--`, on a free port.
import process from 'node:process';
import { serveCommand } from '@acpkit/remote';
import { benchToken } from './bench-token.js';
import { announceReady } from './host-ipc.js';
import { quietLogger } from './quiet-logger.js';

const separator = process.argv.indexOf('--');
const command = separator === -1 ? [] : process.argv.slice(separator + 1);
if (command.length === 0) throw new Error('usage: serve-command-host.ts -- <command> [args...]');

const server = await serveCommand(command, {
  port: 0,
  stderr: 'inherit',
  bearerToken: benchToken,
  logger: quietLogger,
});
announceReady(server.url, () => server.close());
