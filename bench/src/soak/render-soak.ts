// The soak benchmark's report: its tables and per-minute lines for bench/README.md, and the bounds they show.
import type { describeMachine } from '../report.js';
import type { SoakFaults } from './soak-peer.js';

/** Live memory and RSS-after-GC growth allowed after the warm-up. */
export const GROWTH_BOUND_BYTES = 32 * 1024 * 1024;
/** The driver's row: it is measured and shown, not judged. */
export const DRIVER = 'driver (not bounded)';
export const MiB = 1024 * 1024;

/** What one path carried. */
export interface Counts {
  smallEchoes: number;
  oneMiBEchoes: number;
  hugeEchoes: number;
  forms: number;
  echoedBytes: number;
}

/** The soak's result as markdown. */
export function renderSoak(result: {
  startedAt: string;
  machine: ReturnType<typeof describeMachine>;
  minutes: number;
  warmupMinutes: number;
  cutEverySeconds: number;
  counts: Record<string, Counts>;
  cuts: Array<{ path: string; cuts: number }>;
  faults: Record<string, SoakFaults>;
  exits: Record<string, number | null>;
  memory: Array<{
    process: string;
    maxAfterWarmupMiB: number;
    highestFloorAfterWarmupMiB: number;
    warmupRssAfterGcMiB: number;
    rssAfterGcAfterWarmupMiB: number;
    overWarmupRssMiB: number;
    live:
      | {
          warmup: { heapMiB: number; externalMiB: number };
          end: { heapMiB: number; externalMiB: number };
          growthMiB: number;
        }
      | undefined;
    withinBound: boolean;
    minutes: Array<{ minute: number; rssAfterGcMiB: number; floorMiB: number; peakMiB: number }>;
  }>;
  passed: boolean;
}): string {
  const lines = [
    `Soak of ${result.startedAt}: ${result.minutes} min (warm-up ${result.warmupMinutes} min), every connection cut ` +
      `every ${result.cutEverySeconds} s in turn, default flags; ${result.machine.cpuCount}× ${result.machine.cpuModel}, ` +
      `Node ${result.machine.node}; load average ${result.machine.loadAverage.join(' / ')} at start. **${result.passed ? 'Passed' : 'Failed'}.**`,
    '',
    '| Path | small echoes | 1 MiB echoes | 16 MiB echoes | forms | MB echoed | cuts | lost, duplicated or stalled |',
    '| ---- | -----------: | -----------: | ------------: | ----: | --------: | ---: | --------------------------: |',
    ...Object.entries(result.counts).map(([name, counts]) => {
      const faults = result.faults[name]!;
      const cuts = result.cuts.find((entry) => entry.path === name)?.cuts ?? 0;
      const bad = faults.errors + faults.unexpected + faults.stalled;
      return `| mirror → ${name} | ${counts.smallEchoes} | ${counts.oneMiBEchoes} | ${counts.hugeEchoes} | ${counts.forms} | ${(counts.echoedBytes / 1e6).toFixed(0)} | ${cuts} | ${bad} |`;
    }),
    '',
    "| Process | live, warm-up end (MiB) | live, end (MiB) | live growth (MiB, bound 32) | RSS after GC, warm-up's highest (MiB) | RSS after GC, highest after it (MiB) | over (MiB, bound 32) | unforced RSS floor, highest after warm-up (MiB) | RSS peak after warm-up (MiB) |",
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...result.memory.map((entry) => {
      const live = entry.live;
      const total = (side: { heapMiB: number; externalMiB: number }) =>
        (side.heapMiB + side.externalMiB).toFixed(1);
      const over = (value: number) => (value < GROWTH_BOUND_BYTES / MiB ? `${value}` : `${value} **over**`);
      const liveCells =
        live === undefined ? ['—', '—', '—'] : [total(live.warmup), total(live.end), over(live.growthMiB)];
      const rssCells =
        entry.process === DRIVER
          ? ['—', '—', '—']
          : [entry.warmupRssAfterGcMiB, entry.rssAfterGcAfterWarmupMiB, over(entry.overWarmupRssMiB)];
      return `| ${entry.process} | ${liveCells.join(' | ')} | ${rssCells.join(' | ')} | ${entry.highestFloorAfterWarmupMiB} | ${entry.maxAfterWarmupMiB} |`;
    }),
    '',
    'Live: V8 heap used + external memory (Buffers). RSS after GC: RSS at the same moment. Both are read at the end ' +
      'of every minute, after the traffic settled and a full GC, and judged (see above). Unforced RSS: sampled every ' +
      '2 s between those moments (not in the 10 s after each forced GC), reported, not judged.',
    '',
    'RSS after a full GC, per minute (MiB), minute 1 first:',
    '',
    // The driver is not probed: it has no RSS after a GC.
    ...perMinuteLines(
      result.memory.filter((entry) => entry.process !== DRIVER),
      (minute) => minute.rssAfterGcMiB,
    ),
    '',
    'Unforced RSS floor (the least sample) per minute (MiB), minute 1 first:',
    '',
    ...perMinuteLines(result.memory, (minute) => minute.floorMiB),
    '',
    `Exit codes: ${Object.entries(result.exits)
      .map(([name, code]) => `${name} ${code}`)
      .join(', ')}.`,
  ];
  return lines.join('\n');
}

/** One line per process: a figure of each minute. */
function perMinuteLines<Minute>(
  memory: ReadonlyArray<{ process: string; minutes: readonly Minute[] }>,
  figure: (minute: Minute) => number,
): string[] {
  const shown = (value: number) => (Number.isFinite(value) ? Math.round(value) : '—');
  return memory.map(
    (entry) => `- ${entry.process}: ${entry.minutes.map((minute) => shown(figure(minute))).join(', ')}`,
  );
}
