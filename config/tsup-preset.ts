// The one tsup setup of the workspace: every package's tsup.config.ts is `packageBuild({ entry })`, or `cliBuild`
// for a CLI, so everything we publish is built the same way: ES modules for Node 20, one bundled `.d.ts` per entry,
// source maps, a `dist/` emptied first. CONTRIBUTING.md ("Adding a package") shows a new package's config.
import type { Options } from 'tsup';

/** What a package's build may say beyond the preset. */
export interface PackageBuildOptions {
  /** The entry files, e.g. `['src/index.ts']`; each becomes `dist/<name>.js` and `dist/<name>.d.ts`. */
  entry: string[];
  /** `neutral` for the pure packages that import nothing of Node (choice-schema, form-schema, errors). */
  platform?: 'node' | 'neutral';
  /** The `.d.ts` build, when it needs more than `true` (see `cliBuild`). */
  dts?: Options['dts'];
  /** Dependencies bundled into `dist/` instead of imported at run time. */
  noExternal?: Options['noExternal'];
  /** Text put first in every JavaScript file of `dist/`. */
  banner?: Options['banner'];
}

/**
 * The build of a workspace package: `export default packageBuild({ entry: ['src/index.ts'] });`.
 *
 * @example
 * ```ts
 * // packages/remote/tsup.config.ts: `internal` is a second entry.
 * export default packageBuild({ entry: ['src/index.ts', 'src/internal.ts'] });
 * ```
 */
export function packageBuild({
  entry,
  platform = 'node',
  dts = true,
  noExternal,
  banner,
}: PackageBuildOptions): Options {
  return {
    entry,
    format: ['esm'],
    target: 'node20',
    platform,
    dts,
    sourcemap: true,
    clean: true,
    ...(noExternal ? { noExternal } : {}),
    ...(banner ? { banner } : {}),
  };
}

/**
 * The build of a CLI in apps/: `entry` holds `src/cli.ts` (the bin) and `src/index.ts` (`main`, for tests and
 * embedding). The private @acpkit/cli-support is bundled in, so the published CLI never depends on it: its code by
 * noExternal, and the types the public API uses from it (MainOptions) by pointing the declaration bundler at its
 * source (through node_modules it would count as an external library and stay an import). What it imports from
 * public packages stays an import: they are dependencies of the CLI.
 */
export function cliBuild({ entry }: { entry: string[] }): Options {
  return packageBuild({
    entry,
    dts: { compilerOptions: { paths: { '@acpkit/cli-support': ['../cli-support/src/index.ts'] } } },
    noExternal: ['@acpkit/cli-support'],
  });
}
