import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileChoiceElicitation } from '@acpkit/choice-schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  hygieneProblems,
  tarballProblems,
  wireFormatProblems,
} from '../../../scripts/release/package-rules.mjs';
import { listWorkspacePackages, repositoryRoot } from './support/scratch-workspace.js';

/** A library manifest that follows every rule; each test breaks one thing. */
function goodLibraryManifest(): Record<string, unknown> {
  return {
    name: '@acpkit/example',
    version: '0.1.0',
    description: 'An example library used to test the release rules.',
    license: 'MIT',
    type: 'module',
    sideEffects: false,
    exports: {
      '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      './package.json': './package.json',
    },
    files: ['dist', 'README.md', 'LICENSE', 'CHANGELOG.md'],
    engines: { node: '^20.19.0 || >=22.12.0' },
    repository: { type: 'git', url: 'git+https://example.invalid/acpkit.git', directory: 'packages/example' },
    publishConfig: { access: 'public' },
    dependencies: { ws: '^8.23.1' },
    peerDependencies: { '@agentclientprotocol/sdk': '^2.4.0' },
    devDependencies: { zod: 'catalog:' },
  };
}

let packageFolder = '';

async function writeDist(javascript: string, declarations: string) {
  await writeFile(join(packageFolder, 'dist', 'index.js'), javascript);
  await writeFile(join(packageFolder, 'dist', 'index.d.ts'), declarations);
}

function check(manifest: Record<string, unknown>) {
  return hygieneProblems({ manifest, directory: 'packages/example', absolute: packageFolder });
}

beforeEach(async () => {
  packageFolder = await mkdtemp(join(tmpdir(), 'acpkit-package-rules-'));
  await mkdir(join(packageFolder, 'dist'));
  await writeFile(join(packageFolder, 'README.md'), '# @acpkit/example\n');
  await writeFile(join(packageFolder, 'LICENSE'), 'MIT\n');
  await writeDist(
    "import { WebSocket } from 'ws';\nimport { readFile } from 'node:fs';\nimport { x } from './chunk.js';\nexport { WebSocket, readFile, x };\n",
    "import type { AgentContext } from '@agentclientprotocol/sdk';\nexport declare function f(client: AgentContext): void;\n",
  );
});

afterEach(async () => {
  await rm(packageFolder, { recursive: true, force: true });
});

describe('hygieneProblems', () => {
  it('accepts a library that follows every rule', () => {
    expect(check(goodLibraryManifest())).toEqual([]);
  });

  it('passes every real public package (built dist included)', async () => {
    const packages = (await listWorkspacePackages()).filter(
      (workspacePackage) => !workspacePackage.manifest.private,
    );
    for (const workspacePackage of packages) {
      const manifest = JSON.parse(
        await readFile(join(repositoryRoot, workspacePackage.directory, 'package.json'), 'utf8'),
      ) as Record<string, unknown>;
      expect(
        hygieneProblems({
          manifest,
          directory: workspacePackage.directory,
          absolute: join(repositoryRoot, workspacePackage.directory),
        }),
        workspacePackage.name,
      ).toEqual([]);
    }
  });

  it('names each broken manifest rule', () => {
    const manifest = goodLibraryManifest();
    delete manifest.sideEffects;
    manifest.files = ['dist'];
    manifest.exports = { '.': { default: './dist/index.js', types: './dist/index.d.ts' } };
    manifest.engines = { node: '>=18' };
    manifest.repository = { url: 'git+https://example.invalid/acpkit.git', directory: 'packages/elsewhere' };
    manifest.description = 'A lib.';
    expect(check(manifest)).toEqual([
      'description must say what the package is',
      'files must list README.md',
      'files must list LICENSE',
      'exports must include "./package.json"',
      'exports["."] must list "types" first and a "default"',
      'engines.node must be "^20.19.0 || >=22.12.0" (is >=18)',
      'repository.directory must be "packages/example" (is packages/elsewhere)',
      'a library must declare "sideEffects": false',
    ]);
  });

  it('requires the SDK as a ^2.4.0 peer when its types cross the API', () => {
    const manifest = goodLibraryManifest();
    manifest.peerDependencies = {};
    manifest.dependencies = { ws: '^8.23.1', '@agentclientprotocol/sdk': '^2.4.0' };
    expect(check(manifest)).toEqual([
      'its .d.ts uses @agentclientprotocol/sdk: declare peerDependencies["@agentclientprotocol/sdk"]: "^2.4.0"',
    ]);
  });

  it('requires zod as a ^4 peer, never a dependency (an exact pin would install a second copy)', () => {
    const pinned = goodLibraryManifest();
    pinned.dependencies = { ws: '^8.23.1', zod: '4.6.7' };
    const problem = 'it uses zod: declare peerDependencies["zod"]: "^4" (and no dependencies["zod"])';
    expect(check(pinned)).toEqual([problem]);
    const both = goodLibraryManifest();
    both.dependencies = { ws: '^8.23.1', zod: '^4' };
    both.peerDependencies = { '@agentclientprotocol/sdk': '^2.4.0', zod: '^4' };
    expect(check(both)).toEqual([problem]);
    const peer = goodLibraryManifest();
    peer.peerDependencies = { '@agentclientprotocol/sdk': '^2.4.0', zod: '^4' };
    expect(check(peer)).toEqual([]);
  });

  it('rejects a built import that only a dev dependency provides, but ignores TSDoc examples', async () => {
    await writeDist(
      "import { z } from 'zod';\nexport { z };\n",
      "/**\n * @example\n * import { legacyFallback } from '@acpkit/compat-1.6';\n */\nexport declare const z: unknown;\n",
    );
    expect(check(goodLibraryManifest())).toEqual([
      'it uses zod: declare peerDependencies["zod"]: "^4" (and no dependencies["zod"])',
      'dist .js imports "zod", which is not in dependencies or peerDependencies',
    ]);
  });

  it('checks that each bin exists and starts with a node shebang', async () => {
    const manifest = {
      ...goodLibraryManifest(),
      bin: { example: './dist/cli.js', missing: './dist/gone.js' },
    };
    await writeFile(join(packageFolder, 'dist', 'cli.js'), "console.log('no shebang');\n");
    expect(check(manifest)).toEqual([
      'bin example -> ./dist/cli.js must start with "#!/usr/bin/env node"',
      'bin missing -> ./dist/gone.js does not exist after the build',
    ]);
  });
});

