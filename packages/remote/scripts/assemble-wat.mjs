#!/usr/bin/env node
// Assembles src/wire/frame-scan.wat with wabt and writes its bytes into src/wire/frame-scan-module.ts (base64), so the
// package ships no .wasm file and needs no assembler at run time. `--check` only verifies that the committed bytes are
// the assembler's output for the committed source (exit 1 otherwise). Usage: node scripts/assemble-wat.mjs [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assembleFrameScanModule, moduleSource } from './wat.mjs';

const target = fileURLToPath(new URL('../src/wire/frame-scan-module.ts', import.meta.url));
const base64 = Buffer.from(await assembleFrameScanModule()).toString('base64');
const source = moduleSource(base64);
if (process.argv.includes('--check')) {
  if (readFileSync(target, 'utf8') !== source) {
    console.error(
      'src/wire/frame-scan-module.ts is not the assembly of src/wire/frame-scan.wat: run `pnpm --filter @acpkit/remote wasm`',
    );
    process.exit(1);
  }
} else {
  writeFileSync(target, source);
  console.error(`wrote ${target} (${Buffer.from(base64, 'base64').length} bytes of WebAssembly)`);
}
