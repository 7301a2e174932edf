// The stdio MCP servers this process started and has not closed yet: if the process exits before their sessions
// close (a crash, process.exit), they are killed on the way out, so no server outlives the agent.

const running = new Set<number>();
let hooked = false;

function killAll(): void {
  for (const pid of running) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  running.clear();
}

/** Remembers a started server's pid until {@link forgetServerProcess}. */
export function rememberServerProcess(pid: number | null): void {
  if (pid === null) return;
  running.add(pid);
  if (!hooked) {
    hooked = true;
    process.once('exit', killAll);
  }
}

/**
 * The server was closed by its session (the MCP SDK ended its process: stdin closed, SIGTERM, SIGKILL); one that
 * somehow still runs is killed now.
 */
export function forgetServerProcess(pid: number | null): void {
  if (pid === null || !running.delete(pid)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone, as expected.
  }
}

/** Pids of the stdio servers still running (for tests and diagnostics). */
export function runningServerProcesses(): readonly number[] {
  return [...running];
}
