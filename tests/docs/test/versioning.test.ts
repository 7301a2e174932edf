// docs/versioning.md and VERSIONING.md name every publishable package (from the manifests), say that none has been
// released yet instead of claiming they "are published", and explain to a newcomer why @acpkit/compat-1.6 exists.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServerMetadata, buildServerPaths } from '@acpkit/remote/internal';
import { describe, expect, it } from 'vitest';
import { markdownSection } from '../src/cli-help.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const read = (file: string) => readFileSync(join(repositoryRoot, file), 'utf8');

const publicPackages = ['packages', 'apps']
  .flatMap((parent) =>
    readdirSync(join(repositoryRoot, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => JSON.parse(read(`${parent}/${entry.name}/package.json`))),
  )
  .filter((manifest) => manifest.private !== true)
  .map((manifest) => manifest.name as string);

describe.each(['docs/versioning.md', 'VERSIONING.md'])('%s', (file) => {
  const text = read(file);

  it('names every publishable package', () => {
    expect(publicPackages.length).toBeGreaterThanOrEqual(7);
    for (const name of publicPackages) expect(text, name).toContain(`\`${name}\``);
  });

  it('does not claim the packages are already published', () => {
    expect(text).not.toMatch(/\bare published\b|\bpublishes (six|seven|\w+) packages\b/i);
    expect(text).toMatch(/none has been\s+released/i);
  });

  it('links the explanation of why the compatibility package exists', () => {
    expect(text).toMatch(
      /\((\.\.\/)?docs\/versioning\.md#why-acpkitcompat-16-exists\)|^## Why `@acpkit\/compat-1\.6` exists$/m,
    );
  });
});

describe('why @acpkit/compat-1.6 exists', () => {
  const section = markdownSection(read('docs/versioning.md'), '## Why `@acpkit/compat-1.6` exists') ?? '';

  it('tells the Python ACP Kit history a newcomer needs', () => {
    expect(section).toContain('Python [ACP Kit]');
    expect(section).toContain('**Python ACP Kit 1.6.0**');
    expect(section).toContain('**1.6.1**');
    expect(section).toContain('`legacyFallback()`');
    expect(section).toContain('`ACPKIT_DEP001`');
  });

  it('is linked from the README and the shim README', () => {
    expect(read('README.md')).toContain('(docs/versioning.md#why-acpkitcompat-16-exists)');
    expect(read('packages/compat-1.6/README.md')).toContain(
      '(../../docs/versioning.md#why-acpkitcompat-16-exists)',
    );
  });
});

describe('VERSIONING.md', () => {
  it('lists every metadata key the server serves as public API', () => {
    const row = read('VERSIONING.md')
      .split('\n')
      .find((line) => line.includes('**Metadata JSON keys**'));
    const listed = [...(row ?? '').split('|')[1]!.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]);
    const served = Object.keys(
      buildServerMetadata({
        paths: buildServerPaths('/acp'),
        authRequired: true,
        maxMessageBytes: 1024,
        remoteCwd: '/srv',
        useUnstableProtocol: false,
      }),
    );
    expect(listed.sort()).toEqual(served.sort());
  });
});
