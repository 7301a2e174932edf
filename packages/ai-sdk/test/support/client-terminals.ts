// A client's terminal/* methods done for real: each terminal is a child process (no shell), its output kept up to
// the agent's outputByteLimit, killed and released on request. Tests read `live` to see what is still running.
import { type ChildProcess, spawn } from 'node:child_process';

interface Term {
  readonly child: ChildProcess;
  output: string;
  truncated: boolean;
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
  exited: { exitCode: number | null; signal: string | null } | undefined;
}

export class ClientTerminals {
  readonly #terms = new Map<string, Term>();
  readonly calls: string[] = [];
  #next = 0;

  /** Ids of terminals not released yet. */
  get live(): string[] {
    return [...this.#terms.keys()];
  }

  /** Pids of processes still running. */
  get running(): number[] {
    return [...this.#terms.values()]
      .filter((term) => term.exited === undefined)
      .map((term) => term.child.pid ?? -1);
  }

  handlers() {
    return {
      'terminal/create': (params: {
        command: string;
        args?: string[];
        cwd?: string;
        outputByteLimit?: number;
      }) => {
        this.calls.push(`create ${params.command}`);
        const child = spawn(params.command, params.args ?? [], {
          cwd: params.cwd,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const terminalId = `term-${++this.#next}`;
        const limit = params.outputByteLimit ?? Number.POSITIVE_INFINITY;
        const term: Term = {
          child,
          output: '',
          truncated: false,
          exited: undefined,
          exit: new Promise((resolve) => {
            child.on('close', (exitCode, signal) => {
              term.exited = { exitCode, signal };
              resolve(term.exited);
            });
            child.on('error', () => {
              term.exited = { exitCode: 127, signal: null };
              resolve(term.exited);
            });
          }),
        };
        const add = (chunk: Buffer) => {
          term.output += chunk.toString('utf8');
          if (Buffer.byteLength(term.output) > limit) {
            term.output = term.output.slice(-limit);
            term.truncated = true;
          }
        };
        child.stdout?.on('data', add);
        child.stderr?.on('data', add);
        this.#terms.set(terminalId, term);
        return { terminalId };
      },
      'terminal/wait_for_exit': async (params: { terminalId: string }) => {
        this.calls.push('wait');
        return (await this.#term(params.terminalId).exit) as object;
      },
      'terminal/output': (params: { terminalId: string }) => {
        this.calls.push('output');
        const term = this.#term(params.terminalId);
        return { output: term.output, truncated: term.truncated, exitStatus: term.exited ?? null };
      },
      'terminal/kill': (params: { terminalId: string }) => {
        this.calls.push('kill');
        this.#term(params.terminalId).child.kill('SIGKILL');
        return {};
      },
      'terminal/release': (params: { terminalId: string }) => {
        this.calls.push('release');
        const term = this.#term(params.terminalId);
        if (term.exited === undefined) term.child.kill('SIGKILL');
        this.#terms.delete(params.terminalId);
        return {};
      },
    };
  }

  /** Kills whatever is left (test cleanup). */
  async dispose(): Promise<void> {
    for (const term of this.#terms.values()) term.child.kill('SIGKILL');
    await Promise.all([...this.#terms.values()].map((term) => term.exit));
    this.#terms.clear();
  }

  #term(terminalId: string): Term {
    const term = this.#terms.get(terminalId);
    if (term === undefined) throw new Error(`no terminal ${terminalId}`);
    return term;
  }
}
