import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Cleanup, RawClient } from './support/helpers.js';

const HOST = fileURLToPath(new URL('./fixtures/stderr-host.ts', import.meta.url));
const cleanup = new Cleanup();
afterEach(() => cleanup.run());

async function agentStderrReachesHost(mode: 'inherit' | 'discard'): Promise<string> {
  const host: ChildProcess = spawn(process.execPath, ['--import', 'tsx', HOST, mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanup.add(() => {
    if (host.exitCode === null) host.kill('SIGKILL');
  });
  let stderr = '';
  host.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const [firstChunk] = (await once(host.stdout!, 'data')) as [Buffer];
  const url = firstChunk.toString('utf8').trim();
  const raw = await RawClient.open(url);
  raw.send({ jsonrpc: '2.0', id: 1, method: '_test/stderr', params: { text: 'AGENT-STDERR-MARKER' } });
  expect((await raw.response(1)).result).toEqual({ written: true });
  raw.close();
  await raw.closed;
  const exited = once(host, 'exit');
  host.kill('SIGTERM');
  expect((await exited)[0]).toBe(0);
  return stderr;
}

describe('serveCommand stderr option', () => {
  it('passes the agent stderr through with inherit', async () => {
    expect(await agentStderrReachesHost('inherit')).toContain('AGENT-STDERR-MARKER');
  });

  it('drops the agent stderr with discard', async () => {
    expect(await agentStderrReachesHost('discard')).not.toContain('AGENT-STDERR-MARKER');
  });
});
