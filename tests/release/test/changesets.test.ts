import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  internalDependencies,
  listWorkspacePackages,
  repositoryRoot,
  ScratchWorkspace,
  type WorkspacePackage,
} from './support/scratch-workspace.js';

type BumpType = 'patch' | 'minor' | 'major';

function parseVersion(version: string): [number, number, number] {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`not a plain x.y.z version: ${JSON.stringify(version)}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function bump(version: string, type: BumpType): string {
  const [major, minor, patch] = parseVersion(version);
  if (type === 'major') return `${major + 1}.0.0`;
  if (type === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** Whether `^base` (what `workspace:^` packs to) still accepts `next`: the semver caret rule, 0.x included. */
function caretAccepts(base: string, next: string): boolean {
  const [baseMajor, baseMinor, basePatch] = parseVersion(base);
  const [nextMajor, nextMinor, nextPatch] = parseVersion(next);
  if (baseMajor > 0) return nextMajor === baseMajor;
  if (baseMinor > 0) return nextMajor === 0 && nextMinor === baseMinor && nextPatch >= basePatch;
  return nextMajor === 0 && nextMinor === 0 && nextPatch === basePatch;
}

/**
 * The release plan our policy promises (VERSIONING.md): the named package moves by its bump type; a public package
 * whose `dependencies` range on a moved sibling no longer accepts the new version gets a patch, repeated until
 * nothing changes; everything else, and every private package, stays where it is.
 */
function expectedReleases(
  publicPackages: readonly WorkspacePackage[],
  name: string,
  type: BumpType,
): Map<string, string> {
  const byName = new Map(publicPackages.map((workspacePackage) => [workspacePackage.name, workspacePackage]));
  const named = byName.get(name);
  if (!named) throw new Error(`${name} is not a public workspace package`);
  const releases = new Map([[name, bump(named.manifest.version, type)]]);
  let changed = true;
  while (changed) {
    changed = false;
    for (const dependent of publicPackages) {
      if (releases.has(dependent.name)) continue;
      for (const dependency of internalDependencies(dependent.manifest, ['dependencies']).keys()) {
        const next = releases.get(dependency);
        const current = byName.get(dependency)?.manifest.version;
        if (next && current && !caretAccepts(current, next)) {
          releases.set(dependent.name, bump(dependent.manifest.version, 'patch'));
          changed = true;
          break;
        }
      }
    }
  }
  return releases;
}

let workspacePackages: WorkspacePackage[] = [];
let publicPackages: WorkspacePackage[] = [];
let privatePackages: WorkspacePackage[] = [];
let scratch: ScratchWorkspace | undefined;

beforeAll(async () => {
  workspacePackages = await listWorkspacePackages();
  publicPackages = workspacePackages.filter((workspacePackage) => workspacePackage.manifest.private !== true);
  privatePackages = workspacePackages.filter(
    (workspacePackage) => workspacePackage.manifest.private === true,
  );
});

afterEach(async () => {
  await scratch?.dispose();
  scratch = undefined;
});

describe('changesets configuration', () => {
  it('versions every public package independently and never versions private ones', async () => {
    const config = JSON.parse(await readFile(join(repositoryRoot, '.changeset', 'config.json'), 'utf8'));
    expect(config.fixed).toEqual([]);
    expect(config.linked).toEqual([]);
    expect(config.privatePackages).toEqual({ version: false, tag: false });
    // The offline generator: the GitHub one needs a token and network access during `changeset version`.
    expect(config.changelog).toBe('@changesets/cli/changelog');
    expect(publicPackages.map((workspacePackage) => workspacePackage.name)).toEqual([
      '@acpkit/acpremote',
      '@acpkit/ai-sdk',
      '@acpkit/choice-schema',
      '@acpkit/cli',
      '@acpkit/compat-1.6',
      '@acpkit/elicitation',
      '@acpkit/errors',
      '@acpkit/form-schema',
      '@acpkit/langchain',
      '@acpkit/remote',
      '@acpkit/sessions',
      '@acpkit/testing',
      '@acpkit/web-client',
    ]);
  });

  it('links public siblings with workspace:^ dependencies and never as peers', () => {
    const publicNames = new Set(publicPackages.map((workspacePackage) => workspacePackage.name));
    for (const workspacePackage of publicPackages) {
      for (const [name, range] of internalDependencies(workspacePackage.manifest, ['dependencies'])) {
        if (publicNames.has(name))
          expect(`${workspacePackage.name} -> ${name}@${range}`).toMatch(/@workspace:\^$/);
      }
      // An out-of-range peer bump makes changesets release the dependent as a major.
      for (const name of Object.keys(workspacePackage.manifest.peerDependencies ?? {})) {
        expect(publicNames.has(name), `${workspacePackage.name} peer-depends on ${name}`).toBe(false);
      }
    }
  });
});

describe('changeset version on a scratch copy of the workspace', () => {
  const scenarios: Array<{ name: string; type: BumpType; alsoMoves: string[] }> = [
    {
      // The error root: every package with errors depends on it; compat-1.6 only through elicitation's patch.
      name: '@acpkit/errors',
      type: 'minor',
      alsoMoves: [
        '@acpkit/acpremote',
        '@acpkit/choice-schema',
        '@acpkit/cli',
        '@acpkit/elicitation',
        '@acpkit/form-schema',
        '@acpkit/remote',
        '@acpkit/testing',
      ],
    },
    {
      name: '@acpkit/choice-schema',
      type: 'minor',
      alsoMoves: ['@acpkit/elicitation', '@acpkit/form-schema', '@acpkit/testing'],
    },
    { name: '@acpkit/form-schema', type: 'minor', alsoMoves: ['@acpkit/elicitation'] },
    { name: '@acpkit/elicitation', type: 'major', alsoMoves: ['@acpkit/compat-1.6'] },
    { name: '@acpkit/remote', type: 'minor', alsoMoves: ['@acpkit/acpremote', '@acpkit/cli'] },
    { name: '@acpkit/remote', type: 'patch', alsoMoves: [] },
    { name: '@acpkit/cli', type: 'minor', alsoMoves: [] },
    { name: '@acpkit/testing', type: 'minor', alsoMoves: ['@acpkit/cli'] },
  ];

  it.each(scenarios)(
    'a $type changeset for $name moves only it and its dependents',
    async ({ name, type, alsoMoves }) => {
      scratch = await ScratchWorkspace.create(workspacePackages);
      const summary = `Release test: ${type} change to ${name}.`;
      await scratch.addChangeset('release-test', { [name]: type }, summary);
      const privateBefore = new Map<string, string | undefined>();
      for (const workspacePackage of privatePackages) {
        privateBefore.set(
          workspacePackage.directory,
          await scratch.readText(join(workspacePackage.directory, 'package.json')),
        );
      }

      await scratch.version();

      const expected = expectedReleases(publicPackages, name, type);
      // The graph edges this scenario exists to exercise: the oracle must not be vacuous.
      expect([...expected.keys()].sort()).toEqual(expect.arrayContaining([name, ...alsoMoves]));
      if (alsoMoves.length === 0) expect([...expected.keys()]).toEqual([name]);

      for (const workspacePackage of publicPackages) {
        const after = await scratch.readManifest(workspacePackage.directory);
        const changelog = await scratch.readText(join(workspacePackage.directory, 'CHANGELOG.md'));
        const nextVersion = expected.get(workspacePackage.name);
        if (nextVersion === undefined) {
          expect(after.version, `${workspacePackage.name} must not move`).toBe(
            workspacePackage.manifest.version,
          );
          expect(changelog, `${workspacePackage.name} must get no CHANGELOG entry`).toBeUndefined();
          continue;
        }
        expect(after.version, `${workspacePackage.name} version`).toBe(nextVersion);
        expect(changelog).toContain(`# ${workspacePackage.name}`);
        expect(changelog).toContain(`## ${nextVersion}`);
        if (workspacePackage.name === name) {
          expect(changelog).toContain(summary);
        } else {
          expect(changelog).toContain('Updated dependencies');
          expect(changelog).toContain(`${name}@${expected.get(name)}`);
        }
      }

      for (const workspacePackage of privatePackages) {
        const text = await scratch.readText(join(workspacePackage.directory, 'package.json'));
        expect(text, `private ${workspacePackage.name} manifest must be untouched`).toBe(
          privateBefore.get(workspacePackage.directory),
        );
        expect(await scratch.readText(join(workspacePackage.directory, 'CHANGELOG.md'))).toBeUndefined();
      }
      // The changeset is consumed by the release it describes.
      expect(await scratch.readText(join('.changeset', 'release-test.md'))).toBeUndefined();

      // Internal ranges: what a dependent ships must require the sibling version this release produced.
      const directoryOf = (dependent: string) =>
        publicPackages.find((workspacePackage) => workspacePackage.name === dependent)!.directory;
      const packedManifests = await scratch.packManifests(alsoMoves.map(directoryOf));
      for (const dependent of alsoMoves) {
        const packed = packedManifests.get(directoryOf(dependent))!;
        expect(packed.version).toBe(expected.get(dependent));
        expect(packed.dependencies?.[name], `${dependent} packed range on ${name}`).toBe(
          `^${expected.get(name)}`,
        );
        expect(JSON.stringify(packed)).not.toContain('workspace:');
      }
    },
  );

  it("versions the repository's pending changesets: they parse and release only public packages", async () => {
    scratch = await ScratchWorkspace.create(workspacePackages);
    const pending = await scratch.copyPendingChangesets();
    // `changeset version` refuses the whole release when one file is malformed; name the file here.
    expect(pending.malformed, 'changesets without valid frontmatter').toEqual([]);
    const publicNames = new Set(publicPackages.map((workspacePackage) => workspacePackage.name));
    for (const name of pending.releases)
      expect(publicNames.has(name), `a changeset releases ${name}`).toBe(true);

    // Fails with changesets' own message (file name and received content) when a changeset is malformed.
    await scratch.version();

    for (const workspacePackage of workspacePackages) {
      const after = await scratch.readManifest(workspacePackage.directory);
      const shouldMove = pending.releases.has(workspacePackage.name);
      if (workspacePackage.manifest.private === true || !shouldMove) {
        // Unnamed public packages may still move as dependents; private ones never do.
        if (workspacePackage.manifest.private === true)
          expect(after.version).toBe(workspacePackage.manifest.version);
        continue;
      }
      expect(after.version, `${workspacePackage.name} is named by a pending changeset`).not.toBe(
        workspacePackage.manifest.version,
      );
    }
    for (const file of pending.files)
      expect(await scratch.readText(join('.changeset', file))).toBeUndefined();
  });

  it('versions nothing when a changeset names only a private package', async () => {
    scratch = await ScratchWorkspace.create(workspacePackages);
    const example = privatePackages.find((workspacePackage) =>
      workspacePackage.directory.startsWith('examples'),
    );
    expect(example, 'an example package exists').toBeDefined();
    await scratch.addChangeset('private-only', { [example!.name]: 'minor' }, 'Private change.');

    await scratch.version();

    for (const workspacePackage of workspacePackages) {
      const after = await scratch.readManifest(workspacePackage.directory);
      expect(after.version, workspacePackage.name).toBe(workspacePackage.manifest.version);
      expect(await scratch.readText(join(workspacePackage.directory, 'CHANGELOG.md'))).toBeUndefined();
    }
  });
});
