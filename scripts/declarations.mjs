// The `.d.ts` files of every built workspace package, written by the type-checking program instead of by tsup.
// tsup's own `dts` step built one TypeScript program per package in a worker of its own (parsing the lib, @types/node,
// the SDK and zod again each time) and type-checked the exports a second time after `scripts/typecheck.mjs` had
// checked everything: ~90 % of the build's CPU. Here the program that type-checks a package also emits its
// declarations (the check has already computed every type they need), and rollup-plugin-dts (the bundler tsup uses,
// same options) bundles them into one `.d.ts` per entry as before: `dist/<entry>.d.ts` plus shared chunks.
//
// The entries and the declaration options come from the package's own tsup.config.ts (config/tsup-preset.ts), so a
// package adds or renames an entry in one place. Packages are handled in dependency order: a package's program reads
// the bundled `.d.ts` of the workspace packages it imports.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
import { tsImport } from 'tsx/esm/api';
import ts from 'typescript';

/**
 * Set to `typecheck` for a build whose declarations `node scripts/typecheck.mjs --declarations` writes afterwards:
 * config/tsup-preset.ts then builds the JavaScript only. Declared in turbo.json, so each kind of build has its own
 * cache entries.
 */
export const DECLARATIONS_VARIABLE = 'ACPKIT_BUILD_DECLARATIONS';

/**
 * @typedef {object} DeclarationBuild
 * @property {Record<string, string>} entries entry name (e.g. `index`, `mcp/index`) → source file, absolute
 * @property {Record<string, string[]>} paths the tsup `dts.compilerOptions.paths` (a bundled private package's source),
 *   resolved against the package folder
 * @property {RegExp[]} external what stays an import: the package's dependencies and peers, as tsup decides
 */

/** tsup's names for an array of entries: the path below the entries' common folder, without extension. */
function entryNames(entry, folderPath) {
  if (!Array.isArray(entry)) {
    return Object.fromEntries(Object.entries(entry).map(([name, file]) => [name, resolve(folderPath, file)]));
  }
  const files = entry.map((file) => resolve(folderPath, file));
  if (files.length === 1) return { [basename(files[0], extname(files[0]))]: files[0] };
  let common = dirname(files[0]);
  while (!files.every((file) => file.startsWith(`${common}/`))) common = dirname(common);
  return Object.fromEntries(
    files.map((file) => [relative(common, file).slice(0, -extname(file).length), file]),
  );
}

/**
 * What `folder`'s tsup.config.ts says about its declarations, or undefined when it builds none.
 * @param {string} root
 * @param {string} folder relative to root
 * @param {Record<string, any>} manifest
 * @returns {Promise<DeclarationBuild | undefined>}
 */
export async function declarationBuildOf(root, folder, manifest) {
  const folderPath = join(root, folder);
  if (!existsSync(join(folderPath, 'tsup.config.ts'))) return undefined;
  // The preset leaves `dts` out of tsup's build when the declarations come from here (DECLARATIONS_VARIABLE); read
  // the package's configuration as tsup would build it on its own.
  const setting = process.env[DECLARATIONS_VARIABLE];
  delete process.env[DECLARATIONS_VARIABLE];
  let loaded;
  try {
    loaded = await tsImport(join(folderPath, 'tsup.config.ts'), import.meta.url);
  } finally {
    if (setting !== undefined) process.env[DECLARATIONS_VARIABLE] = setting;
  }
  const configs = [loaded.default]
    .flat()
    .filter((config) => config && config.dts !== false && config.dts !== undefined);
  if (configs.length === 0) return undefined;
  if (configs.length > 1) throw new Error(`${folder}/tsup.config.ts: more than one build with declarations`);
  const [config] = configs;
  const paths = Object.fromEntries(
    Object.entries(config.dts?.compilerOptions?.paths ?? {}).map(([name, targets]) => [
      name,
      targets.map((target) => resolve(folderPath, target)),
    ]),
  );
  const dependencies = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ];
  return {
    entries: entryNames(config.entry, folderPath),
    paths,
    external: dependencies.map((name) => new RegExp(`^${name}($|\\/|\\\\)`)),
  };
}

