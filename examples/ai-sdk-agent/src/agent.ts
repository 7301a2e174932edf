#!/usr/bin/env node
// Stdio main of the ai-sdk-agent example: one ACP connection over stdin/stdout. stdout carries only JSON-RPC;
// diagnostics go to stderr. The process ends when stdin ends. The scripted model streams at 15 ms per chunk here
// (ACPKIT_EXAMPLE_CHUNK_DELAY_MS overrides it) so a terminal shows the streaming.
import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { createReleaseHelperAgent, modelFromEnvironment } from './release-helper-agent.js';

const stream = ndJsonStream(
  Writable.toWeb(process.stdout),
  Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
);
const model = modelFromEnvironment({ ACPKIT_EXAMPLE_CHUNK_DELAY_MS: '15', ...process.env });
const connection = createReleaseHelperAgent({ model }).connect(stream);

async function exitWhenClosed(): Promise<void> {
  await connection.closed;
  // The web stream adapters keep stdin/stdout handles referenced, so exit explicitly once stdout has flushed.
  if (process.stdout.writableNeedDrain) await once(process.stdout, 'drain');
  process.exit(0);
}

exitWhenClosed().catch((error: unknown) => {
  console.error('ai-sdk-agent: connection failed:', error);
  process.exit(1);
});
