// Measurement aid, never loaded by the test command itself: preloaded into every Node process of a run
// (`NODE_OPTIONS=--require=<this file>`), it appends one JSON line per process to $ACPKIT_CPU_TRACE when the process
// ends (normal exit, or a SIGTERM/SIGINT/SIGHUP it has no handler for): its argv, Node version, CPU seconds (user +
// system) and the vitest test file that started it, directly or through its parents (passed down in
// ACPKIT_CPU_TRACE_FILE). `node scripts/test/process-cpu-report.mjs` sums the lines by test file and by program.
// Processes killed with SIGKILL, and programs that are not Node (Python, nginx, Postgres, Chromium), are not counted.
const { appendFileSync } = require('node:fs');

// biome-ignore lint/suspicious/noUndeclaredEnvVars: a measurement aid; turbo never runs it.
const output = process.env.ACPKIT_CPU_TRACE;
if (output) {
  const started = Date.now();
  let written = false;
  let flushWorker = () => {};
  const record = (how) => {
    if (written) return;
    written = true;
    const cpu = process.cpuUsage();
    const line = {
      argv: process.argv.slice(1, 5).map((argument) => String(argument).slice(0, 160)),
      node: process.version,
      // biome-ignore lint/suspicious/noUndeclaredEnvVars: set by this file in the processes a test starts.
      file: process.env.ACPKIT_CPU_TRACE_FILE ?? '',
      how,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      wallSeconds: (Date.now() - started) / 1000,
    };
    flushWorker();
    try {
      appendFileSync(output, `${JSON.stringify(line)}\n`);
    } catch {
      // A measurement aid never breaks the process it measures.
    }
  };
  process.on('exit', () => record('exit'));
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    const onSignal = () => {
      // Only when nobody else handles the signal: record, then die of it as the process would have.
      if (process.listenerCount(signal) > 1) return;
      record(signal);
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
  // In a vitest worker, the CPU the worker itself spends on each test file (the file's in-process tests, its imports
  // and hooks): sampled every 20 ms, so a file gets what the worker used while it was the one running. Written as one
  // line per file with `inWorker: true` when the worker ends.
  const byFile = new Map();
  let current;
  let since = process.cpuUsage();
  const sample = () => {
    const file = globalThis.__vitest_worker__?.filepath;
    if (file === current) return;
    const now = process.cpuUsage();
    if (current)
      byFile.set(
        current,
        (byFile.get(current) ?? 0) + (now.user - since.user + now.system - since.system) / 1e6,
      );
    current = file;
    since = now;
  };
  if (/vitest/.test(process.argv[1] ?? '')) setInterval(sample, 20).unref();
  flushWorker = () => {
    sample();
    current = undefined;
    sample();
    const lines = [...byFile].map(([file, cpuSeconds]) =>
      JSON.stringify({
        argv: ['(vitest worker)'],
        node: process.version,
        file,
        how: 'in-worker',
        inWorker: true,
        cpuSeconds,
        wallSeconds: 0,
      }),
    );
    try {
      if (lines.length > 0) appendFileSync(output, `${lines.join('\n')}\n`);
    } catch {
      // A measurement aid never breaks the process it measures.
    }
  };
  // A vitest worker names the file it is running in the environment of every process it starts.
  const childProcess = require('node:child_process');
  const spawn = childProcess.ChildProcess.prototype.spawn;
  childProcess.ChildProcess.prototype.spawn = function spawnWithTestFile(options) {
    const file = globalThis.__vitest_worker__?.filepath;
    if (file && Array.isArray(options?.envPairs)) {
      options.envPairs = options.envPairs
        .filter((pair) => !pair.startsWith('ACPKIT_CPU_TRACE_FILE='))
        .concat(`ACPKIT_CPU_TRACE_FILE=${file}`);
    }
    return spawn.call(this, options);
  };
}
