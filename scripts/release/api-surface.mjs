#!/usr/bin/env node
// The API-surface snapshot of every public package: the runtime export names (`Object.keys(await import(name))`)
// and the type-only export names of its published `.d.ts`. The snapshot is committed in
// tests/release/api-surface.json so that adding, renaming or removing an export shows up in review.
//
//   node scripts/release/api-surface.mjs --check  [--project DIR]   compare the packages DIR resolves with the snapshot
//   node scripts/release/api-surface.mjs --update [--project DIR]   rewrite the snapshot (review the diff!)
//
// DIR defaults to tests/release, whose workspace dependencies link every public package's built dist; the release
// check passes the scratch project where the packed tarballs were installed with npm.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const snapshotPath = join(root, 'tests', 'release', 'api-surface.json');

/**
 * @typedef {Record<string, { runtime: string[]; declaredValues: string[]; types: string[] } | { error: string }>} ApiSurface
 */

/**
 * Reads the export names of `packageNames` as resolved from `projectDirectory`.
 * @param {string} projectDirectory a directory whose node_modules holds the packages
 * @param {string[]} packageNames
 * @returns {Promise<ApiSurface>}
 */
export async function readApiSurface(projectDirectory, packageNames) {
  const requireFromProject = createRequire(join(projectDirectory, 'package.json'));
  const declarations = readDeclaredExports(projectDirectory, packageNames);
  /** @type {ApiSurface} */
  const surface = {};
  for (const name of packageNames) {
    const declared = declarations[name];
    if ('error' in declared) {
      surface[name] = { error: declared.error };
      continue;
    }
    try {
      // createRequire resolves through the package's `exports` (`default` condition), like a consumer would.
      const entry = requireFromProject.resolve(name);
      const namespace = await import(pathToFileURL(entry).href);
      surface[name] = {
        runtime: Object.keys(namespace).sort(),
        declaredValues: declared.values,
        types: declared.types,
      };
    } catch (error) {
      surface[name] = {
        error: `importing ${name} failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }
  return surface;
}

/**
 * Lists what each package's `.d.ts` exports, split into values (classes, functions, constants) and type-only names,
 * with the TypeScript checker resolving re-exports the way a consumer's compiler does.
 * @param {string} projectDirectory
 * @param {string[]} packageNames
 */
function readDeclaredExports(projectDirectory, packageNames) {
  const entry = join(projectDirectory, '__acpkit_api_surface__.mts');
  const source = packageNames.map((name, index) => `import * as package${index} from '${name}';`).join('\n');
  /** @type {ts.CompilerOptions} */
  const options = {
    module: ts.ModuleKind.Node20 ?? ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  // The entry file is virtual: nothing is written into the project being inspected.
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (fileName) => fileName === entry || fileExists.call(host, fileName);
  host.readFile = (fileName) => (fileName === entry ? source : readFile.call(host, fileName));
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    fileName === entry
      ? ts.createSourceFile(fileName, source, languageVersion, true)
      : getSourceFile.call(host, fileName, languageVersion, ...rest);
  const program = ts.createProgram([entry], options, host);
  const checker = program.getTypeChecker();
  const sourceFile = program.getSourceFile(entry);
  if (!sourceFile) throw new Error('the API surface entry file was not loaded');
  /** @type {Record<string, { values: string[]; types: string[] } | { error: string }>} */
  const result = {};
  let index = 0;
  for (const statement of sourceFile.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const name = packageNames[index++];
    const moduleSymbol = checker.getSymbolAtLocation(statement.moduleSpecifier);
    if (!moduleSymbol) {
      result[name] = { error: `TypeScript cannot resolve type declarations for ${name} (no .d.ts shipped?)` };
      continue;
    }
    const values = [];
    const types = [];
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const typeOnly = (exported.declarations ?? []).some((declaration) =>
        ts.isTypeOnlyImportOrExportDeclaration(declaration),
      );
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (!typeOnly && target.flags & ts.SymbolFlags.Value) values.push(exported.name);
      else types.push(exported.name);
    }
    result[name] = { values: values.sort(), types: types.sort() };
  }
  return result;
}

/** @returns {Record<string, { runtime: string[]; types: string[] }>} */
export function readSnapshot() {
  if (!existsSync(snapshotPath)) return {};
  return JSON.parse(readFileSync(snapshotPath, 'utf8'));
}

/**
 * Compares a surface with the committed snapshot, and the runtime exports with the declared value exports.
 * @param {ApiSurface} surface
 * @param {Record<string, { runtime: string[]; types: string[] }>} snapshot
 * @returns {string[]} one line per difference; empty when everything matches
 */
export function compareWithSnapshot(surface, snapshot) {
  const problems = [];
  const names = new Set([...Object.keys(surface), ...Object.keys(snapshot)]);
  for (const name of [...names].sort()) {
    const actual = surface[name];
    const expected = snapshot[name];
    if (!actual) {
      problems.push(`${name}: in the snapshot but not inspected (removed or renamed package?)`);
      continue;
    }
    if ('error' in actual) {
      problems.push(`${name}: ${actual.error}`);
      continue;
    }
    if (!expected) {
      problems.push(`${name}: not in the snapshot (a new public package: run the update and review it)`);
      continue;
    }
    for (const [label, now, before] of [
      ['runtime export', actual.runtime, expected.runtime],
      ['type-only export', actual.types, expected.types],
    ]) {
      for (const added of now.filter((item) => !before.includes(item)))
        problems.push(`${name}: new ${label} ${added}`);
      for (const gone of before.filter((item) => !now.includes(item)))
        problems.push(`${name}: ${label} ${gone} is gone`);
    }
    // The .d.ts and the JavaScript must agree, or consumers compile against exports that do not exist.
    for (const missing of actual.declaredValues.filter((item) => !actual.runtime.includes(item))) {
      problems.push(`${name}: ${missing} is declared as a value in the .d.ts but missing at runtime`);
    }
    for (const undeclared of actual.runtime.filter((item) => !actual.declaredValues.includes(item))) {
      problems.push(`${name}: ${undeclared} is exported at runtime but not declared as a value in the .d.ts`);
    }
  }
  return problems;
}

/**
 * @param {ApiSurface} surface
 * @returns {string[]} the packages that could not be read (nothing is written then)
 */
export function writeSnapshot(surface) {
  /** @type {Record<string, { runtime: string[]; types: string[] }>} */
  const snapshot = {};
  const errors = [];
  for (const name of Object.keys(surface).sort()) {
    const entry = surface[name];
    if ('error' in entry) errors.push(`${name}: ${entry.error}`);
    else snapshot[name] = { runtime: entry.runtime, types: entry.types };
  }
  if (errors.length > 0) return errors;
  writeFileSync(snapshotPath, `${JSON.stringify(snapshot, null, 2)}\n`);
  return [];
}

async function main() {
  const { values } = parseArgs({
    options: {
      check: { type: 'boolean', default: false },
      update: { type: 'boolean', default: false },
      project: { type: 'string', default: join(root, 'tests', 'release') },
      packages: { type: 'string' },
    },
  });
  if (values.check === values.update) {
    console.error('Error: pass exactly one of --check or --update');
    return 2;
  }
  const projectDirectory = resolve(values.project);
  const packageNames = values.packages
    ? values.packages.split(',')
    : Object.keys(JSON.parse(readFileSync(join(projectDirectory, 'package.json'), 'utf8')).dependencies ?? {})
        .filter((name) => name.startsWith('@acpkit/'))
        .sort();
  const surface = await readApiSurface(projectDirectory, packageNames);
  if (values.update) {
    const errors = writeSnapshot(surface);
    if (errors.length > 0) {
      console.error('Error: the snapshot was not written because some packages could not be read:');
      for (const error of errors) console.error(`  - ${error}`);
      return 1;
    }
    console.log(
      `Wrote ${snapshotPath.replace(root, '')} for ${packageNames.length} packages; review the diff.`,
    );
    return 0;
  }
  const problems = compareWithSnapshot(surface, readSnapshot());
  if (problems.length === 0) {
    console.log(`API surface of ${packageNames.length} packages matches the snapshot.`);
    return 0;
  }
  console.error('API surface differs from tests/release/api-surface.json:');
  for (const problem of problems) console.error(`  - ${problem}`);
  console.error(
    'If the change is intended: pnpm --filter @acpkit/release-tests api-surface:update, and add a changeset.',
  );
  return 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
