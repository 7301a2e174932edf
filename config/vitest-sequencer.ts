// The order the test files start in: the longest first, across every project (config/test-durations.json).
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds per file (paths from the repository) of a recent full run; `scripts/test/record-durations.mjs` writes it. */
const durations: Record<string, number> = JSON.parse(
  readFileSync(new URL('./test-durations.json', import.meta.url), 'utf8'),
);

/**
 * Vitest's own order puts project after project (alphabetically) and, on a clean clone with no cache of earlier runs,
 * the larger files first within each: a long file of a late project (the browser test, the ai-sdk memory test) then
 * starts last and runs alone while the other workers idle, ~1 minute of the test command's wall time. This starts the
 * files in the order of their recorded duration, longest first, whatever their project; files with no record (new or
 * under a second) follow in vitest's order. Projects still run side by side as before: only the queue changes.
 *
 * @example
 * ```ts
 * // vitest.config.ts
 * export default defineConfig({ test: { sequence: { sequencer: LongestFirstSequencer } } });
 * ```
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const vitestOrder = await super.sort(files);
    const root = this.ctx.config.root;
    const recorded = (spec: TestSpecification) => durations[relative(root, spec.moduleId)] ?? 0;
    // Array.prototype.sort is stable: files with equal (or no) records keep vitest's order.
    return vitestOrder.sort((left, right) => recorded(right) - recorded(left));
  }
}
