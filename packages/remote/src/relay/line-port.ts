// The NDJSON side of a relay: lines in (split, bounded) and out (corked per turn), with flow control.
import type { Readable, Writable } from 'node:stream';
import { LineSplitter, type LineSplitterHandlers } from '../wire/line-splitter.js';
import { HIGH_WATER_BYTES, type ReadGate, streamReadGate, whenDrained } from './flow-control.js';
import { NEWLINE_BYTES, tickCorker } from './write-batching.js';

const EMPTY = Buffer.alloc(0);

/**
 * The line side of a relay: NDJSON lines in (split in linear time, bounded by the message limit) and lines out
 * (corked per event-loop turn), the outbound queue against the relays' high-water mark, and reading paused and
 * resumed by reason. `input`/`output` are e.g. a child's stdout/stdin, or the mirror's stdin/stdout.
 */
export class LinePort {
  readonly reading: ReadGate;
  private readonly cork: () => void;
  private readonly splitter: LineSplitter;
  private readonly onData = (chunk: Buffer | string) =>
    this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private inputEnded = false;
  private readonly onEnd = () => this.endInput();

  constructor(
    readonly input: Readable,
    readonly output: Writable,
    maxLineBytes: number,
    handlers: LineSplitterHandlers,
    private readonly ended: () => void,
  ) {
    this.splitter = new LineSplitter(maxLineBytes, handlers);
    this.cork = tickCorker(output);
    this.reading = streamReadGate(input);
  }

  /** Starts reading lines. */
  start(): void {
    this.input.on('data', this.onData);
    this.input.once('end', this.onEnd);
  }

  /** Stops reading for good (listeners removed, stream paused so the process can exit). */
  stop(): void {
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.reading.clear();
    this.input.pause();
  }

  /**
   * Treats the input as ended now (EOF, or a caller's stop signal): reading stops, a last line without newline is
   * still handled, then the `ended` callback runs. Idempotent.
   */
  endInput(): void {
    if (this.inputEnded) return;
    this.inputEnded = true;
    this.stop();
    this.splitter.end();
    this.ended();
  }

  /** Writes one line (the payload and its newline). */
  write(payload: Buffer | string): void {
    this.cork();
    this.output.write(payload);
    this.output.write(NEWLINE_BYTES);
  }

  get isFull(): boolean {
    return this.output.writableLength > HIGH_WATER_BYTES;
  }

  whenDrained(callback: () => void): void {
    whenDrained(this.output, callback);
  }

  /** Resolves once every line written so far has been flushed (or the output failed). */
  flushed(): Promise<void> {
    const { output } = this;
    if (output.destroyed || !output.writable) return Promise.resolve();
    // Writes complete in order: the callback of an empty write comes after every earlier write.
    return new Promise((resolve) => output.write(EMPTY, () => resolve()));
  }
}
