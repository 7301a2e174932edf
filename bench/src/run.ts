// `pnpm bench` / `pnpm bench:smoke`: measures our relay paths and their raw baselines in one interleaved run and
// writes a markdown table plus results/*.json. `--smoke` runs the short CI mode and exits 1 when a guard fails.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runAiSdkSection } from './ai-sdk-section.js';
import { runChurnSection, runMemorySection } from './connection-sections.js';
import { callgrindAvailable, runInstructionSection } from './instructions-section.js';
import { runLangChainSection } from './langchain-section.js';
import { runMicroSection } from './micro-section.js';
import { paths } from './paths.js';
import { relayTasks, runRelaySection } from './relay-section.js';
import {
  checkBounds,
  describeMachine,
  type FigureRecord,
  formatReadme,
  renderMarkdown,
  smokeGuards,
  summarise,
  targets,
} from './report.js';
import { runSessionsSection } from './sessions-section.js';
import { runStreamingInstructions } from './streaming-instructions.js';
import { runStreamingSection, streamingTasks } from './streaming-section.js';

const { values: flags } = parseArgs({
  // `pnpm bench -- --flags` forwards the `--` itself, which would end option parsing: drop it.
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  allowPositionals: true,
  options: {
    smoke: { type: 'boolean', default: false },
    repeats: { type: 'string' },
    'slice-ms': { type: 'string' },
    paths: { type: 'string' },
    sections: { type: 'string' },
    tasks: { type: 'string' },
    output: { type: 'string' },
    'callgrind-dir': { type: 'string' },
    'update-readme': { type: 'boolean', default: false },
  },
});

const smoke = flags.smoke === true;
// Smoke: 2 rounds, enough for guards 4× wide; the test command runs it last, on its critical path.
const repeats = Number(flags.repeats ?? (smoke ? 2 : 7));
const sliceMs = Number(flags['slice-ms'] ?? (smoke ? 250 : 500));
const sections = new Set(
  (
    flags.sections ??
    (smoke ? 'relay,streaming' : 'relay,streaming,instructions,churn,memory,micro,ai-sdk,sessions,langchain')
  ).split(','),
);
const selectedPaths = flags.paths
  ? paths.filter((path) => flags.paths!.split(',').includes(path.id))
  : smoke
    ? paths.filter((path) => ['minimal-relay', 'serve-command', 'minimal-chain', 'chain'].includes(path.id))
    : paths;
const output =
  flags.output ?? new URL(`../results/${smoke ? 'smoke' : 'latest'}.json`, import.meta.url).pathname;
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

const started = Date.now();
const machineAtStart = describeMachine();
const records: FigureRecord[] = [];
if (sections.has('relay')) {
  const wanted = flags.tasks?.split(',') ?? (smoke ? ['rtt', 'small-throughput', '16mib'] : undefined);
  const tasks = wanted ? relayTasks.filter((task) => wanted.includes(task.id)) : relayTasks;
  records.push(...(await runRelaySection({ paths: selectedPaths, tasks, repeats, sliceMs, log })));
}
if (sections.has('streaming')) {
  // Smoke: two short rounds of each task, so the workload is known to run (4×-wide guards on two ratios).
  const wanted = flags.tasks?.split(',');
  const tasks = wanted ? streamingTasks.filter((task) => wanted.includes(task.id)) : streamingTasks;
  records.push(
    ...(await runStreamingSection({
      repeats,
      sliceMs: smoke ? 150 : sliceMs,
      tasks: tasks.length > 0 ? tasks : streamingTasks,
      log,
    })),
  );
}
if (sections.has('instructions')) {
  if (callgrindAvailable()) {
    const ours = selectedPaths.filter((path) => path.reference !== undefined);
    const wanted = flags.tasks?.split(',');
    const directory = flags['callgrind-dir'] ?? join(tmpdir(), `acpkit-bench-callgrind-${process.pid}`);
    if (sections.has('streaming'))
      records.push(...(await runStreamingInstructions({ repeats: Math.min(repeats, 3), directory, log })));
    records.push(
      ...(await runInstructionSection({
        paths: ours,
        allPaths: paths,
        repeats: Math.min(repeats, 3),
        directory,
        ...(wanted ? { tasks: wanted } : {}),
        log,
      })),
    );
  } else {
    log('instructions: skipped (valgrind with callgrind_control is not on PATH; apt-get install valgrind)');
  }
}
if (sections.has('churn')) {
  records.push(...(await runChurnSection({ repeats, sliceMs: Math.max(sliceMs, 1_000), log })));
}
if (sections.has('memory')) {
  records.push(...(await runMemorySection({ repeats: Math.min(repeats, 3), connections: 1_000, log })));
}
if (sections.has('micro')) {
  records.push(...(await runMicroSection({ repeats, sliceMs: Math.min(sliceMs, 300), log })));
}
if (sections.has('ai-sdk')) {
  records.push(...(await runAiSdkSection({ repeats, log })));
}
if (sections.has('sessions')) {
  records.push(...(await runSessionsSection({ repeats: Math.min(repeats, 3), log })));
}
if (sections.has('langchain')) {
  records.push(...(await runLangChainSection({ repeats, log })));
}

