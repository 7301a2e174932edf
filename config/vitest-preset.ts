// The one vitest setup of the workspace's projects: every package's vitest.config.ts is `packageProject(name)`
// (packages/*, apps/*, examples/*) or `suiteProject(name, …)` (the private suites in tests/*), with only what is its
// own spelled out beside it. CONTRIBUTING.md ("Adding a package") shows a new package's config.
import { fileURLToPath } from 'node:url';
import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

/** A project's `test` options, as vitest's `defineProject` takes them. */
export type ProjectTestOptions = NonNullable<UserWorkspaceConfig['test']>;

/**
 * Type tests (`src/**\/*.test-d.ts`). The test command sets a checker that reuses its typecheck step's `tsc --noEmit`
 * of this package (scripts/test/typecheck-results-checker.mjs); elsewhere vitest runs `tsc`.
 */
const TYPE_TESTS: ProjectTestOptions['typecheck'] = {
  enabled: true,
  include: ['src/**/*.test-d.ts'],
  checker: process.env.ACPKIT_TYPECHECK_CHECKER ?? 'tsc',
};

/**
 * The options of a project whose tests start a real service (Postgres, nginx, HAProxy, Chromium): in the test
 * command, its files wait for the step that installs the missing ones (config/wait-for-services.ts) before they load.
 *
 * @example
 * ```ts
 * export default packageProject('sessions', { ...USES_SERVICES, hookTimeout: 60_000 });
 * ```
 */
export const USES_SERVICES: ProjectTestOptions = {
  setupFiles: [fileURLToPath(new URL('./wait-for-services.ts', import.meta.url))],
};

/**
 * A package's project: unit tests beside the code (`src/**\/*.test.ts`), integration tests (`test/**\/*.test.ts`),
 * type tests, mocks restored after each test, 20 s a test, and reused workers (`isolate: false`: a worker runs file
 * after file instead of starting afresh for each; CONTRIBUTING.md, "Reused workers").
 *
 * @example
 * ```ts
 * // packages/remote/vitest.config.ts
 * export default packageProject('remote', { testTimeout: 60_000 });
 * ```
 */
export function packageProject(name: string, options: ProjectTestOptions = {}): UserWorkspaceConfig {
  return defineProject({
    test: {
      name,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      typecheck: TYPE_TESTS,
      restoreMocks: true,
      isolate: false,
      testTimeout: 20_000,
      ...options,
    },
  });
}

/**
 * A private suite in tests/: its tests in `test/**\/*.test.ts`, mocks restored after each test; the rest (limits,
 * workers, setup) is the suite's own.
 *
 * @example
 * ```ts
 * // tests/release/vitest.config.ts
 * export default suiteProject('release', { isolate: false, testTimeout: 60_000, hookTimeout: 60_000 });
 * ```
 */
export function suiteProject(name: string, options: ProjectTestOptions = {}): UserWorkspaceConfig {
  return defineProject({ test: { name, include: ['test/**/*.test.ts'], restoreMocks: true, ...options } });
}
