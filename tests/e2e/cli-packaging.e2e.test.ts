// What the built CLIs ship: no copy of their package.json (with its workspace: and catalog: ranges) bundled into
// dist, no published type that names the private @acpkit/cli-support, and a --version read from the manifest.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from './support/paths.js';
import { runCliToExit } from './support/processes.js';

const CLIS = [
  { cli: 'acpremote', directory: 'apps/acpremote' },
  { cli: 'acpkit', directory: 'apps/acpkit' },
] as const;

function distFiles(directory: string, extension: string): string[] {
  const dist = join(repositoryRoot, directory, 'dist');
  return readdirSync(dist)
    .filter((file) => file.endsWith(extension))
    .map((file) => join(dist, file));
}

describe.each(CLIS)('the built $cli', ({ cli, directory }) => {
  const manifest = JSON.parse(readFileSync(join(repositoryRoot, directory, 'package.json'), 'utf8'));

  it('bundles no package.json: no workspace:/catalog: ranges and no devDependencies in dist', () => {
    for (const file of distFiles(directory, '.js')) {
      const code = readFileSync(file, 'utf8');
      expect(code, file).not.toMatch(/["'](workspace|catalog):/);
      expect(code, file).not.toContain('devDependencies');
    }
  });

  it('inlines MainOptions into its .d.ts instead of importing the private cli-support package', () => {
    const declarations = distFiles(directory, '.d.ts').map((file) => readFileSync(file, 'utf8'));
    expect(declarations.join('\n')).not.toContain('@acpkit/cli-support');
    const index = readFileSync(join(repositoryRoot, directory, 'dist/index.d.ts'), 'utf8');
    expect(index).toContain('interface MainOptions');
    expect(index).toContain('readonly onStopSignal?:');
  });

  it('prints the version of its manifest', async () => {
    const result = await runCliToExit(cli, ['--version']);
    expect(result.stdout).toBe(`${manifest.version}\n`);
    expect(result.code).toBe(0);
  });
});
