// Result records, targets and guards, and their rendering as a markdown table and JSON.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { type FigureKind, type Spread, spread } from './stats.js';

/** One figure of one path over all repeats, with its same-run baseline when it has one. */
export interface FigureRecord {
  section: string;
  path: string;
  pathLabel: string;
  figure: string;
  unit: string;
  kind: FigureKind;
  values: number[];
  /** Baseline figure per repeat (same repeat, same slice order), e.g. the sum of the raw hops. */
  baselineValues?: number[];
  baselineLabel?: string;
}

/** A bound a figure is compared with: `max` for times and sizes, `min` for rates. */
export interface Bound {
  path: string;
  figure: string;
  /** Compare the ratio to the baseline instead of the figure itself. */
  onRatio?: boolean;
  max?: number;
  min?: number;
  text: string;
}

/** Same-run ratio targets of one of our relays against its minimal reference. */
function referenceTargets(path: string): Bound[] {
  return [
    { path, figure: 'rtt-p50', onRatio: true, max: 1.1, text: 'RTT p50 ≤ 1.1× the reference' },
    { path, figure: 'msgs-per-s', onRatio: true, min: 1.0, text: 'small msg/s (w64) ≥ 1.0× the reference' },
    { path, figure: 'mb-per-s-16kib', onRatio: true, min: 1.0, text: 'MB/s at 16 KiB ≥ 1.0× the reference' },
    { path, figure: 'mb-per-s-1mib', onRatio: true, min: 1.0, text: 'MB/s at 1 MiB ≥ 1.0× the reference' },
    {
      path,
      figure: 'relay-16mib-ms',
      onRatio: true,
      max: 1.0,
      text: 'one 16 MiB message ≤ 1.0× the reference',
    },
  ];
}

/** Targets from the issues: reported, never asserted. */
export const targets: Bound[] = [
  ...referenceTargets('serve-command'),
  ...referenceTargets('chain'),
  // Metrics on must not move the relay: serve-command-metrics against serve-command, the relay process's
  // instructions per message (±1–7 % run to run) and the wall-clock figures of the same rounds (far noisier).
  ...(['rtt', 'small-throughput', '16kib', '1mib'] as const).map(
    (task): Bound => ({
      path: 'serve-command-metrics',
      figure: `${task}/relay`,
      onRatio: true,
      max: 1.05,
      text: `metrics on: relay instructions per message (${task}) ≤ 1.05× metrics off`,
    }),
  ),
  {
    path: 'serve-command-metrics',
    figure: 'rtt-p50',
    onRatio: true,
    max: 1.05,
    text: 'metrics on: RTT p50 ≤ 1.05× metrics off',
  },
  {
    path: 'serve-command-metrics',
    figure: 'msgs-per-s',
    onRatio: true,
    min: 0.95,
    text: 'metrics on: msg/s ≥ 0.95× metrics off',
  },
  {
    path: 'serve-command-metrics',
    figure: 'mb-per-s-1mib',
    onRatio: true,
    min: 0.95,
    text: 'metrics on: MB/s at 1 MiB ≥ 0.95× metrics off',
  },
  { path: 'ask-choice', figure: 'compile-parse-us', max: 5, text: '< 5 µs per call' },
  { path: 'ask-form', figure: 'compile-validate-us', max: 20, text: '< 20 µs per form' },
  { path: 'ai-sdk-chunk', figure: 'overhead-us-per-chunk', max: 5, text: '< 5 µs per streamed chunk' },
  // Issue 29: a turn's save appends (flat from 10 to 10,000 messages), and SQLite's is ≤ 1 ms p50.
  ...['memory', 'file', 'sqlite', 'postgres'].map(
    (store): Bound => ({
      path: `sessions-${store}`,
      figure: 'turn-write-p50-10000',
      onRatio: true,
      max: 2,
      text: 'a turn at 10,000 messages ≤ 2× one at 10',
    }),
  ),
  ...['10', '1000', '10000'].map(
    (size): Bound => ({
      path: 'sessions-sqlite',
      figure: `turn-write-p50-${size}`,
      max: 1_000,
      text: '≤ 1 ms p50 per turn',
    }),
  ),
  {
    path: 'ai-sdk-chunk-mcp-plan',
    figure: 'overhead-us-per-chunk-mcp-plan',
    max: 5,
    text: '< 5 µs per streamed chunk with MCP tools, planTool and usage on',
  },
  { path: 'langchain-chunk', figure: 'overhead-us-per-chunk', max: 5, text: '< 5 µs per streamed chunk' },
  { path: 'serve-acp', figure: 'heap-per-idle-connection-kib', max: 256, text: '≤ 256 KiB' },
  // Issue 20: our Streamable HTTP server against the SDK's AcpServer, same agent, same client, same rounds.
  {
    path: 'serve-acp-http',
    figure: 'rtt-p50',
    onRatio: true,
    max: 1.1,
    text: 'RTT p50 ≤ 1.1× the SDK AcpServer',
  },
  ...(['msgs-per-s', 'mb-per-s-16kib', 'mb-per-s-1mib'] as const).map(
    (figure): Bound => ({
      path: 'serve-acp-http',
      figure,
      onRatio: true,
      min: 1.0,
      text: `${figure} ≥ 1.0× the SDK AcpServer`,
    }),
  ),
  {
    path: 'serve-acp-http',
    figure: 'rss-per-idle-connection-kib',
    max: 64,
    text: 'one open SSE connection ≤ 64 KiB (RSS, 1,000 held)',
  },
  // Issue 32 item 5: the streaming workload (an agent streaming session/updates to the SDK's createHttpStream client),
  // ours against the SDK's AcpServer in the same rounds.
  {
    path: 'serve-acp-http-streaming',
    figure: 'prompt-rtt-p50',
    onRatio: true,
    max: 1.0,
    text: 'prompt round trip ≤ 1.0× the SDK AcpServer',
  },
  ...(['updates-per-s-token', 'mb-per-s-16kib', 'mb-per-s-1mib'] as const).map(
    (figure): Bound => ({
      path: 'serve-acp-http-streaming',
      figure,
      onRatio: true,
      min: 1.0,
      text: `streaming ${figure} ≥ 1.0× the SDK AcpServer`,
    }),
  ),
];

