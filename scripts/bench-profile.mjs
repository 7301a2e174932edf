#!/usr/bin/env node
// Summarises bench profiles, so a missed bench target can be traced to a function without opening DevTools:
// - V8 .cpuprofile files (from `ACPKIT_BENCH_CPU_PROF=<dir> pnpm bench`): top functions by self time, per process,
//   each named after the bench host or mirror it ran (found in its call frames); threads that did almost nothing
//   are skipped unless `--all` is given;
// - with `--callgrind`, callgrind dumps (from `pnpm bench -- --sections instructions --callgrind-dir <dir>`): top
//   functions by instructions (self), per dump file given; JIT-compiled JavaScript is named from V8's
//   /tmp/perf-<pid>.map when the hosts ran with ACPKIT_BENCH_NODE_FLAGS=--perf-basic-prof.
// Usage: node scripts/bench-profile.mjs <dir-or-file>... [--top 25] [--all]
//        node scripts/bench-profile.mjs --callgrind <dump-file>... [--top 25]
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const topIndex = args.indexOf('--top');
const top = topIndex === -1 ? 25 : Number(args.splice(topIndex, 2)[1]);
const allIndex = args.indexOf('--all');
const all = allIndex !== -1;
if (all) args.splice(allIndex, 1);
const callgrindIndex = args.indexOf('--callgrind');
if (callgrindIndex !== -1) {
  args.splice(callgrindIndex, 1);
  for (const file of args) summariseCallgrind(file);
  process.exit(0);
}
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

/** V8's perf map of `pid` (start, size, name), sorted, or empty. */
function perfMap(pid) {
  const path = `/tmp/perf-${pid}.map`;
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [start, size, ...name] = line.split(' ');
      return { start: Number.parseInt(start, 16), size: Number.parseInt(size, 16), name: name.join(' ') };
    })
    .sort((left, right) => left.start - right.start);
}

/** The map entry holding `address` (binary search), or undefined. */
function symbolAt(map, address) {
  let low = 0;
  let high = map.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (map[middle].start <= address) low = middle + 1;
    else high = middle - 1;
  }
  const entry = map[high];
  return entry && address < entry.start + entry.size ? entry.name : undefined;
}

/**
 * Self cost per function of one callgrind dump (callgrind's format: `fn=(id) name` starts a function, cost lines
 * are `position cost`, and the cost line after `calls=` is the callee's inclusive cost, not self).
 */
function summariseCallgrind(file) {
  const text = readFileSync(file, 'utf8');
  const pid = /^pid: (\d+)/m.exec(text)?.[1];
  const map = pid ? perfMap(pid) : [];
  const names = new Map();
  const objects = new Map();
  const self = new Map();
  let current = '';
  let object = '';
  let skipNext = false;
  const named = (table, line, prefix) => {
    const match = new RegExp(`^${prefix}=\\((\\d+)\\)(?: (.*))?$`).exec(line);
    if (!match) return '';
    if (match[2] !== undefined) table.set(match[1], match[2]);
    return table.get(match[1]) ?? match[1];
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('fn=')) {
      let name = named(names, line, 'fn');
      const address = /^0x([0-9a-f]+)/.exec(name);
      if (address) name = symbolAt(map, Number.parseInt(address[1], 16)) ?? `${name} (JIT or WebAssembly)`;
      current = `${name} [${object}]`;
    } else if (line.startsWith('ob=')) object = named(objects, line, 'ob').split('/').at(-1) ?? '';
    else if (line.startsWith('cfn=')) named(names, line, 'cfn');
    else if (line.startsWith('cob=')) named(objects, line, 'cob');
    else if (line.startsWith('calls=')) skipNext = true;
    else if (/^[0-9+*-]/.test(line)) {
      if (skipNext) {
        skipNext = false;
        continue;
      }
      const cost = Number(line.split(' ')[1] ?? 0);
      self.set(current, (self.get(current) ?? 0) + cost);
    }
  }
  const total = [...self.values()].reduce((sum, cost) => sum + cost, 0);
  const command = /^cmd: +(.*)$/m.exec(text)?.[1] ?? '';
  const host = /\/hosts\/([\w-]+)\.[jt]s/.exec(command)?.[1] ?? 'process';
  console.log(`\n${host} (${file}): ${total.toLocaleString('en-US')} instructions`);
  for (const [name, cost] of [...self].sort((left, right) => right[1] - left[1]).slice(0, top)) {
    console.log(
      `${((cost / total) * 100).toFixed(1).padStart(5)}%  ${cost.toLocaleString('en-US').padStart(14)}  ${name}`,
    );
  }
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
    // The hosts run transpiled (bench/.hosts/hosts/*.js, see bench/src/hosts/host-scripts.ts).
    .map((node) => /\/(?:src|\.hosts)\/hosts\/([\w-]+)\.[jt]s/.exec(node.callFrame.url ?? '')?.[1])
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
