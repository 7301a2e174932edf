import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The monorepo root (tests/release/test/support → four levels up). */
export const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** The changesets binary the repository pins (@changesets/cli 2.31.1), never a downloaded one. */
export const changesetBinary = join(repositoryRoot, 'node_modules', '.bin', 'changeset');

const dependencyFields = [
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
] as const;

/** The subset of a package.json these tests read. */
export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  bin?: unknown;
  scripts?: unknown;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** One workspace package: its manifest and its directory relative to the workspace root. */
export interface WorkspacePackage {
  name: string;
  directory: string;
  manifest: Manifest;
}

/**
 * Environment for child pnpm / changesets runs: pnpm's own `npm_config_*` variables from the parent `pnpm test`
 * (and `CI`, which turns on frozen lockfiles) must not leak into the scratch workspace.
 */
export function cleanEnvironment(): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (
      /^(npm_|pnpm_config_)/i.test(key) ||
      key === 'PNPM_SCRIPT_SRC_DIR' ||
      key === 'CI' ||
      key === 'INIT_CWD'
    ) {
      continue;
    }
    environment[key] = value;
  }
  return { ...environment, FORCE_COLOR: '0', NO_COLOR: '1' };
}

/** Lists every workspace package of the real repository (pnpm's own view, so it follows pnpm-workspace.yaml). */
export async function listWorkspacePackages(): Promise<WorkspacePackage[]> {
  const { stdout } = await execFileAsync('pnpm', ['ls', '--recursive', '--depth=-1', '--json'], {
    cwd: repositoryRoot,
    env: cleanEnvironment(),
  });
  const listed = JSON.parse(stdout) as Array<{ name: string; path: string }>;
  const packages: WorkspacePackage[] = [];
  for (const entry of listed) {
    const directory = relative(repositoryRoot, entry.path);
    if (directory === '') continue; // the private root is not a release unit
    const manifest = JSON.parse(await readFile(join(entry.path, 'package.json'), 'utf8')) as Manifest;
    packages.push({ name: manifest.name, directory, manifest });
  }
  return packages.sort((left, right) => left.name.localeCompare(right.name));
}

/** Names of the internal (`workspace:`) dependencies a manifest declares in `fields`. */
export function internalDependencies(
  manifest: Manifest,
  fields: readonly (typeof dependencyFields)[number][] = dependencyFields,
): Map<string, string> {
  const found = new Map<string, string>();
  for (const field of fields) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (range.startsWith('workspace:')) found.set(name, range);
    }
  }
  return found;
}

/**
 * A temporary copy of the workspace that `changeset version` can read: the root manifest, pnpm-workspace.yaml,
 * `.changeset/config.json` and every package manifest at its real relative path. Source code is not needed.
 */
export class ScratchWorkspace {
  private installed = false;

  private constructor(
    readonly root: string,
    readonly packages: readonly WorkspacePackage[],
  ) {}

  static async create(packages: readonly WorkspacePackage[]): Promise<ScratchWorkspace> {
    const root = await mkdtemp(join(tmpdir(), 'acpkit-changesets-'));
    await copyFile(join(repositoryRoot, 'package.json'), join(root, 'package.json'));
    await copyFile(join(repositoryRoot, 'pnpm-workspace.yaml'), join(root, 'pnpm-workspace.yaml'));
    await mkdir(join(root, '.changeset'));
    await copyFile(
      join(repositoryRoot, '.changeset', 'config.json'),
      join(root, '.changeset', 'config.json'),
    );
    for (const workspacePackage of packages) {
      await mkdir(join(root, workspacePackage.directory), { recursive: true });
      await copyFile(
        join(repositoryRoot, workspacePackage.directory, 'package.json'),
        join(root, workspacePackage.directory, 'package.json'),
      );
    }
    return new ScratchWorkspace(root, packages);
  }

  /** Writes `.changeset/<slug>.md` with the usual frontmatter and one summary paragraph. */
  async addChangeset(slug: string, releases: Record<string, 'patch' | 'minor' | 'major'>, summary: string) {
    const frontmatter = Object.entries(releases)
      .map(([name, type]) => `'${name}': ${type}`)
      .join('\n');
    await writeFile(join(this.root, '.changeset', `${slug}.md`), `---\n${frontmatter}\n---\n\n${summary}\n`);
  }