/**
 * Guards `bench:smoke` enforces, as same-run ratios against the minimal references so a loaded machine slows both
 * sides alike. They are 4× wide on purpose (the ratios swing up to ~2.5× on a shared 2-core machine): they catch
 * quadratic framing, lost write batching and lost backpressure (each 10× or worse), not drift.
 */
export const smokeGuards: Bound[] = [
  ...['serve-command', 'chain'].flatMap((path): Bound[] => [
    { path, figure: 'rtt-p50', onRatio: true, max: 4, text: 'RTT p50 ≤ 4× the reference' },
    { path, figure: 'msgs-per-s', onRatio: true, min: 1 / 4, text: 'msg/s ≥ ¼ of the reference' },
    { path, figure: 'relay-16mib-ms', onRatio: true, max: 4, text: '16 MiB ≤ 4× the reference' },
    { path, figure: 'relay-16mib-echo-ms', onRatio: true, max: 4, text: '16 MiB echo ≤ 4× the reference' },
  ]),
  // The streaming workload runs (one short round): ours streams within 4× of the SDK's AcpServer.
  ...(['updates-per-s-token', 'mb-per-s-1mib'] as const).map(
    (figure): Bound => ({
      path: 'serve-acp-http-streaming',
      figure,
      onRatio: true,
      min: 1 / 4,
      text: `streaming ${figure} ≥ ¼ of the SDK AcpServer`,
    }),
  ),
];

/** A figure summarised for the table and the JSON file. */
export interface Summary extends FigureRecord {
  spread: Spread;
  baselineSpread?: Spread;
  ratios?: number[];
  ratioSpread?: Spread;
}

/**
 * Adds min/median/max and per-repeat ratios to a record.
 *
 * @example
 * ```ts
 * summarise({ section: 'relay', path: 'chain', pathLabel: 'chain', figure: 'rtt-p50', unit: 'µs', kind: 'time', values: [1] });
 * ```
 */
export function summarise(record: FigureRecord): Summary {
  const summary: Summary = { ...record, spread: spread(record.values) };
  if (record.baselineValues && record.baselineValues.length === record.values.length) {
    summary.baselineSpread = spread(record.baselineValues);
    summary.ratios = record.values.map((value, index) => value / record.baselineValues![index]!);
    summary.ratioSpread = spread(summary.ratios);
  }
  return summary;
}

/** Outcome of one bound against the median of its figure. */
export interface BoundOutcome {
  bound: Bound;
  value: number | undefined;
  met: boolean | undefined;
}

