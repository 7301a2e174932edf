import { defineConfig } from 'vitest/config';

// One run over every workspace package; each package's own vitest.config.ts names its project.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'examples/*', 'tests/*'],
    // Most files wait on processes, sockets and timers rather than on a core: on the 2-core machines this suite
    // runs on, four files at a time keep both cores busy (vitest's default would be one file at a time here).
    maxWorkers: 4,
  },
});
