// The one tsup setup of the workspace: every package's tsup.config.ts is `packageBuild({ entry })`, or `cliBuild`
// for a CLI, so everything we publish is built the same way: ES modules for Node 20, one bundled `.d.ts` per entry,
// source maps, a `dist/` emptied first. CONTRIBUTING.md ("Adding a package") shows a new package's config.
import type { Options } from 'tsup';

/** What a package's build may say beyond the preset. */
export interface PackageBuildOptions {
  /**
   * The entry files, e.g. `['src/index.ts']`, each becoming `dist/<name>.js` and `dist/<name>.d.ts`; or names to files
   * (`{ 'mcp/index': 'src/mcp/index.ts' }`) for a subpath entry in a folder of `dist/`.
   */
  entry: string[] | Record<string, string>;
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
    // The test command builds the JavaScript only and has its typecheck step write the declarations from the program
    // that type-checks the package (scripts/declarations.mjs): one check instead of two, ~130 CPU-s less a run.
    dts: process.env.ACPKIT_BUILD_DECLARATIONS === 'typecheck' ? false : dts,
    sourcemap: true,
    clean: true,
    ...(noExternal ? { noExternal } : {}),
    ...(banner ? { banner } : {}),
  };
}

/**
 * Bundled into a CLI: every dependency but
 * - tsx: `acpkit run file.ts` registers its loader, which must be the installed package;
 * - ws's optional native add-ons (`bufferutil`, `utf-8-validate`): ws requires them inside a try, and only an
 *   installed copy has its binary;
 * - the public libraries @acpkit/remote and @acpkit/errors: one copy in the process, shared with an agent module that
 *   `serve` loads, and each loads what it loads lazily (prom-client for `--metrics`) from its own install. Bundled,
 *   remote's `import('prom-client')` of a CommonJS package would get only a default export;
 * - @acpkit/web-client: `acpkit web` loads it only when that command runs, and it serves the page it ships beside its
 *   own `dist/` (bundled, it would look for the page in the CLI's).
 * The rest (the SDK and zod, commander, @clack/prompts, @acpkit/testing, the private @acpkit/cli-support) is one
 * file per entry and per dynamically imported part instead of ~160 modules, so a start reads and links far fewer.
 */
const BUNDLED_INTO_CLIS =
  /^(?!(tsx|bufferutil|utf-8-validate|@acpkit\/remote|@acpkit\/errors|@acpkit\/web-client)(\/|$))/;

/**
 * The bundled CommonJS dependencies (commander and others) call `require` for Node's built-in modules, which an
 * ES module does not have: each file of `dist/` makes one for its own location (esbuild renames any `require` of
 * the bundled code that would clash).
 */
const REQUIRE_FOR_BUNDLED_COMMONJS =
  "import { createRequire as __acpkitCreateRequire } from 'node:module';\n" +
  'const require = __acpkitCreateRequire(import.meta.url);';

/**
 * The build of a CLI in apps/: `entry` holds `src/cli.ts` (the bin) and `src/index.ts` (`main`, for tests and
 * embedding). Its dependencies are bundled in (`BUNDLED_INTO_CLIS`), with the private @acpkit/cli-support; the
 * dependencies stay in its manifest, so its `.d.ts` imports their types. The types the public API uses from @acpkit/cli-support (MainOptions) are inlined by pointing the
 * declaration bundler at its source (through node_modules it would count as an external library and stay an import).
 */
export function cliBuild({ entry }: { entry: string[] }): Options {
  return packageBuild({
    entry,
    dts: { compilerOptions: { paths: { '@acpkit/cli-support': ['../cli-support/src/index.ts'] } } },
    noExternal: [BUNDLED_INTO_CLIS],
    banner: { js: REQUIRE_FOR_BUNDLED_COMMONJS },
  });
}
