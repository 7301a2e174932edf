// What the READMEs say `acpkit client` prints is what the built client prints: the automatic answer transcript and
// the scripted-answer error quoted in apps/acpkit/README.md, and the `--answer` / `--decline` examples of the root
// README, run against the deploy-target example.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { extractFencedCode } from '../src/code-blocks.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const acpkitCli = join(repositoryRoot, 'apps/acpkit/dist/cli.js');
const read = (file: string) => readFileSync(join(repositoryRoot, file), 'utf8');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `acpkit client ARGS -- node examples/deploy-target` without a terminal. */
function client(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [acpkitCli, 'client', ...args, '--', process.execPath, 'examples/deploy-target'],
      { cwd: repositoryRoot },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

describe('apps/acpkit/README.md', () => {
  const readme = read('apps/acpkit/README.md');
  const textBlocks = extractFencedCode(readme, 'text');

  it('quotes exactly what --yes prints for the deploy-target example', async () => {
    expect(readme).toContain(
      "`acpkit client --yes --prompt 'Deploy the app' -- node examples/deploy-target`",
    );
    const quoted = textBlocks.find((block) => block.startsWith('Connected to Deploy target example'));
    expect(quoted, 'no ```text block with the --yes transcript').toBeDefined();
    const run = await client(['--yes', '--prompt', 'Deploy the app']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(quoted);
  });

  it('quotes exactly the error a wrong --answer prints', async () => {
    const quoted = textBlocks.find((block) => block.startsWith('Error: The answer for the field "Choice"'));
    expect(quoted, 'no ```text block with the --answer error').toBeDefined();
    const run = await client(['--answer', 'Choice=Staging', '--prompt', 'Deploy the app']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(quoted);
  });
});

describe('README.md scripted answers', () => {
  const readme = read('README.md');

  it.each([
    [
      'acpkit client --answer Choice=Preview --prompt "Deploy" -- node examples/deploy-target',
      'Selected: preview',
    ],
    [
      'acpkit client --decline --prompt "Deploy" -- node examples/deploy-target',
      'The user declined to choose.',
    ],
  ])('`%s` prints what the README says', async (command, reply) => {
    expect(readme).toContain(`${command}`);
    expect(readme).toMatch(
      new RegExp(`${command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +# prints ${reply}`),
    );
    const args = command
      .replace('acpkit client ', '')
      .replace(' -- node examples/deploy-target', '')
      .split(' ')
      .map((word) => word.replace(/^"|"$/g, ''));
    const run = await client(args);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`\n${reply}\n`);
  });
});
