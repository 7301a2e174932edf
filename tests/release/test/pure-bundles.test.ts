// The pure packages (Biome's noNodejsModules override: the error root and the two compilers) stay pure as built: their
// bundles import no Node builtin, and no package but the dependencies their manifests declare.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from './support/scratch-workspace.js';

/**
 * Every module specifier a bundle loads (static imports and re-exports, side-effect imports, `import()`,
 * `require()`), read by TypeScript's own pre-processor so that comments and strings never count.
 */
function importedSpecifiers(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
}

function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0] ?? specifier);
}

/** `@scope/name` or `name` of a bare specifier. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? specifier);
}

/** The package folders Biome holds to `noNodejsModules`, read from biome.json so the two lists cannot drift. */
function purePackageDirectories(): string[] {
  const biome = JSON.parse(readFileSync(join(repositoryRoot, 'biome.json'), 'utf8')) as {
    overrides: Array<{ includes: string[]; linter?: { rules?: { correctness?: Record<string, string> } } }>;
  };
  return biome.overrides
    .filter((override) => override.linter?.rules?.correctness?.noNodejsModules === 'error')
    .flatMap((override) => override.includes)
    .map((include) => include.replace(/\/src\/\*\*$/, ''));
}

describe('pure packages as built', () => {
  it('finds node: and builtin imports (self-check of the detector)', () => {
    const sample = [
      '// import { x } from "node:comment-only";',
      'import { readFile } from "node:fs";',
      'import "path";',
      "export * from './x.js';",
      "const m = await import('os');",
      'require("crypto");',
    ].join('\n');
    expect(importedSpecifiers(sample).filter(isNodeBuiltin)).toEqual(['node:fs', 'path', 'os', 'crypto']);
  });

  it('are the error root and the two compilers', () => {
    expect(purePackageDirectories().sort()).toEqual([
      'packages/choice-schema',
      'packages/errors',
      'packages/form-schema',
    ]);
  });

  it.each(purePackageDirectories())(
    '%s imports no Node builtin and only its declared dependencies',
    (directory) => {
      const dist = join(repositoryRoot, directory, 'dist');
      expect(existsSync(dist), `build ${directory} first`).toBe(true);
      const manifest = JSON.parse(readFileSync(join(repositoryRoot, directory, 'package.json'), 'utf8')) as {
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
      };
      const declared = new Set([
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
      ]);
      const bundles = readdirSync(dist).filter((name) => name.endsWith('.js'));
      expect(bundles).toContain('index.js');
      for (const bundle of bundles) {
        const specifiers = importedSpecifiers(readFileSync(join(dist, bundle), 'utf8'));
        expect(specifiers.filter(isNodeBuiltin), bundle).toEqual([]);
        const undeclared = specifiers
          .filter((specifier) => !specifier.startsWith('.'))
          .map(packageName)
          .filter((name) => !declared.has(name));
        expect(undeclared, bundle).toEqual([]);
      }
    },
  );
});
