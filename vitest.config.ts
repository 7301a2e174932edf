import { defineConfig } from 'vitest/config';

// One run over every workspace package; each package's own vitest.config.ts names its project.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'examples/*', 'tests/*'],
  },
});
