// Runs `runMirror` (the `acpremote mirror` stdio bridge) towards the URL given as the only argument. stdout
// carries JSON-RPC only; the exit code is the one runMirror resolves with.
import process from 'node:process';
import { runMirror } from '@acpkit/remote';
import { benchToken } from './bench-token.js';
import { quietLogger } from './quiet-logger.js';

const url = process.argv[2];
if (!url) throw new Error('usage: mirror-host.ts <ws-url>');
process.exitCode = await runMirror(url, { logger: quietLogger, bearerToken: benchToken });
