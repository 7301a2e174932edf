#!/usr/bin/env node
// Summarises V8 .cpuprofile files (from `ACPKIT_BENCH_CPU_PROF=<dir> pnpm bench`): top functions by self time,
// per file, so a missed bench target can be traced to a function without opening DevTools.
// Usage: node scripts/bench-profile.mjs <dir-or-file>... [--top 25]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const topIndex = args.indexOf('--top');
const top = topIndex === -1 ? 25 : Number(args.splice(topIndex, 2)[1]);
const files = args.flatMap((path) =>
  statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((name) => name.endsWith('.cpuprofile'))
        .map((name) => join(path, name))
    : [path],
);
if (files.length === 0) {
  console.error('usage: node scripts/bench-profile.mjs <dir-or-file>... [--top 25]');
  process.exit(2);
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfSamples = new Map();
  for (const id of profile.samples) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
  // timeDeltas are in microseconds; spread the total over the samples.
  const totalMicroseconds = profile.endTime - profile.startTime;
  const perSample = totalMicroseconds / Math.max(1, profile.samples.length);
  const byFunction = new Map();
  for (const [id, count] of selfSamples) {
    const { callFrame } = byId.get(id);
    const where = callFrame.url
      ? `${callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(packages|bench)\//, '$1/')}:${callFrame.lineNumber + 1}`
      : '';
    const key = `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + count);
  }
  const rows = [...byFunction].sort((left, right) => right[1] - left[1]).slice(0, top);
  const totalSamples = profile.samples.length;
  console.log(`\n${file}: ${(totalMicroseconds / 1e6).toFixed(2)} s, ${totalSamples} samples`);
  for (const [name, count] of rows) {
    console.log(
      `${((count / totalSamples) * 100).toFixed(1).padStart(5)}%  ${((count * perSample) / 1000).toFixed(0).padStart(7)} ms  ${name}`,
    );
  }
}
