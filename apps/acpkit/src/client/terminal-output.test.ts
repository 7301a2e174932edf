import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { TerminalOutput } from './terminal-output.js';

function capture() {
  const stream = new PassThrough();
  let written = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => {
    written += chunk;
  });
  return { stream, read: () => written };
}

describe('TerminalOutput', () => {
  it('holds writes while a prompt is on screen and prints them, in order, when it closes', async () => {
    const { stream, read } = capture();
    const terminal = new TerminalOutput(stream);
    terminal.write('before\n');
    let release: () => void = () => undefined;
    const prompt = terminal.exclusive(
      () =>
        new Promise<string>((resolve) => {
          release = () => resolve('answer');
        }),
    );
    await Promise.resolve();
    terminal.write('during 1\n');
    terminal.write('during 2\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(read()).toBe('before\n');
    release();
    expect(await prompt).toBe('answer');
    await new Promise((resolve) => setImmediate(resolve));
    expect(read()).toBe('before\nduring 1\nduring 2\n');
    terminal.write('after\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(read()).toBe('before\nduring 1\nduring 2\nafter\n');
  });

  it('runs prompts one at a time, and a failing prompt neither blocks the next nor keeps output held', async () => {
    const { stream, read } = capture();
    const terminal = new TerminalOutput(stream);
    const order: string[] = [];
    const first = terminal.exclusive(async () => {
      order.push('first start');
      await new Promise((resolve) => setImmediate(resolve));
      order.push('first end');
      throw new Error('boom');
    });
    const second = terminal.exclusive(async () => {
      order.push('second');
      return 2;
    });
    await expect(first).rejects.toThrow('boom');
    expect(await second).toBe(2);
    expect(order).toEqual(['first start', 'first end', 'second']);
    terminal.write('free\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(read()).toBe('free\n');
  });
});
