import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { type ProcessGroupChild, spawnProcessGroup } from '@acpkit/remote';
import { ndJsonStream, type Stream } from '@agentclientprotocol/sdk';
import { ClientError, ClientErrorCode } from './errors.js';

/** How the agent process ended. */
export interface AgentExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** How long the agent gets to exit after its stdin closes, and again after SIGTERM, before the next step. */
const STOP_GRACE_MS = 2_000;

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

  private constructor(private readonly child: ProcessGroupChild) {
    this.exited = child.exited.then(({ code, signal }) => ({ code, signal }));
    this.stream = ndJsonStream(
      Writable.toWeb(child.process.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.process.stdout!) as ReadableStream<Uint8Array>,
    );
  }

  /** Spawns `command` in `cwd`; rejects with `AGENT_START_FAILED` when it cannot be started. */
  static async start(command: readonly string[], cwd: string): Promise<AgentProcess> {
    const [file] = command;
    if (file === undefined) throw new ClientError(ClientErrorCode.InvalidOption, 'No agent command given.');
    const failed = (error: unknown) =>
      new ClientError(
        ClientErrorCode.AgentStartFailed,
        `Could not start the agent command ${JSON.stringify(file)}: ${(error as Error).message}`,
        { cause: error },
      );
    let child: ProcessGroupChild;
    try {
      // @acpkit/remote's process-group teardown (also behind `acpremote expose`); it reaps the group on our exit too.
      child = spawnProcessGroup(command, {
        cwd,
        stdio: ['pipe', 'pipe', 'inherit'],
        terminateTimeoutMs: STOP_GRACE_MS,
      });
    } catch (error) {
      throw failed(error);
    }
    const startError = await once(child.process, 'spawn').then(
      () => undefined,
      (error: unknown) => error,
    );
    if (startError !== undefined) throw failed(startError);
    return new AgentProcess(child);
  }

  /** True until the process has exited. */
  get isRunning(): boolean {
    return !this.child.hasExited;
  }

  /**
   * Stops the agent and everything it started: closes its stdin (a stdio agent exits on EOF), then SIGTERM, then
   * SIGKILL to its process group, then the same for whatever it left behind.
   */
  async stop(): Promise<AgentExit> {
    await this.child.terminate();
    return this.exited;
  }
}
