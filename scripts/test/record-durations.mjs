#!/usr/bin/env node
// Writes config/test-durations.json from the last test command's per-file timings (.test-output/*-file-timings.json):
// the vitest sequencer (config/vitest-sequencer.ts) starts the longest files first from it. Run it after a full run
// when files were added or got much slower or faster; stale figures only cost wall time, never a result.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const outputDirectory = join(root, '.test-output');
/** Below this a file's place in the queue does not matter: it is left out and sorted by vitest's rules. */
const SHORTEST_KEPT_SECONDS = 1;

const durations = new Map();
for (const name of readdirSync(outputDirectory).filter((file) => file.endsWith('-file-timings.json'))) {
  for (const { file, seconds } of JSON.parse(readFileSync(join(outputDirectory, name), 'utf8'))) {
    durations.set(file, Math.max(durations.get(file) ?? 0, seconds));
  }
}
if (durations.size === 0) {
  console.error('no .test-output/*-file-timings.json: run `pnpm test` first');
  process.exit(1);
}
const kept = [...durations]
  .filter(([, seconds]) => seconds >= SHORTEST_KEPT_SECONDS)
  .sort(([left], [right]) => (left < right ? -1 : 1))
  .map(([file, seconds]) => [file, Math.round(seconds * 10) / 10]);
writeFileSync(
  join(root, 'config', 'test-durations.json'),
  `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`,
);
console.log(`config/test-durations.json: ${kept.length} files of ${durations.size}`);
