#!/usr/bin/env node
// Stdio main of the langchain-agent example: one ACP connection over stdin/stdout. stdout carries only JSON-RPC;
// diagnostics go to stderr. The process ends when stdin ends.
import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { createReleaseAgent } from './release-agent.js';

const stream = ndJsonStream(
  Writable.toWeb(process.stdout),
  Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
);
const connection = createReleaseAgent().connect(stream);

async function exitWhenClosed(): Promise<void> {
  await connection.closed;
  // The web stream adapters keep stdin/stdout handles referenced, so exit explicitly once stdout has flushed.
  if (process.stdout.writableNeedDrain) await once(process.stdout, 'drain');
  process.exit(0);
}

exitWhenClosed().catch((error: unknown) => {
  console.error('langchain-agent: connection failed:', error);
  process.exit(1);
});
