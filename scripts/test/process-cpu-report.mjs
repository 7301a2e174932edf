#!/usr/bin/env node
// Sums a process CPU trace (scripts/test/process-cpu-trace.cjs) by test file and by program: where a run's CPU goes.
//
//   ACPKIT_CPU_TRACE=/tmp/trace.ndjson NODE_OPTIONS=--require=$PWD/scripts/test/process-cpu-trace.cjs \
//     pnpm exec vitest run tests/e2e/cli-usage.e2e.test.ts
//   node scripts/test/process-cpu-report.mjs /tmp/trace.ndjson [--top 30]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' } },
});
if (positionals.length !== 1) {
  console.error('usage: process-cpu-report.mjs TRACE.ndjson [--top N]');
  process.exit(2);
}
const root = new URL('../..', import.meta.url).pathname;
const allLines = readFileSync(positionals[0], 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));
// A vitest worker's own CPU per test file (`inWorker`) is part of that worker's process line: a table of its own.
const lines = allLines.filter((line) => !line.inWorker);
const inWorker = allLines.filter((line) => line.inWorker);

/** Prints the `top` largest groups of `key`: CPU seconds, processes, name. */
function table(title, key, of = lines) {
  const groups = new Map();
  for (const line of of) {
    const name = key(line);
    const group = groups.get(name) ?? { processes: 0, cpuSeconds: 0 };
    group.processes += 1;
    group.cpuSeconds += line.cpuSeconds;
    groups.set(name, group);
  }
  console.log(`\n${title}\n  CPU-s  processes`);
  for (const [name, group] of [...groups]
    .sort((left, right) => right[1].cpuSeconds - left[1].cpuSeconds)
    .slice(0, Number(values.top))) {
    console.log(
      `${group.cpuSeconds.toFixed(1).padStart(7)}  ${String(group.processes).padStart(9)}  ${name}`,
    );
  }
}

const total = lines.reduce((sum, line) => sum + line.cpuSeconds, 0);
console.log(`${lines.length} Node processes, ${total.toFixed(1)} CPU-s`);
table('By test file (processes a test started; "-" = the runners themselves)', (line) =>
  line.file ? line.file.replace(root, '') : '-',
);
table('By program', (line) =>
  `${line.argv[0]?.replace(root, '') ?? ''} ${line.argv[1] ?? ''}`.trim().slice(0, 100),
);
if (inWorker.length > 0) {
  table(
    'In the vitest workers, by test file (the file\'s own imports, hooks and in-process tests; part of "-" above)',
    (line) => line.file.replace(root, ''),
    inWorker,
  );
}
