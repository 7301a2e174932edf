// Result records, targets and guards, and their rendering as a markdown table and JSON.
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

/** Targets from the issue: reported, never asserted. */
export const targets: Bound[] = [
  { path: 'chain', figure: 'rtt-p50', onRatio: true, max: 1.25, text: 'p50 ≤ 1.25× the sum of its raw hops' },
  { path: 'chain', figure: 'msgs-per-s', min: 28_000, text: '≥ 28k msg/s' },
  { path: 'chain', figure: 'mb-per-s-1mib', min: 180, text: '≥ 180 MB/s' },
  { path: 'chain', figure: 'relay-16mib-ms', max: 500, text: '≤ 500 ms' },
  { path: 'ask-choice', figure: 'compile-parse-us', max: 5, text: '< 5 µs per call' },
  { path: 'ask-form', figure: 'compile-validate-us', max: 20, text: '< 20 µs per form' },
  { path: 'serve-acp', figure: 'heap-per-idle-connection-kib', max: 256, text: '≤ 256 KiB' },
];

/** Wide guards `bench:smoke` enforces: they catch quadratic framing and lost backpressure, not drift. */
export const smokeGuards: Bound[] = [
  { path: 'chain', figure: 'rtt-p50', max: 1_000, text: 'p50 < 1 ms' },
  { path: 'chain', figure: 'msgs-per-s', min: 5_000, text: '≥ 5k msg/s' },
  { path: 'chain', figure: 'relay-16mib-ms', max: 1_000, text: '16 MiB < 1 s' },
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
    ...lines,
    ...outcomeLines('Target', targetOutcomes),
    ...outcomeLines('Smoke guard', guardOutcomes),
  ].join('\n');
}
