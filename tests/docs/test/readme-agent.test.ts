// The root README's complete agent is one module that `acpremote serve FILE:createAgent` serves over WebSocket and
// that runs over stdio when started as a program, as the README says. This saves the README's block as a .ts file
// and runs it both ways with the built CLIs, answering its form through @acpkit/testing.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { spawnTestClient, type TestClient } from '@acpkit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { extractTypeScriptBlocks } from '../src/code-blocks.js';

const packageDirectory = fileURLToPath(new URL('..', import.meta.url));
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const acpremoteCli = join(repositoryRoot, 'apps/acpremote/dist/cli.js');
const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
const agentBlock = extractTypeScriptBlocks(readme, 'README.md').find(
  (block) => block.code.includes('export function createAgent') && block.code.includes('runAsProgram'),
);

let scratch: string;
let agentFile: string;
const clients: TestClient[] = [];
const servers: ChildProcess[] = [];

beforeAll(() => {
  // Inside this package, so the module resolves @acpkit/elicitation and the SDK as a user's project would.
  scratch = mkdtempSync(join(packageDirectory, '.readme-agent-'));
  agentFile = join(scratch, 'agent.ts');
  writeFileSync(agentFile, agentBlock?.code ?? '');
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const server of servers.splice(0)) {
    if (server.exitCode !== null || server.signalCode !== null) continue;
    const exited = once(server, 'exit');
    server.kill('SIGTERM');
    await exited;
  }
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the README's complete agent", () => {
  it('is in the README with its factory export and its main-module guard', () => {
    expect(agentBlock, 'README.md has no ```ts block with createAgent and runAsProgram').toBeDefined();
  });

  it('is served by acpremote serve FILE:createAgent and answers through the mirror', async () => {
    const server = spawn(
      process.execPath,
      [acpremoteCli, 'serve', `${agentFile}:createAgent`, '--port', '0'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    servers.push(server);
    const url = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: server.stderr });
      lines.on('line', (line) => {
        const match = /Serving ACP WebSocket at (\S+)/.exec(line);
        if (match?.[1]) resolve(match[1]);
      });
      server.once('exit', (code) => reject(new Error(`acpremote serve exited with ${code}`)));
    });
    const client = await spawnTestClient([process.execPath, acpremoteCli, 'mirror', url], {
      answers: [{ Choice: 'Preview' }],
    });
    clients.push(client);
    expect((await client.prompt('Deploy the app')).text).toBe('Selected: preview');
  });

  it('serves stdio when run as a program', async () => {
    const client = await spawnTestClient([process.execPath, '--import', 'tsx', agentFile], {
      cwd: repositoryRoot,
      answers: ['decline'],
    });
    clients.push(client);
    const turn = await client.prompt('Deploy the app');
    expect(turn.text).toBe('No target (declined).');
    expect(client.transcript.filter((event) => event.kind === 'stdout-noise')).toEqual([]);
    expect(client.initialize.agentInfo).toEqual({
      name: 'deploy-target',
      title: 'Deploy target',
      version: '1.0.0',
    });
  });

  it('ends a turn cancelled during its question with stopReason cancelled, and the next turn normally', async () => {
    let asked!: () => void;
    const questionShown = new Promise<void>((resolve) => {
      asked = resolve;
    });
    let forms = 0;
    const client = await spawnTestClient([process.execPath, '--import', 'tsx', agentFile], {
      cwd: repositoryRoot,
      // The first form stays open until the agent withdraws it; the second is answered.
      answers: (_request, { signal }) => {
        forms += 1;
        if (forms > 1) return { action: 'accept', content: { choice: 'choice_0' } };
        asked();
        return new Promise((resolve) =>
          signal.addEventListener('abort', () => resolve({ action: 'cancel' })),
        );
      },
    });
    clients.push(client);
    const turn = client.prompt('Deploy the app');
    await questionShown;
    await client.cancel();
    const cancelled = await turn;
    expect(cancelled.stopReason).toBe('cancelled');
    expect(cancelled.text).toBe('No target (cancelled).');
    const next = await client.prompt('Deploy the app');
    expect(next).toMatchObject({ stopReason: 'end_turn', text: 'Selected: preview' });
  });
});
