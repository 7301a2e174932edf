import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream, type Stream } from '@agentclientprotocol/sdk';
import { ClientError, ClientErrorCode } from './errors.js';

/** How the agent process ended. */
export interface AgentExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** How long the agent gets to exit after its stdin closes, and again after SIGTERM, before the next step. */
const STOP_GRACE_MS = 2_000;

function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds).unref());
}

/**
 * A spawned stdio ACP agent: argv without a shell, stdin/stdout carrying NDJSON JSON-RPC, stderr passed through.
 * It runs in its own process group, so the terminal's Ctrl+C reaches only the client (which turns the first one
 * into `session/cancel`); the client reaps the whole group when it stops.
 *
 * @example
 * ```ts
 * const agent = await AgentProcess.start(['node', 'agent.js'], process.cwd());
 * const connection = client().connect(agent.stream);
 * await agent.stop();
 * ```
 */
export class AgentProcess {
  /** Settles when the process has exited, with its code or signal. */
  readonly exited: Promise<AgentExit>;
  /** The JSON-RPC message stream over the child's stdin/stdout. */
  readonly stream: Stream;
  private running = true;
  private readonly reapOnExit = () => this.signalGroup('SIGKILL');

  private constructor(private readonly child: ChildProcess) {
    this.exited = once(child, 'exit').then(([code, signal]) => {
      this.running = false;
      process.off('exit', this.reapOnExit);
      return { code: code as number | null, signal: signal as NodeJS.Signals | null };
    });
    // A write to an agent that already exited must not crash the client; the exit is reported instead.
    child.stdin?.on('error', () => undefined);
    this.stream = ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    );
    process.on('exit', this.reapOnExit);
  }

  /** Spawns `command` in `cwd`; rejects with `AGENT_START_FAILED` when it cannot be started. */
  static async start(command: readonly string[], cwd: string): Promise<AgentProcess> {
    const [file, ...args] = command;
    if (file === undefined) throw new ClientError(ClientErrorCode.InvalidOption, 'No agent command given.');
    const child = spawn(file, args, {
      cwd,
      stdio: ['pipe', 'pipe', 'inherit'],
      detached: process.platform !== 'win32',
    });
    try {
      await once(child, 'spawn');
    } catch (error) {
      throw new ClientError(
        ClientErrorCode.AgentStartFailed,
        `Could not start the agent command ${JSON.stringify(file)}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    return new AgentProcess(child);
  }

  /** True until the process has exited. */
  get isRunning(): boolean {
    return this.running;
  }

  /** Stops the agent: closes its stdin (a stdio agent exits on EOF), then SIGTERM, then SIGKILL to its group. */
  async stop(): Promise<AgentExit> {
    if (this.running) {
      this.child.stdin?.end();
      const ended = await Promise.race([
        this.exited.then(() => true),
        delay(STOP_GRACE_MS).then(() => false),
      ]);
      if (!ended) {
        this.signalGroup('SIGTERM');
        const terminated = await Promise.race([
          this.exited.then(() => true),
          delay(STOP_GRACE_MS).then(() => false),
        ]);
        if (!terminated) this.signalGroup('SIGKILL');
      }
    }
    return this.exited;
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (!this.running || this.child.pid === undefined) return;
    try {
      // A negative pid signals the whole process group (the agent and anything it spawned).
      if (process.platform === 'win32') this.child.kill(signal);
      else process.kill(-this.child.pid, signal);
    } catch {
      // Already gone.
    }
  }
}
