import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './config/vitest-sequencer.js';

// Project folders (comma-separated, from the repository) a run leaves out: the test command runs the suites that read
// the packages' built declarations in a run of their own, once its typecheck step has written them.
const leftOut = (process.env.ACPKIT_VITEST_LEAVE_OUT ?? '').split(',').filter(Boolean);

// One run over every workspace package; each package's own vitest.config.ts names its project.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'examples/*', 'tests/*', ...leftOut.map((folder) => `!${folder}`)],
    // Most files wait on processes, sockets and timers rather than on a core: on the 2-core machines this suite
    // runs on, four files at a time keep both cores busy (vitest's default would be one file at a time here).
    maxWorkers: 4,
    // The longest files first, whatever their project, so none is left to run alone at the end.
    sequence: { sequencer: LongestFirstSequencer },
  },
});
