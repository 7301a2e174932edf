// Checks that the committed WebAssembly module is what wabt assembles from frame-scan.wat.
import { describe, expect, it } from 'vitest';
import { FRAME_SCAN_MODULE_BASE64 } from './frame-scan-module.js';

interface WatTools {
  assembleFrameScanModule(): Promise<Uint8Array>;
  moduleSource(base64: string): string;
}

// scripts/wat.mjs is the one way frame-scan.wat becomes bytes (wabt's wat2wasm, the dev dependency `wabt`).
const watToolsPath = '../../scripts/wat.mjs';

describe('the frame scanner WebAssembly module', () => {
  it('is exactly what wabt assembles from frame-scan.wat (run `pnpm --filter @acpkit/remote wasm` after editing it)', async () => {
    const tools = (await import(watToolsPath)) as WatTools;
    const assembled = Buffer.from(await tools.assembleFrameScanModule());
    expect(Buffer.from(FRAME_SCAN_MODULE_BASE64, 'base64').equals(assembled)).toBe(true);
    // The generated file itself is what the script writes (no hand edits).
    const { readFile } = await import('node:fs/promises');
    const generated = await readFile(new URL('./frame-scan-module.ts', import.meta.url), 'utf8');
    expect(generated).toBe(tools.moduleSource(assembled.toString('base64')));
  });
});
