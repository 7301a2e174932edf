// The rules `pnpm release:check` applies to each public package, kept free of process handling so that
// tests/release can unit-test them: manifest hygiene (issue 6), tarball contents, and the frozen wire format.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

const nodeBuiltins = new Set(builtinModules);

/**
 * Every public package's `engines.node`: the Node lines where both `import` and `require()` of an ES module work
 * without a flag (require(esm) came unflagged in 20.19 and 22.12). The test command runs the packed packages on
 * Node 20, 22 and 24 (scripts/test/node-runtimes.mjs).
 */
export const SUPPORTED_NODE = '^20.19.0 || >=22.12.0';

function listFiles(directory, predicate) {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter((file) => predicate(file))
    .map((file) => join(directory, file));
}

/**
 * Bare package names imported by built files (declarations or JavaScript); `node:` and relative imports are skipped.
 * @param {string[]} files
 * @returns {Set<string>}
 */
export function importedPackages(files) {
  const specifiers = new Set();
  const pattern =
    /(?:^|[\s;}])(?:import|export)\s(?:[^'";]*?\sfrom\s*)?["']([^"'.][^"']*)["']|import\(\s*["']([^"'.][^"']*)["']\s*\)/gm;
  for (const file of files) {
    // Block comments go first: TSDoc `@example` code mentions packages that are not dependencies.
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const match of text.matchAll(pattern)) {
      const specifier = match[1] ?? match[2];
      if (!specifier || specifier.startsWith('node:') || specifier.startsWith('/')) continue;
      const parts = specifier.split('/');
      specifiers.add(specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]);
    }
  }
  return specifiers;
}

/**
 * The manifest rules of issue 6 that publint and attw do not cover.
 * @param {{ manifest: Record<string, any>; directory: string; absolute: string }} publicPackage
 * @returns {string[]}
 */
export function hygieneProblems({ manifest, directory, absolute }) {
  const problems = [];
  const isCli = manifest.bin !== undefined;
  if (typeof manifest.description !== 'string' || manifest.description.trim().length < 20) {
    problems.push('description must say what the package is');
  }
  if (manifest.type !== 'module') problems.push('type must be "module" (ESM-only)');
  if (!manifest.license) problems.push('license is missing');
  for (const shipped of ['dist', 'README.md', 'LICENSE']) {
    if (!Array.isArray(manifest.files) || !manifest.files.includes(shipped))
      problems.push(`files must list ${shipped}`);
  }
  for (const required of ['README.md', 'LICENSE']) {
    if (!existsSync(join(absolute, required)))
      problems.push(`${required} is missing from the package folder`);
  }
  if (manifest.exports?.['./package.json'] !== './package.json')
    problems.push('exports must include "./package.json"');
  const main = manifest.exports?.['.'];
  if (!main || Object.keys(main)[0] !== 'types' || !main.default) {
    problems.push('exports["."] must list "types" first and a "default"');
  }
  if (manifest.engines?.node !== SUPPORTED_NODE)
    problems.push(`engines.node must be "${SUPPORTED_NODE}" (is ${manifest.engines?.node})`);
  if (manifest.repository?.directory !== directory) {
    problems.push(`repository.directory must be "${directory}" (is ${manifest.repository?.directory})`);
  }
  if (!manifest.repository?.url) problems.push('repository.url is missing');
  if (manifest.publishConfig?.access !== 'public') problems.push('publishConfig.access must be "public"');
  if (!isCli && manifest.sideEffects !== false) problems.push('a library must declare "sideEffects": false');

  const runtimeDependencies = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const dist = join(absolute, 'dist');
  const declarations = listFiles(dist, (file) => file.endsWith('.d.ts'));
  const scripts = listFiles(dist, (file) => file.endsWith('.js'));
  const sdk = '@agentclientprotocol/sdk';
  if (importedPackages(declarations).has(sdk)) {
    // The SDK's types cross this package's API: one SDK copy must be shared with the user's own code.
    if (!isCli && manifest.peerDependencies?.[sdk] !== '^2.4.0') {
      problems.push(`its .d.ts uses ${sdk}: declare peerDependencies["${sdk}"]: "^2.4.0"`);
    }
  }
  // zod goes to the user's own copy: as a peer it resolves to the one zod already installed (a dependency, worse an
  // exact pin, can leave a second copy beside it whenever the user's zod moves on). npm and pnpm install a missing
  // peer themselves.
  if (!isCli && (runtimeDependencies.has('zod') || importedPackages(scripts).has('zod'))) {
    if (manifest.dependencies?.zod !== undefined || manifest.peerDependencies?.zod !== '^4') {
      problems.push('it uses zod: declare peerDependencies["zod"]: "^4" (and no dependencies["zod"])');
    }
  }
  for (const [kind, files] of [
    ['.d.ts', declarations],
    ['.js', scripts],
  ]) {
    for (const name of importedPackages(files)) {
      if (nodeBuiltins.has(name) || name === manifest.name) continue;
      if (!runtimeDependencies.has(name)) {
        problems.push(`dist ${kind} imports "${name}", which is not in dependencies or peerDependencies`);
      }
    }
  }
  for (const [binary, target] of Object.entries(
    typeof manifest.bin === 'string' ? { [manifest.name]: manifest.bin } : (manifest.bin ?? {}),
  )) {
    const path = join(absolute, target);
    if (!existsSync(path)) problems.push(`bin ${binary} -> ${target} does not exist after the build`);
    else if (!readFileSync(path, 'utf8').startsWith('#!/usr/bin/env node')) {
      problems.push(`bin ${binary} -> ${target} must start with "#!/usr/bin/env node"`);
    }
  }
  return problems;
}