const summaries = records.map(summarise);
const targetOutcomes = smoke ? [] : checkBounds(summaries, targets);
const guardOutcomes = checkBounds(summaries, smokeGuards);
const machine = { ...describeMachine(), loadAverageAtStart: machineAtStart.loadAverage };
const date = new Date().toISOString();
const markdown = renderMarkdown(summaries, targetOutcomes, guardOutcomes);
console.log(
  `\nACP Kit bench (${smoke ? 'smoke' : 'full'}), ${date}, ${machine.cpuCount}× ${machine.cpuModel}, Node ${machine.node}; ` +
    `${repeats} repeats of ${sliceMs} ms slices, interleaved; load average ${machineAtStart.loadAverage.join(' ')} at start, ` +
    `${machine.loadAverage.join(' ')} at end\n`,
);
console.log(markdown);
mkdirSync(new URL('.', `file://${output}`).pathname, { recursive: true });
writeFileSync(
  output,
  `${JSON.stringify(
    {
      date,
      mode: smoke ? 'smoke' : 'full',
      machine,
      repeats,
      sliceMs,
      summaries,
      targetOutcomes,
      guardOutcomes,
    },
    null,
    2,
  )}\n`,
);
if (flags['update-readme']) {
  // The README keeps the latest full run's table between two markers.
  const readmePath = new URL('../README.md', import.meta.url);
  const readme = readFileSync(readmePath, 'utf8');
  const start = '<!-- results:start -->';
  const end = '<!-- results:end -->';
  const header =
    `Run of ${date} on ${machine.cpuCount}× ${machine.cpuModel} (${machine.totalMemoryGiB} GiB), ${machine.platform}, ` +
    `Node ${machine.node}; ${repeats} repeats of ${sliceMs} ms slices, interleaved; load average ` +
    `${machineAtStart.loadAverage.join(' / ')} at start, ${machine.loadAverage.join(' / ')} at end.`;
  const updated = `${readme.slice(0, readme.indexOf(start) + start.length)}\n${header}\n\n${markdown}\n${readme.slice(readme.indexOf(end))}`;
  writeFileSync(readmePath, updated);
  log(`updated the results in README.md${formatReadme() ? '' : ' (run biome format on it)'}`);
}
log(`wrote ${output} in ${((Date.now() - started) / 1000).toFixed(1)} s`);

const failedGuards = guardOutcomes.filter((outcome) => outcome.met === false);
if (smoke && failedGuards.length > 0) {
  console.error(
    `bench:smoke: ${failedGuards.length} guard(s) failed: ${failedGuards.map((g) => `${g.bound.path} ${g.bound.text}`).join('; ')}`,
  );
  process.exitCode = 1;
}
if (smoke && guardOutcomes.some((outcome) => outcome.met === undefined) && !flags.paths) {
  console.error('bench:smoke: a guarded figure was not measured');
  process.exitCode = 1;
}
