// What an AI SDK agent app holds in memory is bounded by its options, measured as heap (after a full garbage
// collection, in a process of its own run with --expose-gc), not by counting payload: the open sessions by
// maxOpenSessions, the stored transcripts by the memory store's maxTotalBytes. Each bound is also shown to matter:
// the same load without it grows the heap by far more. The documented bound (docs/ai-sdk.md, "Memory"): about
// maxOpenSessions × what one open session holds (its history and transcript) + 2 × the store's maxTotalBytes.
// Measured (Node 20, 200 sessions of one 32 KiB reply): 1.3 MB with 10 open sessions against 4.8 MB with all 200
// open; 3.4 MB with a 2 MiB store against 14.8 MB with a 256 MiB one.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const probe = fileURLToPath(new URL('./fixtures/memory-probe.mjs', import.meta.url));
const MiB = 1024 * 1024;

/** Runs the probe: the heap growth (bytes) after `sessions` sessions of one `replyKib` KiB reply each. */
async function heapGrowth(env: {
  SESSIONS: number;
  OPEN: number;
  REPLY_KIB: number;
  STORE: number | 'none';
}) {
  const { stdout } = await run(process.execPath, ['--expose-gc', probe], {
    env: {
      ...process.env,
      ...Object.fromEntries(Object.entries(env).map(([key, value]) => [key, String(value)])),
    },
  });
  return (JSON.parse(stdout) as { growthBytes: number }).growthBytes;
}

// 200 sessions × a 32 KiB reply: 6.25 MiB of replies.
const load = { SESSIONS: 200, REPLY_KIB: 32 } as const;

describe('memory bounds, measured as heap', { timeout: 120_000 }, () => {
  it('keeps at most maxOpenSessions sessions: 10 open sessions hold < 2.5 MiB where 200 hold > 3.5 MiB', async () => {
    const bounded = await heapGrowth({ ...load, OPEN: 10, STORE: 'none' });
    const unbounded = await heapGrowth({ ...load, OPEN: 1_000, STORE: 'none' });
    // 10 sessions × 64 KiB (history and transcript of one reply) + 2 MiB for what V8 and the app keep anyway.
    expect(bounded).toBeLessThan(10 * 64 * 1024 + 2 * MiB);
    expect(unbounded).toBeGreaterThan(3.5 * MiB);
  });

  it("keeps the memory store's transcripts within its maxTotalBytes: a 2 MiB store holds < 2 × 2 MiB + the open sessions", async () => {
    const bounded = await heapGrowth({ ...load, OPEN: 10, STORE: 2 * MiB });
    const unbounded = await heapGrowth({ ...load, OPEN: 10, STORE: 256 * MiB });
    expect(bounded).toBeLessThan(2 * 2 * MiB + 10 * 64 * 1024 + 2 * MiB);
    expect(unbounded).toBeGreaterThan(10 * MiB);
  });
});
