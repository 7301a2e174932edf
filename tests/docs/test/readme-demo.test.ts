// The root README quotes what `pnpm demo` prints without a terminal; this runs the demo script the same way
// (stdin not a TTY, builds already done by the test command) and compares stdout with the quoted transcript.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { extractFencedCode } from '../src/code-blocks.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');

let demo: ChildProcess | undefined;
afterEach(async () => {
  // The demo reaps its own children on SIGTERM.
  if (demo && demo.exitCode === null && demo.signalCode === null) {
    const exited = once(demo, 'exit');
    demo.kill('SIGTERM');
    await exited;
  }
  demo = undefined;
});

describe('README quick start', () => {
  it('quotes the non-TTY stdout of the demo exactly', async () => {
    const transcript = extractFencedCode(readme, 'text').find((block) => block.startsWith('Connected to '));
    expect(transcript, 'README.md has no ```text block with the demo transcript').toBeDefined();

    const child = spawn(process.execPath, ['scripts/demo.mjs'], {
      cwd: repositoryRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    demo = child;
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const [code] = await once(child, 'close');
    expect(code, stderr).toBe(0);
    expect(stdout).toBe(transcript);
  });
});
