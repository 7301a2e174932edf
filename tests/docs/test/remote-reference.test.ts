// docs/remote-transport.md lists the metadata keys, the close codes and the options of @acpkit/remote; the tables
// must match what the built package serves and declares.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CloseCode, connectAcp, RemoteProtocol, serveCommand, silentLogger } from '@acpkit/remote';
import { buildServerMetadata, buildServerPaths } from '@acpkit/remote/internal';
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

/** The families of a Prometheus text scrape: type and the label names their samples carry (`le` aside). */
function scrapedFamilies(text: string): Map<string, { type: string; labels: Set<string> }> {
  const families = new Map<string, { type: string; labels: Set<string> }>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    families.set(name as string, { type: type as string, labels: new Set() });
  }
  for (const [, sample, labels] of text.matchAll(/^([a-z_]+)\{([^}]*)\} /gm)) {
    const family =
      families.get(sample as string) ?? families.get((sample as string).replace(/_(bucket|sum|count)$/, ''));
    for (const [, label] of (labels as string).matchAll(/([a-z_]+)="/g)) {
      if (label !== 'le') family?.labels.add(label as string);
    }
  }
  return families;
}

describe('docs/remote-transport.md metrics', () => {
  it('lists every metric /metrics serves, with its type and labels', async () => {
    // A server that saw one connection and one agent exit, so every labelled family has a sample.
    const server = await serveCommand([process.execPath, '-e', 'process.stdin.resume()'], {
      port: 0,
      metrics: true,
      logger: silentLogger,
    });
    try {
      const connection = await connectAcp(server.url, { logger: silentLogger });
      await connection.close();
      let text = '';
      while (!/acpremote_child_process_exits_total\{/.test(text)) {
        text = await (await fetch(`http://127.0.0.1:${server.port}${RemoteProtocol.metricsPath}`)).text();
      }
      const scraped = scrapedFamilies(text);

      const table = markdownSection(page, '### Metrics') ?? '';
      const rows = [...table.matchAll(/^\| `(acpremote_[a-z_]+)` *\| (\w+) *\| ([^|]+)\|/gm)];
      const documented = new Map(
        rows.map(([, name, type, labels]) => [
          name as string,
          {
            type: type as string,
            labels: [...(labels as string).matchAll(/`([a-z_]+)`/g)].map((match) => match[1]),
          },
        ]),
      );
      expect([...documented.keys()].sort()).toEqual([...scraped.keys()].sort());
      for (const [name, { type, labels }] of documented) {
        expect(type, name).toBe(scraped.get(name)?.type);
        expect(labels.sort(), name).toEqual([...(scraped.get(name)?.labels ?? [])].sort());
      }
    } finally {
      await server.close();
    }
  });
});

describe('docs/remote-transport.md metrics on a fresh server', () => {
  it('has every documented series and label value in the first scrape, at 0', async () => {
    const server = await serveCommand([process.execPath, '-e', 'process.stdin.resume()'], {
      port: 0,
      metrics: true,
      logger: silentLogger,
    });
    let text: string;
    try {
      text = await (await fetch(`http://127.0.0.1:${server.port}${RemoteProtocol.metricsPath}`)).text();
    } finally {
      await server.close();
    }
    const samples = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    for (const sample of samples) expect(sample).toMatch(/ 0$/);
    const section = markdownSection(page, '### Metrics') ?? '';
    const families = [...section.matchAll(/^\| `(acpremote_[a-z_]+)` *\| (\w+) *\|/gm)].map(
      (match) => match[1],
    );
    expect(families.length).toBeGreaterThan(10);
    for (const family of families) {
      expect(
        samples.some((sample) => new RegExp(`^${family}(_bucket|_sum|_count)?[{ ]`).test(sample)),
        family,
      ).toBe(true);
    }
    const valueRows = [...section.matchAll(/^\| ((?:`acpremote_[a-z_]+`(?:, )?)+) *\| (.+)\|$/gm)];
    expect(valueRows.length).toBeGreaterThan(4);
    for (const [, metricCell, valuesCell] of valueRows) {
      const metrics = [...(metricCell as string).matchAll(/`(acpremote_[a-z_]+)`/g)].map((match) => match[1]);
      for (const [, label, list] of (valuesCell as string).matchAll(/`([a-z_]+)`: ((?:`[^`]+`(?:, )?)+)/g)) {
        for (const [, value] of (list as string).matchAll(/`([^`]+)`/g)) {
          for (const metric of metrics) {
            const present = samples.some((sample) =>
              new RegExp(`^${metric}(_bucket|_sum|_count)?\\{[^}]*\\b${label}="${value}"`).test(sample),
            );
            expect(present, `${metric}{${label}="${value}"}`).toBe(true);
          }
        }
      }
    }
  });
});
