// `pnpm demo` as CI runs it: no terminal, so the client answers the deploy-target form with its default, prints
// "Selected: production" and exits 0, leaving no process behind.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { processesWithMarker, repositoryRoot } from './fixtures/client-pty.js';

describe('pnpm demo without a terminal', () => {
  it('answers with the default, prints Selected: production, exits 0 and reaps every process', {
    timeout: 120_000,
  }, async () => {
    const marker = randomUUID();
    const child = spawn(process.execPath, ['scripts/demo.mjs'], {
      cwd: repositoryRoot,
      env: { ...process.env, ACPKIT_TEST_MARKER: marker },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(stderr).toMatch(/Serving ACP WebSocket at ws:\/\/127\.0\.0\.1:\d+\/acp\/ws/);
    expect(stderr).toContain('No terminal: answering the form with its default (--yes).');
    // The token travels by environment variable only; the banner names the variable.
    expect(stderr).toContain('--token-env ACPKIT_DEMO_TOKEN');
    expect(stdout).toContain('asks: Choose a deployment target');
    expect(stdout).toContain('Choice: Production [default]');
    expect(stdout).toContain('Selected: production');
    expect(code).toBe(0);
    expect(processesWithMarker(marker)).toEqual([]);
  });

  it('stops every process and exits 130 on two SIGINTs sent to the demo alone', {
    timeout: 120_000,
  }, async () => {
    const marker = randomUUID();
    const child = spawn(process.execPath, ['scripts/demo.mjs'], {
      cwd: repositoryRoot,
      env: { ...process.env, ACPKIT_TEST_MARKER: marker },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let interrupted = false;
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      // The banner comes seconds before the turn can end, so both signals land while the demo runs.
      if (!interrupted && stderr.includes('Serving ACP WebSocket at')) {
        interrupted = true;
        child.kill('SIGINT');
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(interrupted).toBe(true);
    expect(code).toBe(130);
    expect(processesWithMarker(marker)).toEqual([]);
  });
});
