// Reading a session file's first line and its last committed line (the last one ending in a newline) without
// reading the rest: what makes a save and a list entry cost the same whatever the session's length.
import type { FileHandle } from 'node:fs/promises';

const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

/** The first line (without its newline); the whole file when it has none. */
export async function readFirstLine(handle: FileHandle): Promise<string> {
  const chunks: Buffer[] = [];
  let position = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(CHUNK);
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
    if (bytesRead === 0) break;
    const end = buffer.subarray(0, bytesRead).indexOf(NEWLINE);
    if (end >= 0) {
      chunks.push(buffer.subarray(0, end));
      break;
    }
    chunks.push(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The last line that ends in a newline (`undefined` when none does) and `committedSize`, the offset just after that
 * newline: bytes past it are a line a crash cut short.
 */
export async function readLastCommittedLine(
  handle: FileHandle,
  size: number,
): Promise<{ line: string | undefined; committedSize: number }> {
  const chunks: Buffer[] = [];
  let position = size;
  let newlines = 0;
  while (position > 0 && newlines < 2) {
    const length = Math.min(CHUNK, position);
    position -= length;
    const buffer = Buffer.allocUnsafe(length);
    await handle.read(buffer, 0, length, position);
    for (const byte of buffer) if (byte === NEWLINE) newlines++;
    chunks.unshift(buffer);
  }
  const tail = Buffer.concat(chunks);
  const end = tail.lastIndexOf(NEWLINE);
  if (end < 0) return { line: undefined, committedSize: 0 };
  const start = end === 0 ? 0 : tail.lastIndexOf(NEWLINE, end - 1) + 1;
  return { line: tail.subarray(start, end).toString('utf8'), committedSize: position + end + 1 };
}