  /**
   * Copies the repository's pending changesets (every `.changeset/*.md` but the README) and returns the package names
   * their frontmatter releases, plus the files whose frontmatter is not a list of `'name': patch|minor|major` lines.
   */
  async copyPendingChangesets(): Promise<{ files: string[]; releases: Set<string>; malformed: string[] }> {
    const directory = join(repositoryRoot, '.changeset');
    const files = (await readdir(directory))
      .filter((file) => file.endsWith('.md') && file !== 'README.md')
      .sort();
    const releases = new Set<string>();
    const malformed: string[] = [];
    for (const file of files) {
      const text = await readFile(join(directory, file), 'utf8');
      await writeFile(join(this.root, '.changeset', file), text);
      const frontmatter = /^---\r?\n([\s\S]*?)\r?\n?---\r?\n/.exec(text)?.[1];
      const lines = frontmatter?.split(/\r?\n/).filter((line) => line.trim() !== '') ?? [];
      const release = /^\s*["']?([^"':\s]+)["']?\s*:\s*(patch|minor|major)\s*$/;
      if (frontmatter === undefined || lines.some((line) => !release.test(line))) {
        malformed.push(`${file}: ${JSON.stringify(text.slice(0, 80))}`);
        continue;
      }
      for (const line of lines) releases.add(release.exec(line)![1]!);
    }
    return { files, releases, malformed };
  }

  /** Runs the pinned `changeset version` in the scratch workspace. */
  async version(): Promise<string> {
    const { stdout, stderr } = await execFileAsync(changesetBinary, ['version'], {
      cwd: this.root,
      env: cleanEnvironment(),
    });
    return `${stdout}${stderr}`;
  }

  async readManifest(directory: string): Promise<Manifest> {
    return JSON.parse(await readFile(join(this.root, directory, 'package.json'), 'utf8')) as Manifest;
  }

  async readText(path: string): Promise<string | undefined> {
    try {
      return await readFile(join(this.root, path), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /**
   * Packs packages the way a release would (pnpm rewrites `workspace:` ranges at pack time) and returns each packed
   * manifest by directory: what is checked is how pnpm resolves the internal ranges after `changeset version`. One
   * filtered `pnpm pack` packs them all (as `pnpm publish -r` would), not one pnpm process per package.
   */
  async packManifests(directories: readonly string[]): Promise<Map<string, Manifest>> {
    const manifests = new Map<string, Manifest>();
    if (directories.length === 0) return manifests;
    await this.installWorkspaceLinks();
    const destination = join(this.root, '.packed');
    await mkdir(destination, { recursive: true });
    const filters = directories.flatMap((directory) => ['--filter', `./${directory}`]);
    const { stdout } = await execFileAsync(
      'pnpm',
      [...filters, 'pack', '--json', '--pack-destination', destination],
      { cwd: this.root, env: cleanEnvironment() },
    );
    const parsed = JSON.parse(stdout) as
      | { name: string; filename: string }
      | { name: string; filename: string }[];
    const packed = Array.isArray(parsed) ? parsed : [parsed];
    for (const directory of directories) {
      const { name } =
        this.packages.find((workspacePackage) => workspacePackage.directory === directory) ?? {};
      const tarball = packed.find((entry) => entry.name === name)?.filename;
      if (tarball === undefined) throw new Error(`pnpm pack did not pack ${directory}: ${stdout}`);
      const { stdout: manifest } = await execFileAsync('tar', ['-xzOf', tarball, 'package/package.json'], {
        cwd: dirname(tarball),
      });
      manifests.set(directory, JSON.parse(manifest) as Manifest);
    }
    return manifests;
  }

  /**
   * Links every internal dependency into `<package>/node_modules` by hand, the layout `pnpm install` produces for
   * workspace packages. pnpm pack reads the linked sibling's manifest to rewrite a `workspace:` range; a real
   * install of the scratch copy gives the same links but costs seconds per scenario on a busy 2-core machine.
   */
  private async installWorkspaceLinks(): Promise<void> {
    if (this.installed) return;
    this.installed = true;
    const directories = new Map(
      this.packages.map((workspacePackage) => [workspacePackage.name, workspacePackage.directory]),
    );
    for (const workspacePackage of this.packages) {
      const manifest = await this.readManifest(workspacePackage.directory);
      for (const name of internalDependencies(manifest).keys()) {
        const target = directories.get(name);
        if (target === undefined)
          throw new Error(`${workspacePackage.name} depends on unknown workspace package ${name}`);
        const link = join(this.root, workspacePackage.directory, 'node_modules', name);
        await mkdir(dirname(link), { recursive: true });
        await symlink(join(this.root, target), link, 'dir');
      }
    }
  }

  async dispose(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}
