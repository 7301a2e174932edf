import type { Writable } from 'node:stream';

/**
 * The client's single writer to the terminal. Prompts run one at a time through {@link TerminalOutput.exclusive};
 * while one is on screen, streamed agent output is held back and printed when it closes, so the prompts library's
 * redraws are never torn by concurrent writes.
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
  private held: string[] = [];

  constructor(readonly output: Writable) {}

  /** Writes now, or after the prompt on screen closes. */
  write(text: string): void {
    if (text.length === 0) return;
    if (this.promptActive) this.held.push(text);
    else this.output.write(text);
  }

  /** Runs `task` once every earlier exclusive task has finished, holding other output meanwhile. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      this.promptActive = true;
      try {
        return await task();
      } finally {
        this.promptActive = false;
        const held = this.held.join('');
        this.held = [];
        if (held.length > 0) this.output.write(held);
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
