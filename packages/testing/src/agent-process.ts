import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { type ProcessGroupChild, spawnProcessGroup } from '@acpkit/remote';
import { ndJsonStream, type Stream } from '@agentclientprotocol/sdk';
import { AgentProcessError, TestingErrorCode } from './errors.js';
import { JsonLineFilter, type NonJsonLine } from './json-line-filter.js';

/** How the agent process ended. */
export interface AgentExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Dropped stdout lines remembered for late listeners; later ones are only counted. */
const REMEMBERED_NON_JSON_LINES = 20;

/** How long the agent gets to exit after its stdin closes, and again after SIGTERM, before the next step. */
const STOP_GRACE_MS = 2_000;

/**
 * A spawned stdio ACP agent: argv without a shell, stdin/stdout carrying NDJSON JSON-RPC, stderr passed through.
 * It runs in its own process group, so the terminal's Ctrl+C reaches only the client (which turns the first one
 * into `session/cancel`); the client reaps the whole group when it stops. Lines on its stdout that cannot be
 * JSON-RPC are dropped and reported to {@link AgentProcess.onNonJsonLine} listeners.
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
  /** The first dropped non-JSON stdout lines (all of them are counted in {@link nonJsonLineCount}). */
  readonly nonJsonLines: NonJsonLine[] = [];
  private droppedLines = 0;
  private readonly nonJsonListeners = new Set<(line: NonJsonLine) => void>();

  private constructor(private readonly child: ProcessGroupChild) {
    this.exited = child.exited.then(({ code, signal }) => ({ code, signal }));
    const stdout = child.process.stdout!.pipe(new JsonLineFilter((line) => this.reportNonJsonLine(line)));
    this.stream = ndJsonStream(
      Writable.toWeb(child.process.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
    );
  }

  /**
   * Spawns `command` in `cwd` (with `env`, default the inherited environment); rejects with `INVALID_COMMAND` for
   * an empty command and `AGENT_START_FAILED` when it cannot be started.
   */
  static async start(
    command: readonly string[],
    cwd: string,
    env?: NodeJS.ProcessEnv,
  ): Promise<AgentProcess> {
    const [file] = command;
    if (file === undefined || file.trim() === '') {
      throw new AgentProcessError(TestingErrorCode.InvalidCommand, 'No agent command given.');
    }
    const failed = (error: unknown) =>
      new AgentProcessError(
        TestingErrorCode.AgentStartFailed,
        `Could not start the agent command ${JSON.stringify(file)}: ${(error as Error).message}`,
        { cause: error },
      );
    let child: ProcessGroupChild;
    try {
      // @acpkit/remote's process-group teardown (also behind `acpremote expose`); it reaps the group on our exit too.
      child = spawnProcessGroup(command, {
        cwd,
        ...(env === undefined ? {} : { env }),
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

  /** Calls `listener` for every non-JSON stdout line from now on; returns the unsubscribe function. */
  onNonJsonLine(listener: (line: NonJsonLine) => void): () => void {
    this.nonJsonListeners.add(listener);
    return () => this.nonJsonListeners.delete(listener);
  }

  /** How many non-JSON stdout lines were dropped so far. */
  get nonJsonLineCount(): number {
    return this.droppedLines;
  }

  private reportNonJsonLine(line: NonJsonLine): void {
    this.droppedLines += 1;
    if (this.nonJsonLines.length < REMEMBERED_NON_JSON_LINES) this.nonJsonLines.push(line);
    for (const listener of [...this.nonJsonListeners]) listener(line);
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

  /**
   * Stops a program that never spoke ACP (or stopped answering): SIGTERM to its process group at once, without first
   * waiting for it to exit on stdin EOF, then the same teardown as {@link AgentProcess.stop} for what is left.
   */
  async abandon(): Promise<AgentExit> {
    if (this.isRunning) this.child.signal('SIGTERM');
    return this.stop();
  }
}