/**
 * Checks bounds against the medians (of the figure, or of its per-repeat ratio).
 *
 * @example
 * ```ts
 * checkBounds(summaries, smokeGuards).every((outcome) => outcome.met);
 * ```
 */
export function checkBounds(summaries: readonly Summary[], bounds: readonly Bound[]): BoundOutcome[] {
  return bounds.map((bound) => {
    const summary = summaries.find((item) => item.path === bound.path && item.figure === bound.figure);
    const value = bound.onRatio ? summary?.ratioSpread?.median : summary?.spread.median;
    if (value === undefined) return { bound, value, met: undefined };
    const met =
      (bound.max === undefined || value <= bound.max) && (bound.min === undefined || value >= bound.min);
    return { bound, value, met };
  });
}

function format(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 10_000) return Math.round(value).toLocaleString('en-US');
  if (magnitude >= 100) return value.toFixed(0);
  if (magnitude >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

const formatSpread = (value: Spread) =>
  `${format(value.min)} / **${format(value.median)}** / ${format(value.max)}`;

/**
 * Formats bench/README.md with Biome after a run wrote its results into it (Biome pads markdown tables), so the README
 * stays lint-clean. Returns false when Biome could not run (then format it by hand).
 *
 * @example
 * ```ts
 * if (!formatReadme()) log('run biome format on README.md');
 * ```
 */
export function formatReadme(): boolean {
  const formatted = spawnSync('pnpm', ['exec', 'biome', 'format', '--write', 'README.md'], {
    cwd: new URL('..', import.meta.url),
    stdio: 'ignore',
  });
  return formatted.status === 0;
}

/** Machine facts printed with every run: the figures only mean something next to them. */
export function describeMachine() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cpuCount: cpus.length,
    totalMemoryGiB: Number((os.totalmem() / 1024 ** 3).toFixed(1)),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    /** 1/5/15-minute load averages when the figures were taken: above the core count, every figure is suspect. */
    loadAverage: os.loadavg().map((value) => Number(value.toFixed(2))),
  };
}

/**
 * Renders the summaries as one markdown table (min / median / max over repeats, baseline, ratio) plus the target
 * and guard outcomes.
 *
 * @example
 * ```ts
 * console.log(renderMarkdown(summaries, checkBounds(summaries, targets), []));
 * ```
 */
export function renderMarkdown(
  summaries: readonly Summary[],
  targetOutcomes: readonly BoundOutcome[],
  guardOutcomes: readonly BoundOutcome[],
): string {
  const lines = [
    '| Path | Figure | min / **median** / max | Same-run baseline (median) | Ratio min / **median** / max |',
    '|---|---|---|---|---|',
  ];
  for (const summary of summaries) {
    // Per-process and instruction figures have their own compact tables (and every value in the JSON file).
    if (summary.section === 'process' || summary.section === 'instructions') continue;
    const baseline = summary.baselineSpread
      ? `${format(summary.baselineSpread.median)} ${summary.unit} (${summary.baselineLabel})`
      : '—';
    const ratio = summary.ratioSpread ? formatSpread(summary.ratioSpread) : '—';
    lines.push(
      `| ${summary.pathLabel} | ${summary.figure} (${summary.unit}) | ${formatSpread(summary.spread)} | ${baseline} | ${ratio} |`,
    );
  }
  const outcomeLines = (title: string, outcomes: readonly BoundOutcome[]) => {
    if (outcomes.length === 0) return [];
    const rows = outcomes.map(({ bound, value, met }) => {
      const status = met === undefined ? 'not measured' : met ? 'met' : '**missed**';
      const shown = value === undefined ? '—' : `${format(value)}${bound.onRatio ? '×' : ''}`;
      return `| ${bound.path} ${bound.figure}${bound.onRatio ? ' (ratio)' : ''} | ${bound.text} | ${shown} | ${status} |`;
    });
    return ['', `| ${title} | Bound | Median | Status |`, '|---|---|---|---|', ...rows];
  };
  return [
    ...renderRelaySummary(summaries),
    ...renderProcessSummary(summaries),
    ...renderInstructionSummary(summaries),
    ...lines,
    ...outcomeLines('Target', targetOutcomes),
    ...outcomeLines('Smoke guard', guardOutcomes),
  ].join('\n');
}

const summaryFigures = [
  'rtt-p50',
  'msgs-per-s',
  'mb-per-s-16kib',
  'mb-per-s-1mib',
  'relay-16mib-ms',
  'relay-16mib-echo-ms',
] as const;

