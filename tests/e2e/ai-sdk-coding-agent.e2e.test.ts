// The coding agent of examples/ai-sdk-agent (its offline scripted model) in the built `acpkit client`, over stdio and
// served by `acpremote serve` behind `acpkit run --addr`: the client serves the files of its --cwd and runs the
// terminal, and shows the plan, the diff, the terminal's output, usage, modes and commands; /mode switches.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { aiSdkAgent, cliPaths } from './support/paths.js';
import { reapAll, spawnCli, withoutSlowStartNotice } from './support/processes.js';
import { startServe } from './support/remote-servers.js';

const scratchDirectories: string[] = [];
const offline = { AI_GATEWAY_API_KEY: '', ACPKIT_EXAMPLE_CHUNK_DELAY_MS: '0' };

afterEach(async () => {
  await reapAll();
  for (const directory of scratchDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function workspace(): string {
  const directory = mkdtempSync(join(tmpdir(), 'acpkit-coder-e2e-'));
  scratchDirectories.push(directory);
  writeFileSync(join(directory, 'hello.txt'), 'Helo, world!\n');
  return directory;
}

async function codingConversation(cwd: string, agent: readonly string[]) {
  const client = spawnCli(
    'acpkit',
    [
      'client',
      '--yes',
      '--cwd',
      cwd,
      '--prompt',
      'Fix the greeting in hello.txt',
      '--prompt',
      '/mode ask',
      '--prompt',
      'Fix it again',
      '--prompt',
      '/status',
      '--',
      ...agent,
    ],
    { env: offline },
  );
  client.child.stdin?.end();
  const exit = await client.closed;
  return { ...exit, stdout: client.stdout(), stderr: client.stderr() };
}

function expectCodingConversation(result: Awaited<ReturnType<typeof codingConversation>>, cwd: string): void {
  const { stdout } = result;
  expect(result.code, result.stderr).toBe(0);
  expect(readFileSync(join(cwd, 'hello.txt'), 'utf8'), stdout).toBe('Hello, world!\n');
  expect(stdout).toContain('Modes: *code (Code), ask (Ask) — /mode <id> switches');
  expect(stdout).toContain(
    'Commands: /fix <what to fix> — Fix a problem in a file; /status — Show the session’s mode and options',
  );
  expect(stdout).toContain(
    ['Plan:', '  [~] Read hello.txt', '  [ ] Fix the typo', '  [ ] Check the file in a terminal'].join('\n'),
  );
  expect(stdout).toContain(
    `⚙ Edit hello.txt (edit) … in_progress — hello.txt\n  --- ${join(cwd, 'hello.txt')}:1\n  - Helo, world!\n  + Hello, world!\n`,
  );
  expect(stdout).toContain('  ▶ cat hello.txt — exit 0\n  │ Hello, world!\n');
  expect(stdout).toContain('Context: 1,280 / 400,000 tokens (0.3%) · cost 0.0032 USD');
  expect(stdout).toContain('Fixed: hello.txt now reads "Hello, world!".');
  expect(stdout).toContain('> /mode ask\nMode: ask\n');
  expect(stdout).toContain('In this mode I can only read and plan.');
  expect(stdout).toContain(`Mode: ask; options: {}; cwd: ${cwd}`);
}

describe('the AI SDK coding agent in acpkit client', () => {
  it('over stdio: plans, edits hello.txt with a diff, checks it in a terminal, switches to ask mode, runs /status', async () => {
    const cwd = workspace();
    const result = await codingConversation(cwd, [
      process.execPath,
      join(aiSdkAgent.directory, 'dist/coding-agent-main.js'),
    ]);
    expectCodingConversation(result, cwd);
    expect(withoutSlowStartNotice(result.stderr)).toBe('');
  });

  it('served by acpremote serve and mirrored with the client owning fs/terminal: the same conversation, on the client side', async () => {
    const cwd = workspace();
    const server = await startServe(`${aiSdkAgent.module}:createCodingAgent`, [], { env: offline });
    const mirror = [
      process.execPath,
      cliPaths.acpremote,
      'mirror',
      server.url,
      '--host-ownership',
      'client-passthrough',
    ];
    const result = await codingConversation(cwd, mirror);
    expectCodingConversation(result, cwd);
  });

  it('served with the remote owning fs/terminal (the default): the file tools are not offered, nothing changes', async () => {
    const cwd = workspace();
    const server = await startServe(`${aiSdkAgent.module}:createCodingAgent`, [], { env: offline });
    const result = await codingConversation(cwd, [
      process.execPath,
      cliPaths.acpkit,
      'run',
      '--addr',
      server.url,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'hello.txt'), 'utf8')).toBe('Helo, world!\n');
    expect(result.stdout).not.toContain('⚙ Edit');
  });
});
