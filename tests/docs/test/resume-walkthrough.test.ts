// docs/remote-transport.md, "Watch a resume happen": runs its steps with the built CLIs, ports chosen by the OS
// instead of 8080 and 9090: the server with metrics, the documented TCP hop, a client through it; cutting the hop
// logs the interruption and detaches the session, starting it again resumes it, and the metrics count both.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { spawnTestClient, type TestClient } from '@acpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { extractFencedCode } from '../src/code-blocks.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const acpremoteCli = join(repositoryRoot, 'apps/acpremote/dist/cli.js');
const acpkitCli = join(repositoryRoot, 'apps/acpkit/dist/cli.js');
const page = readFileSync(join(repositoryRoot, 'docs/remote-transport.md'), 'utf8');
// The section's first `sh` block (its `# 1.` comments would end a section read by heading).
const sectionStart = page.indexOf('### Watch a resume happen');
const steps = extractFencedCode(page.slice(sectionStart), 'sh')[0] ?? '';
const token = 'resume-walkthrough-token-0123456789abcdef';

const processes: ChildProcess[] = [];
const clients: TestClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const child of processes.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
});

/** Every stderr line of `child` so far, and a way to wait for one that matches. */
function stderrLines(child: ChildProcess) {
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stderr! }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiters) wake();
  });
  return {
    lines,
    waitFor(pattern: RegExp): Promise<string> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find((line) => pattern.test(line));
          if (found !== undefined) {
            waiters.delete(check);
            resolve(found);
          } else if (child.exitCode !== null)
            reject(new Error(`exited before ${pattern}: ${lines.join('\n')}`));
        };
        waiters.add(check);
        child.once('exit', check);
        check();
      });
    },
  };
}

/** Starts the documented hop (its `node -e` program), relaying to `serverPort`, on `port` (0: any free port). */
async function startHop(serverPort: number, port: number): Promise<{ child: ChildProcess; port: number }> {
  const program = /^node -e "(.+)"$/m.exec(steps)?.[1] ?? '';
  const script = program
    .replace('net.connect(8080,', `net.connect(${serverPort},`)
    .replace('.listen(9090)', `.listen(${port}, function () { console.log(this.address().port); })`);
  expect(script).toContain(`.listen(${port},`);
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  processes.push(child);
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { child, port: Number(line) };
}

async function scrape(serverPort: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${serverPort}/metrics`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return response.text();
}

describe('docs/remote-transport.md: watch a resume happen', () => {
  it('has the steps: the server with --metrics, the hop, the client through it, the metrics', () => {
    expect(sectionStart).toBeGreaterThan(-1);
    expect(steps).toContain(
      'acpremote expose --port 8080 --token-env ACPREMOTE_TOKEN --metrics -- node examples/deploy-target',
    );
    expect(steps).toContain(
      'acpkit client -- acpkit run --addr ws://127.0.0.1:9090/acp/ws --token-env ACPREMOTE_TOKEN',
    );
    expect(steps).toMatch(/^node -e "/m);
  });

  it('logs the drop and the resume, and counts them, as the page says', async () => {
    const env = { ...process.env, ACPREMOTE_TOKEN: token };
    const server = spawn(
      process.execPath,
      [
        acpremoteCli,
        'expose',
        '--port',
        '0',
        '--token-env',
        'ACPREMOTE_TOKEN',
        '--metrics',
        '--',
        process.execPath,
        'examples/deploy-target',
      ],
      { cwd: repositoryRoot, env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    processes.push(server);
    const serverLog = stderrLines(server);
    const banner = await serverLog.waitFor(/Serving ACP WebSocket at ws:\/\/127\.0\.0\.1:(\d+)/);
    const serverPort = Number(/:(\d+)\//.exec(banner)?.[1]);
    let hop = await startHop(serverPort, 0);

    const client = await spawnTestClient(
      [
        process.execPath,
        acpkitCli,
        'run',
        '--addr',
        `ws://127.0.0.1:${hop.port}/acp/ws`,
        '--token-env',
        'ACPREMOTE_TOKEN',
      ],
      { env, answers: [{ Choice: 'Preview' }, 'decline'] },
    );
    clients.push(client);
    expect((await client.prompt('Deploy')).text).toBe('Selected: preview');

    // Ctrl+C on the hop: its sockets close without a WebSocket close frame.
    const hopExited = once(hop.child, 'exit');
    hop.child.kill('SIGINT');
    await hopExited;
    expect(
      await serverLog.waitFor(/acpremote info: connection interrupted; session kept for resume connection=1/),
    ).toContain('code=1006');
    expect(await scrape(serverPort)).toMatch(/^acpremote_sessions_detached 1$/m);

    hop = await startHop(serverPort, hop.port);
    expect(await serverLog.waitFor(/acpremote info: connection resumed connection=1 /)).toMatch(
      /replayedFrames=\d+/,
    );
    expect((await client.prompt('Deploy again')).text).toBe('The user declined to choose.');
    const metrics = await scrape(serverPort);
    expect(metrics).toMatch(/^acpremote_session_drops_total 1$/m);
    expect(metrics).toMatch(/^acpremote_resumes_total\{outcome="accepted"\} 1$/m);
    expect(metrics).toMatch(/^acpremote_sessions_detached 0$/m);
  });
});
