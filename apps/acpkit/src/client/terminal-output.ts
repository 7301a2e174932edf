import type { Writable } from 'node:stream';

/**
 * The client's single writer to the terminal. Prompts run one at a time through {@link TerminalOutput.exclusive};
 * while one is on screen, streamed agent output (stdout) and warnings (stderr) are held back and printed, in order,
 * when it closes, so the prompts library's redraws are never torn by concurrent writes.
 *
 * @example
 * ```ts
 * const terminal = new TerminalOutput(process.stdout);
 * terminal.write('hello\n');
 * const name = await terminal.exclusive(() => text({ message: 'Name?' }));
 * ```
 */
export class TerminalOutput {
  private queue: Promise<unknown> = Promise.resolve();
  private promptActive = false;
  private held: Array<{ readonly stream: Writable; readonly text: string }> = [];

  constructor(
    readonly output: Writable,
    readonly errorOutput: Writable = output,
  ) {}

  /** Writes to stdout now, or after the prompt on screen closes. */
  write(text: string): void {
    this.send(this.output, text);
  }

  /** Writes to stderr now, or after the prompt on screen closes. */
  writeError(text: string): void {
    this.send(this.errorOutput, text);
  }

  /** Resolves once every prompt queued so far has closed and the output held behind it is written. */
  settled(): Promise<void> {
    return this.exclusive(async () => undefined);
  }

  private send(stream: Writable, text: string): void {
    if (text.length === 0) return;
    if (this.promptActive) this.held.push({ stream, text });
    else stream.write(text);
  }

  /** Runs `task` once every earlier exclusive task has finished, holding other output meanwhile. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      this.promptActive = true;
      try {
        return await task();
      } finally {
        this.promptActive = false;
        const held = this.held;
        this.held = [];
        for (const { stream, text } of held) stream.write(text);
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
