import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const cliIoModule = fileURLToPath(new URL('./cli-io.ts', import.meta.url));

describe('exitAfterFlush', () => {
  it('exits with the given code when the stdout reader has gone away (EPIPE)', async () => {
    // The child waits until its stdout pipe is closed by us, writes into it, then exits through exitAfterFlush.
    const script = `
      import { exitAfterFlush } from ${JSON.stringify(cliIoModule)};
      process.stdin.once('data', async () => {
        process.stdout.write('x'.repeat(1 << 16));
        await exitAfterFlush(7);
      });
      process.stderr.write('ready\\n');
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    const ready = new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: string) => {
        stderr += chunk;
        if (stderr.includes('ready')) resolve();
      });
    });
    await ready;
    child.stdout.destroy();
    child.stdin.write('go\n');
    const [code] = await once(child, 'exit');
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(7);
  });
});
