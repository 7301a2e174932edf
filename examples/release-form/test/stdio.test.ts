import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptDefaults, connectReleaseClient } from './support/client.js';

const repositoryRoot = new URL('../../..', import.meta.url).pathname;
let child: ChildProcessByStdio<Writable, Readable, Readable> | undefined;

afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
});

function exited(process: NonNullable<typeof child>): Promise<number | null> {
  if (process.exitCode !== null) return Promise.resolve(process.exitCode);
  return new Promise((resolve) => process.once('exit', (code) => resolve(code)));
}

describe('node examples/release-form (stdio)', () => {
  it('runs the built agent over stdio, writes only JSON-RPC to stdout and exits when stdin ends', async () => {
    expect(
      existsSync(new URL('../dist/agent.js', import.meta.url)),
      'build first: pnpm --filter @acpkit/example-release-form... build',
    ).toBe(true);
    // `node <directory>` resolves the package.json "main" (./dist/agent.js).
    const spawned = spawn(process.execPath, ['examples/release-form'], {
      cwd: repositoryRoot,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child = spawned;
    const stdoutChunks: Buffer[] = [];
    let stderr = '';
    spawned.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const stdout = Readable.toWeb(spawned.stdout) as ReadableStream<Uint8Array>;
    const [forClient, forCheck] = stdout.tee();
    const checkDone = (async () => {
      for await (const chunk of forCheck) stdoutChunks.push(Buffer.from(chunk));
    })();
    const input = new WritableStream<Uint8Array>({
      write(chunk) {
        return new Promise((resolve, reject) =>
          spawned.stdin.write(chunk, (error) => (error ? reject(error) : resolve())),
        );
      },
    });

    const client = await connectReleaseClient('stable', ndJsonStream(input, forClient), {
      clientCapabilities: { elicitation: { form: {} } },
      answers: [acceptDefaults, acceptDefaults, () => ({ action: 'accept', content: { value: true } })],
    });
    const response = await client.prompt();
    expect(response.stopReason).toBe('end_turn');
    expect(client.asked.map((request) => request.message)).toEqual([
      'Plan the release',
      'Which packages should be published?',
      'Publish 1.5.0 of 1 package(s) under the npm tag latest to 10% of users?',
    ]);
    expect(client.lines().at(-1)).toBe('Publishing 1.5.0: @acpkit/elicitation.');

    spawned.stdin.end();
    expect(await exited(spawned)).toBe(0);
    client.connection.close();
    await checkDone;
    const lines = Buffer.concat(stdoutChunks)
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== '');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(stderr).toBe('');
  });
});
