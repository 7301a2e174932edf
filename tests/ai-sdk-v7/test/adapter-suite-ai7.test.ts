// The shared adapter suite against ai 7 (MockLanguageModelV4): each connection spawns the scenario agent on Node 22
// (ai 7's minimum) with this package's ai 7, the built @acpkit/ai-sdk and one copy of ai and zod.
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { spawnTestClient } from '@acpkit/testing';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAdapterSuite } from '../../../packages/ai-sdk/test/support/adapter-suite.js';
import { nodeBinary } from './support/node-runtime.js';

const AI7_NODE_MAJOR = 22;
const hook = fileURLToPath(new URL('../fixtures/ai7-resolution.mjs', import.meta.url));
const agent = fileURLToPath(new URL('../fixtures/scenario-agent-ai7.ts', import.meta.url));
let node = '';

beforeAll(async () => {
  node = await nodeBinary(AI7_NODE_MAJOR);
});

function agentCommand(agentOptions: Record<string, unknown>): string[] {
  return [node, '--import', hook, agent, JSON.stringify(agentOptions)];
}

describeAdapterSuite(`ai 7 on Node ${AI7_NODE_MAJOR}`, {
  testClient: (agentOptions, clientOptions) =>
    spawnTestClient(agentCommand(agentOptions), { ...clientOptions, initializeTimeoutMs: 20_000 }),
  async rawStream(agentOptions) {
    const [command, ...args] = agentCommand(agentOptions);
    const child = spawn(command as string, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return {
      stream: ndJsonStream(
        Writable.toWeb(child.stdin),
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      ),
      async close() {
        child.stdin.end();
        await exited;
      },
    };
  },
});

describe('ai 7 agent process', () => {
  let client: Awaited<ReturnType<typeof spawnTestClient>> | undefined;
  afterAll(async () => {
    await client?.close();
  });

  it('runs on Node 22 with one copy of ai (7.x, resolved from this package) and one of zod', async () => {
    client = await spawnTestClient(agentCommand({}), { initializeTimeoutMs: 20_000 });
    const text = (await client.prompt('report')).text;
    const copies = (name: string) =>
      /copies: (.*)/
        .exec(text.split('; ').find((fact) => fact.startsWith(`${name} copies`)) ?? '')?.[1]
        ?.split(' | ');
    expect(copies('ai')).toHaveLength(1);
    expect(copies('ai')?.[0]).toMatch(/^ai@7\.\d+\.\d+ /);
    expect(copies('zod')).toHaveLength(1);
    expect(copies('zod')?.[0]).toMatch(/^zod@4\./);
  });
});
