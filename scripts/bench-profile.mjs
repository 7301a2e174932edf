#!/usr/bin/env node
// Summarises V8 .cpuprofile files (from `ACPKIT_BENCH_CPU_PROF=<dir> pnpm bench`): top functions by self time, per
// process, so a missed bench target can be traced to a function without opening DevTools. Each profile is named
// after the bench host or mirror it ran (found in its call frames); threads that did almost nothing (tsx's module
// loader) are skipped unless `--all` is given.
// Usage: node scripts/bench-profile.mjs <dir-or-file>... [--top 25] [--all]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const topIndex = args.indexOf('--top');
const top = topIndex === -1 ? 25 : Number(args.splice(topIndex, 2)[1]);
const allIndex = args.indexOf('--all');
const all = allIndex !== -1;
if (all) args.splice(allIndex, 1);
const files = args.flatMap((path) =>
  statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((name) => name.endsWith('.cpuprofile'))
        .map((name) => join(path, name))
    : [path],
);
if (files.length === 0) {
  console.error('usage: node scripts/bench-profile.mjs <dir-or-file>... [--top 25] [--all]');
  process.exit(2);
}

/** Below this share of non-idle samples a profile is a helper thread, not a process under test. */
const BUSY_SHARE = 0.05;
const IDLE = new Set(['(idle)', '(program)', '(garbage collector)']);

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfSamples = new Map();
  for (const id of profile.samples) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
  // timeDeltas are in microseconds; spread the total over the samples.
  const totalMicroseconds = profile.endTime - profile.startTime;
  const perSample = totalMicroseconds / Math.max(1, profile.samples.length);
  const byFunction = new Map();
  let busySamples = 0;
  for (const [id, count] of selfSamples) {
    const { callFrame } = byId.get(id);
    if (callFrame.functionName !== '(idle)') busySamples += count;
    const where = callFrame.url
      ? `${callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(packages|bench)\//, '$1/')}:${callFrame.lineNumber + 1}`
      : '';
    const key = `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + count);
  }
  const totalSamples = profile.samples.length;
  if (!all && busySamples / Math.max(1, totalSamples) < BUSY_SHARE) continue;
  const host = profile.nodes
    .map((node) => /\/src\/hosts\/([\w-]+)\.ts/.exec(node.callFrame.url ?? '')?.[1])
    .find((name) => name !== undefined);
  const rows = [...byFunction].sort((left, right) => right[1] - left[1]).slice(0, top);
  const busy = [...byFunction].filter(([name]) => !IDLE.has(name.split(' ')[0]));
  const busyMs = (busy.reduce((sum, [, count]) => sum + count, 0) * perSample) / 1000;
  console.log(
    `\n${host ?? 'process'} (${file}): ${(totalMicroseconds / 1e6).toFixed(2)} s, ${totalSamples} samples, ` +
      `${busyMs.toFixed(0)} ms in functions`,
  );
  for (const [name, count] of rows) {
    console.log(
      `${((count / totalSamples) * 100).toFixed(1).padStart(5)}%  ${((count * perSample) / 1000).toFixed(0).padStart(7)} ms  ${name}`,
    );
  }
}
