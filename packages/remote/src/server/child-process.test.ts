// Tests of the process-group teardown with real child processes.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { processExists } from '../../test/support/helpers.js';
import { AcpRemoteError } from '../shared/errors.js';
import { type ProcessGroupChild, spawnProcessGroup } from './child-process.js';
import { PROCESS_TREE_VARIABLE, processesCarrying } from './process-tree.js';

const node = process.execPath;
/** Ignores stdin EOF and SIGTERM: only SIGKILL ends it. Prints `true` once its SIGTERM handler is in place. */
const STUBBORN =
  "process.on('SIGTERM', () => {}); process.stdin.resume(); setInterval(() => {}, 1e6); console.log('true');";

const started: ProcessGroupChild[] = [];
const strays = new Set<number>();

function start(...parameters: Parameters<typeof spawnProcessGroup>): ProcessGroupChild {
  const child = spawnProcessGroup(...parameters);
  started.push(child);
  return child;
}

/** The first stdout line of a child, parsed as JSON (the fixtures print their pids there). */
async function firstLine<T>(child: ProcessGroupChild): Promise<T> {
  const lines = createInterface({ input: child.process.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  return JSON.parse(line) as T;
}

/** A Node.js program that starts `script` as a child with `options` and prints `{ pid, grandchild }`. */
function parentOf(script: string, options: string): string {
  return `const { spawn } = require('node:child_process');
const grandchild = spawn(process.execPath, ['-e', ${JSON.stringify(script)}], { stdio: 'ignore', ...${options} });
console.log(JSON.stringify({ pid: process.pid, grandchild: grandchild.pid }));
process.stdin.on('end', () => process.exit(0)); process.stdin.resume();`;
}

async function waitUntilGone(pid: number, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (processExists(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still runs after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function groupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((child) => child.terminate()));
  for (const pid of strays) if (processExists(pid)) process.kill(pid, 'SIGKILL');
  strays.clear();
});

describe('spawnProcessGroup', () => {
  it('starts the child as the leader of a new process group, with a tree marker in its environment', async () => {
    const child = start([node, '-e', 'console.log(JSON.stringify(process.env.ACPKIT_PROCESS_TREE))']);
    const marker = await firstLine<string>(child);
    expect(marker).toMatch(/^[0-9a-f]{24}$/);
    expect(child.process.pid).toBeDefined();
    expect((await child.exited).code).toBe(0);
    expect(child.hasExited).toBe(true);
  });

  it('keeps the markers of the trees it is nested in', async () => {
    const child = start([node, '-e', 'console.log(JSON.stringify(process.env.ACPKIT_PROCESS_TREE))'], {
      env: { ...process.env, [PROCESS_TREE_VARIABLE]: 'outer' },
    });
    expect(await firstLine<string>(child)).toMatch(/^outer:[0-9a-f]{24}$/);
  });

  it('reports a command that cannot start through exited, with no pid and no stdio, and never throws', async () => {
    const child = start(['/nonexistent/acpkit-agent']);
    const exit = await child.exited;
    expect(exit).toMatchObject({ code: null, signal: null });
    expect((exit.error as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(child.process.pid).toBeUndefined();
    await expect(child.terminate()).resolves.toBe(exit);
  });

  it('rejects an empty command, NUL characters and a bad terminateTimeoutMs with INVALID_OPTION', () => {
    for (const [argv, options] of [
      [[], {}],
      [[' '], {}],
      [['node', 'a\0b'], {}],
      [['node'], { terminateTimeoutMs: 0 }],
      [['node'], { terminateTimeoutMs: Number.NaN }],
    ] as const) {
      let thrown: unknown;
      try {
        spawnProcessGroup(argv, options);
      } catch (error) {
        thrown = error;
      }
      expect(AcpRemoteError.isInstance(thrown) && thrown.code).toBe('INVALID_OPTION');
    }
  });
});

describe('ProcessGroupChild.terminate', () => {
  it('ends a cooperative child by closing its stdin, without a signal', async () => {
    const child = start([
      node,
      '-e',
      'process.stdin.resume(); process.stdin.on("end", () => process.exit(7))',
    ]);
    expect(await child.terminate()).toMatchObject({ code: 7, signal: null });
  });

  it('ends a child that ignores stdin EOF and SIGTERM with SIGKILL, and returns the same promise every time', async () => {
    const child = start([node, '-e', STUBBORN], { terminateTimeoutMs: 150 });
    // Signals sent before the handler exists would end it early: wait until it says it is ready.
    expect(await firstLine<boolean>(child)).toBe(true);
    const first = child.terminate();
    expect(child.terminate()).toBe(first);
    expect(await first).toMatchObject({ code: null, signal: 'SIGKILL' });
  });

  it('sends SIGTERM first when there is no stdin to close', async () => {
    const child = start([node, '-e', 'setInterval(() => {}, 1e6)'], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    await once(child.process, 'spawn');
    expect(await child.terminate()).toMatchObject({ signal: 'SIGTERM' });
  });

  it('closes the IPC channel of a Node.js child first, so it can exit on its own', async () => {
    const child = start([node, '-e', "process.on('disconnect', () => process.exit(3))"], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    await once(child.process, 'spawn');
    expect(await child.terminate()).toMatchObject({ code: 3, signal: null });
  });

  it('reaps a grandchild left in the group after the child itself exited', async () => {
    const child = start([node, '-e', parentOf(STUBBORN, '{}')], { terminateTimeoutMs: 150 });
    const { pid, grandchild } = await firstLine<{ pid: number; grandchild: number }>(child);
    strays.add(grandchild);
    expect(groupOf(grandchild)).toBe(pid);
    expect(await child.terminate()).toMatchObject({ code: 0 });
    expect(processExists(grandchild)).toBe(false);
  });

  it('reaps a descendant that left the group with setsid, through the tree marker in its environment', async () => {
    const child = start([node, '-e', parentOf(STUBBORN, '{ detached: true }')], { terminateTimeoutMs: 150 });
    const { pid, grandchild } = await firstLine<{ pid: number; grandchild: number }>(child);
    strays.add(grandchild);
    expect(groupOf(grandchild)).not.toBe(pid);
    expect((await processesCarrying(readMarker(child))).sort()).toEqual([pid, grandchild].sort());
    await child.terminate();
    expect(processExists(grandchild)).toBe(false);
  });

  it('cannot find a descendant that left the group and dropped its environment (the documented limit)', async () => {
    const child = start([node, '-e', parentOf(STUBBORN, '{ detached: true, env: {} }')], {
      terminateTimeoutMs: 150,
    });
    const { grandchild } = await firstLine<{ pid: number; grandchild: number }>(child);
    strays.add(grandchild);
    await child.terminate();
    expect(processExists(grandchild)).toBe(true);
  });

  it('with newProcessGroup: false, stays in this process group and signals the child alone', async () => {
    const child = start([node, '-e', STUBBORN], { newProcessGroup: false, terminateTimeoutMs: 150 });
    // Signals sent before the handler exists would end it early: wait until it says it is ready.
    expect(await firstLine<boolean>(child)).toBe(true);
    expect(groupOf(child.process.pid!)).toBe(groupOf(process.pid));
    expect(await child.terminate()).toMatchObject({ signal: 'SIGKILL' });
    expect(processExists(process.pid)).toBe(true);
  });
});

describe('a child still running when this process exits', () => {
  it('is SIGKILLed with its group', async () => {
    const module = new URL('./child-process.ts', import.meta.url).href;
    const host = start(
      [
        node,
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { spawnProcessGroup } = await import(${JSON.stringify(module)});
const child = spawnProcessGroup([process.execPath, '-e', ${JSON.stringify(STUBBORN)}], { stdio: ['pipe', 'ignore', 'inherit'] });
child.process.once('spawn', () => { console.log(child.process.pid); process.exit(0); });`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const orphan = await firstLine<number>(host);
    strays.add(orphan);
    expect((await host.exited).code).toBe(0);
    // SIGKILL was sent before the host exited; the kernel ends the process a moment later.
    await waitUntilGone(orphan);
  });
});

/** The tree marker a child got, read from its environment (the last colon-separated entry). */
function readMarker(child: ProcessGroupChild): string {
  const environ = readFileSync(`/proc/${child.process.pid}/environ`, 'utf8').split('\0');
  const entry = environ.find((candidate) => candidate.startsWith(`${PROCESS_TREE_VARIABLE}=`))!;
  return entry
    .slice(PROCESS_TREE_VARIABLE.length + 1)
    .split(':')
    .at(-1)!;
}