/**
 * The compiler options of the package's program when it also emits declarations: what tsup's dts step set on top of
 * the tsconfig.json, and the `paths` of a bundled private package.
 * @param {ts.CompilerOptions} options
 * @param {DeclarationBuild} build
 * @returns {ts.CompilerOptions}
 */
export function declarationOptions(options, build) {
  return {
    ...options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
    noEmitOnError: false,
    ...(Object.keys(build.paths).length > 0 ? { paths: { ...options.paths, ...build.paths } } : {}),
  };
}

/** A test file of the repository's conventions, whose declarations nobody needs. */
const TEST_FILE = /\.test(-d)?\.tsx?$|\/test\//;

/**
 * Emits the declarations of the package's sources (and of the sources its `paths` bundle) from `program`, then
 * bundles them per entry into `folder/dist`. Returns the errors that stop a declaration from being written (the
 * same ones tsup's dts step failed on), empty when the bundles were written.
 * @param {{ root: string; folder: string; program: ts.Program; build: DeclarationBuild }} options
 * @returns {Promise<string[]>}
 */
export async function writeDeclarations({ root, folder, program, build }) {
  const folderPath = join(root, folder);
  const bundledSources = Object.values(build.paths)
    .flat()
    .map((target) => `${dirname(target)}/`);
  const ownSources = [`${folderPath}/`, ...bundledSources];
  const scratch = mkdtempSync(join(tmpdir(), 'acpkit-declarations-'));
  // The emitted tree mirrors the repository, so the relative imports between the emitted files stay as they were.
  const inScratch = (file) => join(scratch, relative(root, file));
  /** @type {ts.Diagnostic[]} */
  const errors = [];
  try {
    for (const sourceFile of program.getSourceFiles()) {
      const file = sourceFile.fileName;
      if (sourceFile.isDeclarationFile || program.isSourceFileFromExternalLibrary(sourceFile)) continue;
      if (!ownSources.some((prefix) => file.startsWith(prefix)) || TEST_FILE.test(file)) continue;
      if (file.startsWith(folderPath) && !file.startsWith(`${folderPath}/src/`)) continue;
      const { diagnostics } = program.emit(
        sourceFile,
        (name, text) => {
          const target = inScratch(name);
          mkdirSync(dirname(target), { recursive: true });
          writeFileSync(target, text);
        },
        undefined,
        true,
      );
      errors.push(...diagnostics.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error));
    }
    if (errors.length > 0) {
      return [
        ts.formatDiagnostics(errors, {
          getCanonicalFileName: (name) => name,
          getCurrentDirectory: () => folderPath,
          getNewLine: () => '\n',
        }),
      ];
    }
    const declarationOf = (source) => inScratch(source).replace(/\.tsx?$/, '.d.ts');
    const bundle = await rollup({
      input: Object.fromEntries(
        Object.entries(build.entries).map(([name, source]) => [name, declarationOf(source)]),
      ),
      // What tsup ignores too: types of packages that are not installed here stay imports.
      onwarn(warning, handler) {
        if (['UNRESOLVED_IMPORT', 'CIRCULAR_DEPENDENCY', 'EMPTY_BUNDLE'].includes(warning.code ?? '')) return;
        handler(warning);
      },
      plugins: [
        dts({
          compilerOptions: {
            ...(Object.keys(build.paths).length > 0
              ? {
                  paths: Object.fromEntries(
                    Object.entries(build.paths).map(([name, targets]) => [name, targets.map(declarationOf)]),
                  ),
                }
              : {}),
            skipLibCheck: true,
          },
        }),
      ],
      external: build.external,
    });
    await bundle.write({
      dir: join(folderPath, 'dist'),
      format: 'esm',
      exports: 'named',
      entryFileNames: '[name].d.ts',
      // A chunk is named after its first module, here `name.d.ts` where tsup's was `name.ts`: the same file names.
      chunkFileNames: (chunk) => `${chunk.name.replace(/\.d$/, '')}-[hash].d.ts`,
    });
    await bundle.close();
    return [];
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
