// `pnpm run docs` runs TypeDoc over typedoc.json (a bare `pnpm docs` is passed through to `npm docs`); building the site takes minutes on a small machine, so the test run
// checks the configuration instead: one entry point per public package, each with the curated src/index.ts, and the
// output in the git-ignored docs/api/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PUBLIC_PACKAGE_DIRECTORIES } from '../src/sources.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const readJson = (path: string) => JSON.parse(readFileSync(join(repositoryRoot, path), 'utf8'));

describe('typedoc.json', () => {
  const configuration = readJson('typedoc.json');

  it('has one entry point per public package, each documented from its src/index.ts', () => {
    expect(configuration.entryPointStrategy).toBe('packages');
    expect([...configuration.entryPoints].sort()).toEqual([...PUBLIC_PACKAGE_DIRECTORIES].sort());
    expect(configuration.packageOptions.entryPoints).toEqual(['src/index.ts']);
    for (const directory of PUBLIC_PACKAGE_DIRECTORIES) {
      expect(existsSync(join(repositoryRoot, directory, 'src/index.ts')), directory).toBe(true);
      expect(readJson(`${directory}/package.json`).private, directory).not.toBe(true);
    }
  });

  it('lists every publishable workspace package under packages/ and apps/', () => {
    const publishable = ['packages', 'apps']
      .flatMap((parent) =>
        readdirSync(join(repositoryRoot, parent), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${parent}/${entry.name}`),
      )
      .filter((directory) => existsSync(join(repositoryRoot, directory, 'package.json')))
      .filter((directory) => readJson(`${directory}/package.json`).private !== true);
    expect(publishable.sort()).toEqual([...PUBLIC_PACKAGE_DIRECTORIES].sort());
  });

  it('writes to docs/api/, which git ignores, and is run by the root "docs" script', () => {
    expect(configuration.out).toBe('docs/api');
    expect(readFileSync(join(repositoryRoot, '.gitignore'), 'utf8').split('\n')).toContain('docs/api/');
    expect(readJson('package.json').scripts.docs).toMatch(/\btypedoc$/);
  });
});
