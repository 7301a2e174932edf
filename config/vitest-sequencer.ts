// The order the test files start in: the projects with the longest files first, and those files first within each.
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
 * starts last and runs alone while the other workers idle, ~1 minute of the test command's wall time. This orders the
 * projects by their longest recorded file (config/test-durations.json), longest first, and the files of each the same
 * way; files with no record (new, or under a second) follow in vitest's order. A project's files stay together: a
 * worker serves one project, so mixing projects in the queue made vitest start ~50 % more workers (~0.5-0.9 CPU-s
 * each), which cost more than the tail it saved.
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
    const longestOfProject = new Map<string, number>();
    for (const spec of vitestOrder) {
      const name = spec.project.name;
      longestOfProject.set(name, Math.max(longestOfProject.get(name) ?? 0, recorded(spec)));
    }
    const projectOf = (spec: TestSpecification) => longestOfProject.get(spec.project.name) ?? 0;
    // Array.prototype.sort is stable: files with equal (or no) records keep vitest's order.
    return vitestOrder.sort(
      (left, right) =>
        projectOf(right) - projectOf(left) ||
        (left.project.name < right.project.name ? -1 : left.project.name > right.project.name ? 1 : 0) ||
        recorded(right) - recorded(left),
    );
  }
}
