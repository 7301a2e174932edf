// What the terminal client serves an agent from the user's machine, as an editor does: `fs/read_text_file` and
// `fs/write_text_file` for files inside the working directory, and `terminal/*` as real child processes (no shell)
// whose output is printed when the command ends. Commands the agent runs are the agent's tool calls: the agent asks
// permission for them as for any tool.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { type ClientApp, type ClientCapabilities, methods, RequestError } from '@agentclientprotocol/sdk';

/** A file larger than this is refused, not read whole into the agent's message. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
const DEFAULT_OUTPUT_LIMIT = 1024 * 1024;
const SHOWN_OUTPUT_LINES = 20;

interface LocalTerminal {
  readonly child: ChildProcess;
  readonly command: string;
  output: string;
  truncated: boolean;
  exited: { exitCode: number | null; signal: string | null } | undefined;
  readonly exit: Promise<{ exitCode: number | null; signal: string | null }>;
  shown: boolean;
}

export class LocalWorkspace {
  private readonly terminals = new Map<string, LocalTerminal>();
  private next = 0;

  constructor(
    private readonly cwd: string,
    private readonly print: (text: string) => void,
  ) {}

  readonly capabilities: ClientCapabilities = {
    fs: { readTextFile: true, writeTextFile: true },
    terminal: true,
  };

  /** Registers the fs/* and terminal/* handlers on `app`. */
  register(app: ClientApp): ClientApp {
    return app
      .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
        const path = this.inside(params.path);
        const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
          throw error.code === 'ENOENT'
            ? RequestError.resourceNotFound(params.path)
            : RequestError.internalError({ path: params.path }, error.message);
        });
        if (Buffer.byteLength(text) > MAX_FILE_BYTES) {
          throw RequestError.invalidParams(
            { path: params.path },
            `the file is over ${MAX_FILE_BYTES} bytes; read it with line and limit`,
          );
        }
        if (params.line == null && params.limit == null) return { content: text };
        const lines = text.split('\n');
        const start = Math.max(0, (params.line ?? 1) - 1);
        return {
          content: lines.slice(start, params.limit == null ? undefined : start + params.limit).join('\n'),
        };
      })
      .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
        await writeFile(this.inside(params.path), params.content, 'utf8');
        return {};
      })
      .onRequest(methods.client.terminal.create, ({ params }) => this.create(params))
      .onRequest(methods.client.terminal.output, ({ params }) => {
        const terminal = this.terminal(params.terminalId);
        return {
          output: terminal.output,
          truncated: terminal.truncated,
          exitStatus: terminal.exited ?? null,
        };
      })
      .onRequest(methods.client.terminal.waitForExit, async ({ params }) => {
        const status = await this.terminal(params.terminalId).exit;
        this.show(params.terminalId);
        return status;
      })
      .onRequest(methods.client.terminal.kill, ({ params }) => {
        this.terminal(params.terminalId).child.kill('SIGTERM');
        return {};
      })
      .onRequest(methods.client.terminal.release, ({ params }) => {
        const terminal = this.terminal(params.terminalId);
        if (!terminal.exited) terminal.child.kill('SIGKILL');
        this.show(params.terminalId);
        this.terminals.delete(params.terminalId);
        return {};
      });
  }

  /** Kills what is still running (the run ends). */
  dispose(): void {
    for (const terminal of this.terminals.values()) if (!terminal.exited) terminal.child.kill('SIGKILL');
    this.terminals.clear();
  }

  private inside(path: string): string {
    const absolute = isAbsolute(path) ? path : resolve(this.cwd, path);
    const fromCwd = relative(this.cwd, absolute);
    if (fromCwd.startsWith('..') || isAbsolute(fromCwd)) {
      throw RequestError.invalidParams({ path }, `the client serves only files inside ${this.cwd}`);
    }
    return absolute;
  }

  private create(params: {
    command: string;
    args?: string[];
    cwd?: string | null;
    outputByteLimit?: number | null;
    env?: Array<{ name: string; value: string }>;
  }) {
    const terminalId = `terminal-${++this.next}`;
    const limit = params.outputByteLimit ?? DEFAULT_OUTPUT_LIMIT;
    const child = spawn(params.command, params.args ?? [], {
      cwd: params.cwd ?? this.cwd,
      env: {
        ...process.env,
        ...Object.fromEntries((params.env ?? []).map((entry) => [entry.name, entry.value])),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const terminal: LocalTerminal = {
      child,
      command: [params.command, ...(params.args ?? [])].join(' '),
      output: '',
      truncated: false,
      exited: undefined,
      shown: false,
      exit: new Promise((resolveExit) => {
        child.once('close', (exitCode, signal) => {
          terminal.exited = { exitCode, signal };
          resolveExit(terminal.exited);
        });
        child.once('error', (error) => {
          terminal.output += `${error.message}\n`;
          terminal.exited = { exitCode: 127, signal: null };
          resolveExit(terminal.exited);
        });
      }),
    };
    const add = (chunk: Buffer) => {
      terminal.output += chunk.toString('utf8');
      if (Buffer.byteLength(terminal.output) > limit) {
        // Keep the newest output (the spec: truncate from the beginning), at a character boundary.
        terminal.output = Buffer.from(terminal.output).subarray(-limit).toString('utf8');
        terminal.truncated = true;
      }
    };
    child.stdout?.on('data', add);
    child.stderr?.on('data', add);
    this.terminals.set(terminalId, terminal);
    return { terminalId };
  }

  /** Prints a finished command's last lines once. */
  private show(terminalId: string): void {
    const terminal = this.terminals.get(terminalId);
    if (!terminal || terminal.shown) return;
    terminal.shown = true;
    const lines = terminal.output.replace(/\n$/, '').split('\n');
    const shown = lines.slice(-SHOWN_OUTPUT_LINES);
    const status = terminal.exited
      ? terminal.exited.signal
        ? `killed (${terminal.exited.signal})`
        : `exit ${terminal.exited.exitCode}`
      : 'stopped';
    this.print(
      [
        `  ▶ ${terminal.command} — ${status}`,
        ...(lines.length > shown.length || terminal.truncated ? ['  │ …'] : []),
        ...shown
          .filter((line, index) => line !== '' || index < shown.length - 1)
          .map((line) => `  │ ${line}`),
      ].join('\n'),
    );
  }

  private terminal(terminalId: string): LocalTerminal {
    const terminal = this.terminals.get(terminalId);
    if (!terminal) throw RequestError.resourceNotFound(terminalId);
    return terminal;
  }
}
