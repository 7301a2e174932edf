import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The publishable packages; each README must carry at least one compiled TypeScript example. */
export const PUBLIC_PACKAGE_DIRECTORIES = [
  'packages/errors',
  'packages/choice-schema',
  'packages/form-schema',
  'packages/elicitation',
  'packages/compat-1.6',
  'packages/remote',
  'packages/testing',
  'packages/ai-sdk',
  'packages/web-client',
  'packages/sessions',
  'packages/langchain',
  'apps/acpremote',
  'apps/acpkit',
] as const;

function markdownFilesIn(repositoryRoot: string, directory: string): string[] {
  const absolute = join(repositoryRoot, directory);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md') && entry.name !== 'CHANGELOG.md')
    .map((entry) => (directory === '.' ? entry.name : `${directory}/${entry.name}`))
    .sort();
}

function readmesUnder(repositoryRoot: string, parent: string): string[] {
  const absolute = join(repositoryRoot, parent);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(absolute, entry.name, 'README.md')))
    .map((entry) => `${parent}/${entry.name}/README.md`)
    .sort();
}

/**
 * Every Markdown file whose TypeScript examples are type-checked, relative to the repository: the root `*.md`
 * (README, CONTRIBUTING, VERSIONING, …), `packages/*\/README.md`, the two CLI READMEs, `examples/*\/README.md` and `docs/*.md` (not `docs/internal/`,
 * which holds contributor notes with interface sketches).
 *
 * @example
 * ```ts
 * documentedMarkdownFiles('/work/main'); // ['CONTRIBUTING.md', 'README.md', …, 'docs/cli.md', …]
 * ```
 */
export function documentedMarkdownFiles(repositoryRoot: string): string[] {
  const files = [
    ...markdownFilesIn(repositoryRoot, '.'),
    ...readmesUnder(repositoryRoot, 'packages'),
    'apps/acpremote/README.md',
    'apps/acpkit/README.md',
    ...readmesUnder(repositoryRoot, 'examples'),
    ...markdownFilesIn(repositoryRoot, 'docs'),
  ];
  return files.filter((file) => existsSync(join(repositoryRoot, file)));
}