/**
 * What a packed tarball must (not) contain, and a manifest with every workspace/catalog range resolved.
 * @param {Record<string, any>} manifest the workspace manifest
 * @param {string[]} paths the tarball's file paths, relative to `package/`
 * @param {Record<string, any>} packedManifest the package.json inside the tarball
 * @returns {string[]}
 */
export function tarballProblems(manifest, paths, packedManifest) {
  const problems = [];
  const required = ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts'];
  const bins = manifest.bin ?? {};
  for (const target of Object.values(typeof bins === 'string' ? { bin: bins } : bins)) {
    required.push(target.replace(/^\.\//, ''));
  }
  for (const path of required) if (!paths.includes(path)) problems.push(`missing ${path}`);
  for (const path of [...paths].sort()) {
    if (
      /^(src|test|tests)\//.test(path) ||
      /\.test(-d)?\.[cm]?[jt]s/.test(path) ||
      /(^|\/)(tsconfig|tsup\.config|vitest\.config)/.test(path)
    ) {
      problems.push(`ships a development file: ${path}`);
    }
  }
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(packedManifest[field] ?? {})) {
      if (/^(workspace|catalog|link|file):/.test(String(range))) {
        problems.push(`${field}.${name} is "${range}" in the tarball`);
      }
    }
  }
  if (packedManifest.version !== manifest.version) problems.push(`tarball version ${packedManifest.version}`);
  return problems;
}

/**
 * The wire format VERSIONING.md freezes, for the release check's two-choice question (Preview; Production, described,
 * default): tokens `choice_<i>`, the field `choice` titled `Choice`, and the `acpkit.dev/choice-description` _meta key.
 * @param {any} request the `elicitation/create` params a client received
 * @param {string} question
 * @returns {string[]}
 */
export function wireFormatProblems(request, question) {
  if (!request) return ['the client received no elicitation/create request'];
  const problems = [];
  const expect = (actual, expected, what) => {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      problems.push(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
    }
  };
  const schema = request.requestedSchema;
  const choice = schema?.properties?.choice;
  expect(request.mode, 'form', 'mode');
  expect(request.message, question, 'message');
  expect(schema?.type, 'object', 'requestedSchema.type');
  expect(schema?.required, ['choice'], 'requestedSchema.required');
  expect(Object.keys(schema?.properties ?? {}), ['choice'], 'requestedSchema.properties');
  expect(choice?.type, 'string', 'choice.type');
  expect(choice?.title, 'Choice', 'choice.title');
  expect(choice?.default, 'choice_1', 'choice.default');
  expect(
    choice?.oneOf,
    [
      { const: 'choice_0', title: 'Preview' },
      {
        const: 'choice_1',
        title: 'Production',
        description: 'Deploy to the production environment.',
        _meta: { 'acpkit.dev/choice-description': 'Deploy to the production environment.' },
      },
    ],
    'choice.oneOf',
  );
  return problems;
}
