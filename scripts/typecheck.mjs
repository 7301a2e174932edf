#!/usr/bin/env node
// `pnpm typecheck` (and the test command's typecheck step): `tsc --noEmit` for every workspace package that has a
// `typecheck` script, each with its own tsconfig.json exactly as `tsc` reads it, but in one process that parses each
// shared file once. The packages share the TypeScript lib, @types/node and the SDK's declarations; parsing and binding
// those once instead of once per package, and starting one Node instead of eighteen, takes about half the CPU time
// of a `tsc` per package. TypeScript's own build mode and language service share source files across programs the
// same way; every package here compiles with the same base options (tsconfig.base.json), so a shared file parses the
// same for all of them.
//
//   node scripts/typecheck.mjs [--results DIR] [package-folder ...]    all workspace packages when none is named
//
// `--results DIR` also writes each package's diagnostics as `tsc --noEmit --pretty false` prints them, with its exit
// code, to DIR as soon as that package is checked: the test command's vitest run reads them for its type tests
// (scripts/test/typecheck-results-checker.mjs) instead of running a second `tsc` over the same package.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { declarationBuildOf, declarationOptions, writeDeclarations } from './declarations.mjs';
import { writeTypecheckResult } from './test/typecheck-results.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Workspace package folders (from pnpm-workspace.yaml: `dir/*` or `dir`) with a `typecheck` script. */
function workspacePackages() {
  const workspace = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const patterns = [];
  for (const line of workspace.slice(workspace.indexOf('packages:')).split('\n').slice(1)) {
    const match = /^\s+-\s+['"]?([^'"\s]+)['"]?\s*$/.exec(line);
    if (!match) break;
    patterns.push(match[1]);
  }
  const folders = patterns.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
      : [pattern],
  );
  return folders.filter((folder) => {
    const manifest = join(root, folder, 'package.json');
    return (
      existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).scripts?.typecheck !== undefined
    );
  });
}

/**
 * `folders` with every workspace package before the packages that depend on it (dependencies of any kind), so a
 * package's program reads the declarations its workspace dependencies have just written.
 * @param {string[]} folders
 */
function inDependencyOrder(folders) {
  const manifests = new Map(
    folders.map((folder) => [folder, JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'))]),
  );
  const folderOf = new Map([...manifests].map(([folder, manifest]) => [manifest.name, folder]));
  const ordered = [];
  const visiting = new Set();
  const visit = (folder) => {
    if (ordered.includes(folder) || visiting.has(folder)) return;
    visiting.add(folder);
    const manifest = manifests.get(folder);
    for (const name of Object.keys({
      ...manifest.dependencies,
      ...manifest.devDependencies,
      ...manifest.peerDependencies,
    })) {
      const dependency = folderOf.get(name);
      if (dependency !== undefined) visit(dependency);
    }
    ordered.push(folder);
  };
  for (const folder of folders) visit(folder);
  return ordered;
}

const formatHost = {
  getCanonicalFileName: (fileName) => fileName,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};

/** Parsed source files by path and parse options, shared by every package's program. */
const sourceFiles = new Map();

/**
 * Type-checks one package as `tsc --noEmit -p <folder>` does.
 * @returns {readonly ts.Diagnostic[]}
 */
async function checkPackage(folder) {
  const configPath = join(root, folder, 'tsconfig.json');
  /** @type {ts.Diagnostic[]} */
  const configDiagnostics = [];
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => configDiagnostics.push(diagnostic) },
  );
  if (!config) return { diagnostics: configDiagnostics };
  const build = declarations
    ? await declarationBuildOf(
        root,
        folder,
        JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')),
      )
    : undefined;
  const options = build ? declarationOptions(config.options, build) : config.options;
  const host = ts.createCompilerHost(options);
  const readSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, parseOptions, onError, shouldCreateNewSourceFile) => {
    const key = `${fileName}\0${JSON.stringify(parseOptions)}`;
    let sourceFile = shouldCreateNewSourceFile ? undefined : sourceFiles.get(key);
    if (!sourceFile) {
      sourceFile = readSourceFile(fileName, parseOptions, onError, shouldCreateNewSourceFile);
      if (sourceFile) sourceFiles.set(key, sourceFile);
    }
    return sourceFile;
  };
  const createProgram = () =>
    ts.createProgram({
      rootNames: config.fileNames,
      options,
      host,
      projectReferences: config.projectReferences,
    });
  // What `tsc --noEmit` reports (getPreEmitDiagnostics without the declaration diagnostics that `declaration: true`
  // would add for every file: those of the published sources are the declaration step's own errors below).
  const diagnosticsOf = (program) =>
    ts.sortAndDeduplicateDiagnostics([
      ...config.errors,
      ...program.getConfigFileParsingDiagnostics(),
      ...program.getOptionsDiagnostics(),
      ...program.getSyntacticDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...program.getSemanticDiagnostics(),
    ]);
  const program = createProgram();
  const diagnostics = diagnosticsOf(program);
  if (!build) return { diagnostics };
  const declarationErrors = await writeDeclarations({ root, folder, program, build });
  // A package whose own tests import its built `dist/` (web-client's browser tests) was checked against declarations
  // that did not exist yet, or were an earlier build's: check it again against the ones just written.
  const ownDist = join(root, folder, 'dist') + sep;
  const readsOwnDist =
    program.getSourceFiles().some((file) => file.fileName.startsWith(ownDist)) ||
    diagnostics.some((diagnostic) =>
      ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n').includes(ownDist),
    );
  if (!readsOwnDist || declarationErrors.length > 0) return { diagnostics, declarationErrors };
  for (const key of sourceFiles.keys()) if (key.startsWith(ownDist)) sourceFiles.delete(key);
  return { diagnostics: diagnosticsOf(createProgram()), declarationErrors };
}

const argv = process.argv.slice(2);
const resultsFlag = argv.indexOf('--results');
const resultsDirectory = resultsFlag === -1 ? undefined : argv.splice(resultsFlag, 2)[1];
const declarationsFlag = argv.indexOf('--declarations');
const declarations = declarationsFlag !== -1;
if (declarations) argv.splice(declarationsFlag, 1);
const requested = argv.map((folder) => relative(root, join(process.cwd(), folder)));
const folders = inDependencyOrder(requested.length > 0 ? requested : workspacePackages());
let failed = 0;
for (const folder of folders) {
  const started = performance.now();
  const { diagnostics, declarationErrors = [] } = await checkPackage(folder);
  if (resultsDirectory !== undefined) {
    // What `tsc --noEmit --pretty false` prints in the package folder, and its exit code.
    const output = ts.formatDiagnostics(diagnostics, {
      ...formatHost,
      getCurrentDirectory: () => join(root, folder),
    });
    writeTypecheckResult(resultsDirectory, folder, { output, exitCode: diagnostics.length === 0 ? 0 : 2 });
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (diagnostics.length === 0 && declarationErrors.length === 0) {
    console.log(`${folder}: ok (${seconds} s)`);
    continue;
  }
  failed += 1;
  if (diagnostics.length > 0) {
    console.log(`${folder}: ${diagnostics.length} error(s) (${seconds} s)`);
    console.log(ts.formatDiagnostics(diagnostics, formatHost));
  }
  if (declarationErrors.length > 0) {
    console.log(`${folder}: its declarations (dist/*.d.ts) were not written:`);
    console.log(declarationErrors.join('\n'));
  }
}
console.log(`typecheck: ${folders.length - failed} of ${folders.length} packages without errors`);
process.exitCode = failed === 0 ? 0 : 1;
