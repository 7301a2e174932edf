#!/usr/bin/env node
// Stdio main of the coding agent: one ACP connection over stdin/stdout (stdout carries only JSON-RPC). Ends when
// stdin ends. The scripted model streams at 15 ms per chunk here (ACPKIT_EXAMPLE_CHUNK_DELAY_MS overrides it).
import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { codingModelFromEnvironment, createCodingAgent } from './coding-agent.js';

const stream = ndJsonStream(
  Writable.toWeb(process.stdout),
  Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
);
const model = codingModelFromEnvironment({ ACPKIT_EXAMPLE_CHUNK_DELAY_MS: '15', ...process.env });
const connection = createCodingAgent({ model }).connect(stream);

async function exitWhenClosed(): Promise<void> {
  await connection.closed;
  if (process.stdout.writableNeedDrain) await once(process.stdout, 'drain');
  process.exit(0);
}

exitWhenClosed().catch((error: unknown) => {
  console.error('coding-agent: connection failed:', error);
  process.exit(1);
});
