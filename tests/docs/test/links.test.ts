// Every relative link of the documentation points at a file that exists (a package README once linked a
// ./CHANGELOG.md that changesets only writes at the first release), and every #anchor into a Markdown file names a
// heading of it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingAnchor, headingAnchors, markdownLinks } from '../src/links.js';
import { documentedMarkdownFiles } from '../src/sources.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const files = [...documentedMarkdownFiles(repositoryRoot), 'docs/internal/contracts.md'];
const read = (file: string) => readFileSync(join(repositoryRoot, file), 'utf8');

function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const { target, line } of markdownLinks(read(file))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
    const [path = '', anchor] = target.split('#');
    const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path));
    const where = `${file}:${line} -> ${target}`;
    if (!existsSync(join(repositoryRoot, resolved))) {
      broken.push(`${where} (no such file)`);
    } else if (anchor !== undefined && anchor !== '' && resolved.endsWith('.md')) {
      if (!headingAnchors(read(resolved)).has(anchor)) broken.push(`${where} (no such heading)`);
    }
  }
  return broken;
}

describe('links in the documentation', () => {
  it('covers the READMEs, the docs and the contributor notes', () => {
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'packages/testing/README.md', 'docs/versioning.md']),
    );
  });

  it.each(files)('%s links only to files and headings that exist', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });
});

describe('headingAnchor', () => {
  it('builds the anchors GitHub builds', () => {
    expect(headingAnchor('Why `@acpkit/compat-1.6` exists')).toBe('why-acpkitcompat-16-exists');
    expect(headingAnchor('Cutting a release')).toBe('cutting-a-release');
    expect(headingAnchor('`acpkit client [options] -- COMMAND...`')).toBe('acpkit-client-options----command');
  });
});
