// docs/remote-transport.md lists the metadata keys, the close codes and the options of @acpkit/remote; the tables
// must match what the built package serves and declares.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServerMetadata, buildServerPaths, CloseCode } from '@acpkit/remote';
import { describe, expect, it } from 'vitest';
import { markdownSection } from '../src/cli-help.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const page = readFileSync(join(repositoryRoot, 'docs/remote-transport.md'), 'utf8');
const declarations = readFileSync(join(repositoryRoot, 'packages/remote/dist/index.d.ts'), 'utf8');

/** The first-column values of every table row in a section: `| \`key\` | …` → `key`. */
function firstColumn(section: string): string[] {
  return [...section.matchAll(/^\| `([^`]+)` *\|/gm)].map((match) => match[1] as string);
}

/** The property names of an exported interface in the built declarations. */
function interfaceProperties(name: string): string[] {
  const body =
    new RegExp(`interface ${name}(?: extends [^{]+)? \\{([\\s\\S]*?)\\n\\}`).exec(declarations)?.[1] ?? '';
  return [...body.matchAll(/^ {4}(?:readonly )?([a-zA-Z]+)\??:/gm)].map((match) => match[1] as string);
}

describe('docs/remote-transport.md', () => {
  it('lists exactly the metadata keys the server serves', () => {
    const metadata = buildServerMetadata({
      paths: buildServerPaths('/acp'),
      authRequired: true,
      maxMessageBytes: 1024,
      remoteCwd: '/srv',
      useUnstableProtocol: false,
    });
    const documented = firstColumn(markdownSection(page, '## Metadata keys') ?? '');
    expect(documented.sort()).toEqual(Object.keys(metadata).sort());
  });

  it('lists every close code the package defines, plus 1006', () => {
    const table = markdownSection(page, '## Close codes') ?? '';
    const documented = firstColumn(table.replace(/^\| (\d+) +\|/gm, '| `$1` |')).map(Number);
    const defined = Object.values(CloseCode);
    expect(documented.sort((a, b) => a - b)).toEqual([...defined, 1006].sort((a, b) => a - b));
  });

  it.each([
    ['ServeOptions', '`ServeOptions`'],
    ['CommandOptions', '`CommandOptions`'],
    ['ConnectOptions', '`ConnectOptions`'],
    ['MirrorOptions', '`MirrorOptions`', 'ConnectOptions'],
  ])('documents every option of %s', (name, heading, inherited?: string) => {
    const options = markdownSection(page, '## Options') ?? '';
    // Each options table follows the paragraph that names the interface.
    const start = options.indexOf(heading);
    const table = options.slice(start, options.indexOf('\n\n', options.indexOf('| ---', start)));
    // A table of an interface that extends another lists only its own fields, after naming the one it extends.
    const properties = interfaceProperties(name);
    expect(properties.length).toBeGreaterThan(3);
    if (inherited) expect(table).toContain(`every \`${inherited}\` field`);
    expect(firstColumn(table).sort()).toEqual(properties.sort());
  });
});