/**
 * The relay figures at a glance: one row per path with the medians, and for our relays one more row with the
 * median same-run ratio against their reference (the numbers the targets read).
 */
function renderRelaySummary(summaries: readonly Summary[]): string[] {
  const relay = summaries.filter((summary) => summary.section === 'relay');
  const pathIds = [...new Set(relay.map((summary) => summary.path))];
  if (pathIds.length === 0) return [];
  const cell = (path: string, figure: string, ratio: boolean) => {
    const summary = relay.find((item) => item.path === path && item.figure === figure);
    if (!summary) return '—';
    if (!ratio) return format(summary.spread.median);
    return summary.ratioSpread ? `**${format(summary.ratioSpread.median)}×**` : '—';
  };
  const rows = [
    '| Path (medians) | RTT p50 (µs) | msg/s ~360 B w64 | MB/s 16 KiB | MB/s 1 MiB | 16 MiB (ms) | 16 MiB echo (ms) |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const path of pathIds) {
    const summary = relay.find((item) => item.path === path)!;
    rows.push(
      `| ${summary.pathLabel} | ${summaryFigures.map((figure) => cell(path, figure, false)).join(' | ')} |`,
    );
    if (summary.baselineLabel?.endsWith('same run')) {
      rows.push(
        `| ↳ ratio to ${summary.baselineLabel.replace(', same run', '')} | ${summaryFigures.map((figure) => cell(path, figure, true)).join(' | ')} |`,
      );
    }
  }
  return [...rows, ''];
}

const taskNames: Record<string, string> = {
  rtt: 'RTT (1 in flight, ~360 B)',
  'small-throughput': '~360 B, window 64',
  '16kib': '16 KiB, window 16',
  '1mib': '1 MiB, window 4',
  '16mib': 'one 16 MiB message',
};

/**
 * Per message and per process, for each of our relays beside its reference (medians over repeats): CPU time, and
 * read+write system calls and sleeps, which say how many messages each wake-up batched.
 */
function renderProcessSummary(summaries: readonly Summary[]): string[] {
  const rows = summaries.filter((summary) => summary.section === 'process' && summary.baselineSpread);
  if (rows.length === 0) return [];
  const median = (path: string, figure: string, baseline: boolean) => {
    const summary = summaries.find((item) => item.path === path && item.figure === figure);
    const spreadOf = baseline ? summary?.baselineSpread : summary?.spread;
    return spreadOf ? format(spreadOf.median) : '—';
  };
  const lines = [
    '| Path | Task | Process | µs CPU / msg: reference → ours | CPU ratio min / **median** / max | calls / msg | sleeps / msg |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const summary of rows) {
    const [task, role, counter] = summary.figure.split('/');
    if (counter !== 'cpu-us') continue;
    const other = (name: string) =>
      `${median(summary.path, `${task}/${role}/${name}`, true)} → ${median(summary.path, `${task}/${role}/${name}`, false)}`;
    lines.push(
      `| ${summary.path} | ${taskNames[task!] ?? task} | ${role} | ${format(summary.baselineSpread!.median)} → ${format(summary.spread.median)} | ${summary.ratioSpread ? formatSpread(summary.ratioSpread) : '—'} | ${other('syscalls')} | ${other('sleeps')} |`,
    );
  }
  return [...lines, ''];
}

/**
 * Instructions per message of the main thread (callgrind), per process, for each of our relays beside its reference
 * (all threads are in the JSON file).
 */
function renderInstructionSummary(summaries: readonly Summary[]): string[] {
  const rows = summaries.filter(
    (summary) =>
      summary.section === 'instructions' &&
      summary.baselineSpread &&
      !summary.figure.endsWith('(all threads)'),
  );
  if (rows.length === 0) return [];
  const lines = [
    '| Path | Task | Process | instructions / msg: reference → ours (median) | ratio min / **median** / max |',
    '|---|---|---|---|---|',
  ];
  for (const summary of rows) {
    const [task, role] = summary.figure.split('/');
    lines.push(
      `| ${summary.path} | ${taskNames[task!] ?? task} | ${role} | ${format(summary.baselineSpread!.median)} → ${format(summary.spread.median)} | ${summary.ratioSpread ? formatSpread(summary.ratioSpread) : '—'} |`,
    );
  }
  return [...lines, ''];
}
