// The coding agent with its scripted model, driven by a plain SDK client that serves real files (a scratch
// directory) and real terminals (child processes), as an editor does.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AnyMessage,
  methods,
  PROTOCOL_VERSION,
  type SessionUpdate,
  client as sdkClient,
} from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodingAgent, createScriptedCodingModel, GREETING_FILE } from '../src/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An editor-like client on a fresh coding agent: files in `cwd`, terminals as child processes. */
async function editor(cwd: string) {
  const toAgent = new TransformStream<AnyMessage, AnyMessage>();
  const toClient = new TransformStream<AnyMessage, AnyMessage>();
  const agentConnection = createCodingAgent({ model: createScriptedCodingModel() }).connect({
    readable: toAgent.readable,
    writable: toClient.writable,
  });
  const updates: SessionUpdate[] = [];
  const terminals = new Map<string, { output: string; exit: Promise<{ exitCode: number | null }> }>();
  let next = 0;
  const connection = sdkClient({ name: 'editor' })
    .onNotification(methods.client.session.update, ({ params }) => {
      updates.push(params.update);
    })
    .onRequest(methods.client.session.requestPermission, () => ({
      outcome: { outcome: 'selected', optionId: 'allow_once' },
    }))
    .onRequest(methods.client.fs.readTextFile, async ({ params }) => ({
      content: await readFile(params.path, 'utf8'),
    }))
    .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
      await writeFile(params.path, params.content);
      return {};
    })
    .onRequest(methods.client.terminal.create, ({ params }) => {
      const terminalId = `t${++next}`;
      const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? cwd });
      const terminal = {
        output: '',
        exit: new Promise<{ exitCode: number | null }>((resolve) =>
          child.on('close', (exitCode) => resolve({ exitCode })),
        ),
      };
      child.stdout.on('data', (chunk: Buffer) => {
        terminal.output += chunk.toString();
      });
      terminals.set(terminalId, terminal);
      return { terminalId };
    })
    .onRequest(
      methods.client.terminal.waitForExit,
      async ({ params }) => (await terminals.get(params.terminalId)?.exit) ?? {},
    )
    .onRequest(methods.client.terminal.output, async ({ params }) => {
      const terminal = terminals.get(params.terminalId);
      return { output: terminal?.output ?? '', truncated: false, exitStatus: await terminal?.exit };
    })
    .onRequest(methods.client.terminal.release, ({ params }) => {
      terminals.delete(params.terminalId);
      return {};
    })
    .connect({ readable: toClient.readable, writable: toAgent.writable });
  cleanups.push(async () => {
    connection.close();
    agentConnection.close();
    await toAgent.writable.close().catch(() => undefined);
    await toClient.writable.close().catch(() => undefined);
  });
  await connection.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  });
  return { agent: connection.agent, updates };
}

describe('the coding agent (scripted model)', () => {
  it('plans, reads, edits with a diff, checks in a terminal, reports usage; ask mode changes nothing; commands run', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'acpkit-coder-'));
    cleanups.push(() => rmSync(cwd, { recursive: true, force: true }));
    writeFileSync(join(cwd, GREETING_FILE), 'Helo, world!\n');
    const { agent, updates } = await editor(cwd);
    const session = await agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    expect(session.modes?.availableModes.map((mode) => mode.id)).toEqual(['code', 'ask']);
    const { sessionId } = session;

    const turn = await agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'Fix the greeting in hello.txt' }],
    });
    expect(turn.stopReason).toBe('end_turn');
    expect(readFileSync(join(cwd, GREETING_FILE), 'utf8')).toBe('Hello, world!\n');
    const kinds = (kind: SessionUpdate['sessionUpdate']) =>
      updates.filter((update) => update.sessionUpdate === kind);
    expect(kinds('available_commands_update')).toHaveLength(1);
    expect(
      kinds('plan').map((update) =>
        (update as { entries: Array<{ status: string }> }).entries.map((entry) => entry.status),
      ),
    ).toEqual([
      ['in_progress', 'pending', 'pending'],
      ['completed', 'completed', 'completed'],
    ]);
    const contents = kinds('tool_call_update').flatMap(
      (update) => (update as { content?: Array<{ type: string }> }).content ?? [],
    );
    expect(contents.find((content) => content.type === 'diff')).toEqual({
      type: 'diff',
      path: join(cwd, GREETING_FILE),
      oldText: 'Helo, world!\n',
      newText: 'Hello, world!\n',
    });
    expect(contents.some((content) => content.type === 'terminal')).toBe(true);
    expect(kinds('usage_update').at(-1)).toMatchObject({
      used: 1_280,
      size: 400_000,
      cost: { currency: 'USD' },
    });
    const textOf = (list: SessionUpdate[]) =>
      list
        .filter((update) => update.sessionUpdate === 'agent_message_chunk')
        .map((update) => (update as { content: { text: string } }).content.text)
        .join('');
    expect(textOf(updates)).toContain('Fixed: hello.txt now reads "Hello, world!".');

    await agent.request(methods.agent.session.setMode, { sessionId, modeId: 'ask' });
    const before = updates.length;
    await agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'Fix it again' }],
    });
    expect(textOf(updates.slice(before))).toContain('In this mode I can only read and plan.');

    await agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: '/status' }],
    });
    // The turn's reply, before the session_info_update that ends every saved turn.
    const replies = updates.filter((update) => update.sessionUpdate !== 'session_info_update');
    expect(textOf(replies.slice(-1))).toBe(`Mode: ask; options: {}; cwd: ${cwd}`);
  });
});
