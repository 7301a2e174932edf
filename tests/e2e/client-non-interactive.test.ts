// `acpkit client` as a script uses it: stdin is not a terminal, so forms are answered with their defaults and
// printed, prompts come from --prompt or stdin lines, and the process always ends with a meaningful exit code.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { acpkitCli, fixtureAgent, repositoryRoot } from './fixtures/client-pty.js';

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function runClient(args: readonly string[], input = ''): Promise<Finished> {
  const child = spawn(process.execPath, [acpkitCli, 'client', ...args], {
    cwd: repositoryRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.end(input);
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

function agent(scenario: string): string[] {
  return ['--', process.execPath, fixtureAgent, scenario];
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('acpkit client without a terminal', () => {
  it('advertises form and URL elicitation in initialize', async () => {
    const result = await runClient(['--prompt', 'caps', ...agent('capabilities')]);
    expect(result.stdout).toContain('Elicitation: {"form":{},"url":{}}; client: acpkit-client');
    expect(result.code).toBe(0);
  });

  it('answers a single choice with its default, prints the answer, exits 0 and reaps the agent', async () => {
    const result = await runClient(['--prompt', 'deploy', ...agent('single-choice')]);
    expect(result.stdout).toContain('> deploy');
    expect(result.stdout).toContain('? Fixture Agent (fixture-agent 1.0.0) asks: Choose a deployment target');
    expect(result.stdout).toContain('Target: Production [default]');
    expect(result.stdout).toContain('Selected: production');
    expect(result.code).toBe(0);
    const pid = Number(/fixture agent pid (\d+)/.exec(result.stderr)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid)).toBe(false);
  });

  it('sends one prompt per stdin line and exits 0 at end of input', async () => {
    const result = await runClient(agent('echo'), 'first\n\nsecond\n');
    expect(result.stdout).toContain('> first\nEcho: first\n> second\nEcho: second\n');
    expect(result.code).toBe(0);
  });

  it('declines a form whose required field has no default, instead of hanging or inventing a value', async () => {
    const result = await runClient(['--prompt', 'release', ...agent('multi-field')]);
    expect(result.stdout).toContain('Declined automatically: Release name is required and has no default.');
    expect(result.stdout).toContain('Release form: decline');
    expect(result.code).toBe(0);
  });

  it('allows a permission request with the first allow option and shows tool calls and plans compactly', async () => {
    const result = await runClient(['--prompt', 'deploy', ...agent('tools')]);
    expect(result.stdout).toContain(
      [
        'Looking at the repository.',
        'Plan:',
        '  [x] Read the config',
        '  [ ] Deploy',
        '⚙ Run deploy script (execute) … pending',
        '? Fixture Agent (fixture-agent 1.0.0) asks permission: Run deploy script',
        '  Answered automatically (--yes or no terminal): Allow once [allow_once]',
        '✓ Run deploy script completed',
        'Permission: allow',
      ].join('\n'),
    );
    expect(result.code).toBe(0);
  });

  it('declines URL requests, after showing the URL, its host and the punycode warning', async () => {
    const result = await runClient(['--prompt', 'sign in', ...agent('url')]);
    expect(result.stdout).toContain('URL: https://xn--pple-43d.example/login?state=abc');
    expect(result.stdout).toContain('Host: xn--pple-43d.example');
    expect(result.stdout).toContain('Warning: The host xn--pple-43d.example is punycode');
    expect(result.stdout).toContain('URL flow: decline');
    expect(result.code).toBe(0);
  });

  it('refuses an elicitation mode it does not know with invalid params instead of guessing', async () => {
    const result = await runClient(['--prompt', 'wizard', ...agent('custom-mode')]);
    expect(result.stdout).toContain('Custom mode refused: -32602');
    expect(result.stdout).toContain('Unsupported elicitation mode: _vendor_wizard');
    expect(result.code).toBe(0);
  });

  it('exits 1 when the agent fails a turn', async () => {
    const result = await runClient(['--prompt', 'x', ...agent('fails')]);
    expect(result.stderr).toContain('Error: The agent answered with an error: Internal error');
    expect(result.code).toBe(1);
  });

  it('exits 1 with a clear error when the agent command cannot start', async () => {
    const result = await runClient(['--prompt', 'x', '--', 'acpkit-no-such-agent-command']);
    expect(result.stderr).toContain(
      'Error: Could not start the agent command "acpkit-no-such-agent-command"',
    );
    expect(result.code).toBe(1);
  });

  it('exits 1 naming the exit status when the agent dies before answering initialize', async () => {
    const result = await runClient(['--prompt', 'x', '--', process.execPath, '-e', 'process.exit(3)']);
    expect(result.stderr).toContain('Error: The agent exited before answering initialize (code 3).');
    expect(result.code).toBe(1);
  });

  it('exits 2 on usage errors: no command, or a --cwd that is not a directory', async () => {
    const missing = await runClient([]);
    expect(missing.code).toBe(2);
    const badDirectory = await runClient(['--cwd', '/definitely/not/here', ...agent('echo')]);
    expect(badDirectory.stderr).toContain('--cwd "/definitely/not/here" is not a directory.');
    expect(badDirectory.code).toBe(2);
  });
});
