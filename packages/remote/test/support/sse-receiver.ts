// A stand-in for an SSE response in unit tests: records what reached it; with `stalled`, holds writes until
// `release()` (a reader that stopped reading).
import { Writable } from 'node:stream';

export class SseReceiver extends Writable {
  text = '';
  private held: Array<() => void> = [];
  constructor(private stalled = false) {
    super({ highWaterMark: 16 * 1024, decodeStrings: false });
  }
  override _write(chunk: Buffer | string, _encoding: string, callback: () => void): void {
    this.text += chunk.toString();
    if (this.stalled) this.held.push(callback);
    else callback();
  }
  override _writev(chunks: Array<{ chunk: Buffer | string }>, callback: () => void): void {
    for (const { chunk } of chunks) this.text += chunk.toString();
    if (this.stalled) this.held.push(callback);
    else callback();
  }
  release(): void {
    this.stalled = false;
    for (const callback of this.held.splice(0)) callback();
  }
  /** The `data:` lines received, parsed. */
  get messages(): Array<Record<string, unknown>> {
    return [...this.text.matchAll(/^data: (.*)$/gm)].map((match) => JSON.parse(match[1] as string));
  }
}