describe('tarballProblems', () => {
  const manifest = { ...goodLibraryManifest(), bin: { example: './dist/cli.js' } };
  const shipped = ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/cli.js'];
  const packed = { ...manifest, dependencies: { '@acpkit/choice-schema': '^0.1.0', ws: '^8.23.1' } };

  it('accepts a tarball with dist, README, LICENSE and resolved ranges', () => {
    expect(tarballProblems(manifest, shipped, packed)).toEqual([]);
  });

  it('rejects missing files, development files and unresolved workspace or catalog ranges', () => {
    const paths = [...shipped.filter((path) => path !== 'LICENSE'), 'src/index.ts', 'dist/index.test.js'];
    const unresolved = {
      ...packed,
      dependencies: { '@acpkit/choice-schema': 'workspace:^', zod: 'catalog:' },
    };
    expect(tarballProblems(manifest, paths, unresolved)).toEqual([
      'missing LICENSE',
      'ships a development file: dist/index.test.js',
      'ships a development file: src/index.ts',
      'dependencies.@acpkit/choice-schema is "workspace:^" in the tarball',
      'dependencies.zod is "catalog:" in the tarball',
    ]);
  });
});

describe('wireFormatProblems', () => {
  const question = 'Choose a deployment target';
  const choices = [
    { value: 'preview', label: 'Preview' },
    {
      value: 'production',
      label: 'Production',
      description: 'Deploy to the production environment.',
      default: true,
    },
  ];

  it("accepts what @acpkit/choice-schema's compiler sends", () => {
    const params = compileChoiceElicitation({ sessionId: 'session-1', question, choices });
    expect(wireFormatProblems(params, question)).toEqual([]);
  });

  it('reports renamed tokens, field titles and a missing _meta key', () => {
    const compiled: unknown = structuredClone(
      compileChoiceElicitation({ sessionId: 'session-1', question, choices }),
    );
    const params = compiled as {
      requestedSchema: { properties: { choice: { title: string; oneOf: Array<Record<string, unknown>> } } };
    };
    params.requestedSchema.properties.choice.title = 'Target';
    params.requestedSchema.properties.choice.oneOf[0]!.const = 'opt_0';
    delete params.requestedSchema.properties.choice.oneOf[1]!._meta;
    const problems = wireFormatProblems(params, question);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toBe('choice.title: expected "Choice", got "Target"');
    expect(problems[1]).toMatch(/^choice\.oneOf: expected .*"opt_0"/);
    expect(wireFormatProblems(undefined, question)).toEqual([
      'the client received no elicitation/create request',
    ]);
  });
});
