#!/usr/bin/env node
// Stdio main of the release-form example: one ACP connection over stdin/stdout. stdout carries only JSON-RPC;
// diagnostics go to stderr. The process ends when stdin ends.
import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { createReleaseFormAgent } from './release-form-agent.js';

const stream = ndJsonStream(
  Writable.toWeb(process.stdout),
  Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
);
const connection = createReleaseFormAgent().connect(stream);

async function exitWhenClosed(): Promise<void> {
  await connection.closed;
  // The web stream adapters keep stdin/stdout handles referenced, so exit explicitly once stdout has flushed.
  if (process.stdout.writableNeedDrain) await once(process.stdout, 'drain');
  process.exit(0);
}

exitWhenClosed().catch((error: unknown) => {
  console.error('release-form: connection failed:', error);
  process.exit(1);
});
