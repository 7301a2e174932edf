import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const distDirectory = new URL('../dist/', import.meta.url).pathname;

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

describe('built bundle', () => {
  it('finds node: and builtin imports (self-check of the detector)', () => {
    const sample = [
      '// import { x } from "node:comment-only";',
      'import { readFile } from "node:fs";',
      'import "path";',
      "export * from './x.js';",
      "const m = await import('os');",
      'require("crypto");',
    ].join('\n');
    const specifiers = importedSpecifiers(sample);
    expect(specifiers.filter(isNodeBuiltin)).toEqual(['node:fs', 'path', 'os', 'crypto']);
  });

  it('imports no node: module and no Node builtin', () => {
    expect(
      existsSync(distDirectory),
      'build @acpkit/form-schema first (pnpm --filter @acpkit/form-schema... build)',
    ).toBe(true);
    const bundles = readdirSync(distDirectory).filter((name) => name.endsWith('.js'));
    expect(bundles).toContain('index.js');
    for (const bundle of bundles) {
      const source = readFileSync(join(distDirectory, bundle), 'utf8');
      expect(importedSpecifiers(source).filter(isNodeBuiltin), bundle).toEqual([]);
      // Only its declared dependencies: zod (peer), the token scheme of @acpkit/choice-schema, the error root.
      const packages = importedSpecifiers(source).filter((specifier) => !specifier.startsWith('.'));
      expect(
        packages.filter(
          (specifier) =>
            specifier !== 'zod' && specifier !== '@acpkit/choice-schema' && specifier !== '@acpkit/errors',
        ),
        bundle,
      ).toEqual([]);
    }
  });
});
