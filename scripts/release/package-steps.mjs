// The release check's first half: build each public package, lint its manifest and what it would publish (publint,
// attw, our rules), pack it as a release would, and install all tarballs together with npm into a fresh project.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { hygieneProblems, tarballProblems } from './package-rules.mjs';
import { root, run, tail } from './processes.mjs';
import { assert, hasPassed, parallelSteps, step } from './steps.mjs';

const consumerFixtures = join(root, 'scripts', 'release', 'consumer');
const binaries = join(root, 'node_modules', '.bin');

/** The name of the step after which the consumer project is usable. */
export const installedStep = 'npm install the tarballs into a fresh project';

/** @typedef {{ name: string; directory: string; absolute: string; manifest: Record<string, any>; tarball?: string }} PublicPackage */

/** @returns {Promise<PublicPackage[]>} */
async function listPublicPackages() {
  const { stdout } = await run('pnpm', ['ls', '--recursive', '--depth=-1', '--json']);
  return JSON.parse(stdout)
    .filter((entry) => entry.path !== root.replace(/\/$/, '') && entry.private !== true)
    .map((entry) => {
      const manifest = JSON.parse(readFileSync(join(entry.path, 'package.json'), 'utf8'));
      return { name: manifest.name, directory: relative(root, entry.path), absolute: entry.path, manifest };
    })
    .sort((left, right) => left.name.localeCompare(right.name));
}

/**
 * Checks a packed tarball: what it ships, and a manifest with every workspace/catalog range resolved.
 * @param {PublicPackage} publicPackage
 * @param {{ files: Array<{ path: string }> }} packed
 */
async function checkTarball(publicPackage, packed) {
  const { stdout } = await run('tar', ['-xzOf', publicPackage.tarball, 'package/package.json']);
  const paths = packed.files.map((file) => file.path);
  const problems = tarballProblems(publicPackage.manifest, paths, JSON.parse(stdout));
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return `${paths.length} files`;
}

/**
 * Runs the packaging steps. Resolves with the public packages (each with its `tarball` once packed); an empty list
 * when none could be listed.
 * @param {{ tarballs: string; consumer: string; environment: NodeJS.ProcessEnv }} directories
 * @returns {Promise<PublicPackage[]>}
 */
export async function packageSteps({ tarballs, consumer, environment }) {
  /** @type {PublicPackage[]} */
  let packages = [];
  await step('list public packages', async () => {
    packages = await listPublicPackages();
    assert(packages.length > 0, 'no public workspace packages found');
    return packages
      .map((publicPackage) => `${publicPackage.name}@${publicPackage.manifest.version}`)
      .join(', ');
  });
  if (packages.length === 0) return packages;
  const names = packages.map((publicPackage) => publicPackage.name);

  await step('build', async () => {
    const filters = names.map((name) => `--filter=${name}`);
    await run('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only', ...filters], {
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0' },
      timeoutMs: 600_000,
    });
  });

  for (const publicPackage of packages) {
    await step(
      `package hygiene ${publicPackage.name}`,
      async () => {
        const problems = hygieneProblems(publicPackage);
        if (problems.length > 0) throw new Error(problems.join('\n'));
      },
      { requires: ['build'] },
    );
  }

  if (hasPassed('build')) {
    await parallelSteps(
      packages.flatMap((publicPackage) => [
        {
          name: `publint --strict ${publicPackage.name}`,
          action: async () => {
            const { stdout } = await run(join(binaries, 'publint'), ['--strict', publicPackage.directory]);
            // publint exits 0 on suggestions; --strict turns warnings into errors. Show anything it said.
            const said = stdout
              .split('\n')
              .filter((line) => line && !/^(Running publint|Packing files|Linting)/.test(line));
            return said.join(' ').slice(0, 200);
          },
        },
        {
          name: `pnpm pack ${publicPackage.name}`,
          action: async () => {
            const { stdout } = await run('pnpm', ['pack', '--json', '--pack-destination', tarballs], {
              cwd: publicPackage.absolute,
            });
            const packed = JSON.parse(stdout);
            publicPackage.tarball = packed.filename;
            return checkTarball(publicPackage, packed);
          },
        },
        {
          name: `attw --pack --profile esm-only ${publicPackage.name}`,
          action: async () => {
            await run(
              join(binaries, 'attw'),
              [
                '--pack',
                publicPackage.directory,
                '--profile',
                'esm-only',
                '--format',
                'ascii',
                '--no-emoji',
                '--no-color',
              ],
              { timeoutMs: 180_000 },
            );
            return 'no problems';
          },
        },
      ]),
    );
  }

  await step(
    installedStep,
    async () => {
      writeFileSync(
        join(consumer, 'package.json'),
        `${JSON.stringify({ name: 'acpkit-release-consumer', private: true, type: 'module' }, null, 2)}\n`,
      );
      for (const file of readdirSync(consumerFixtures)) {
        const target = file === 'tsconfig.consumer.json' ? 'tsconfig.json' : file;
        cpSync(join(consumerFixtures, file), join(consumer, target));
      }
      // All tarballs in one install: they depend on each other, and npm must take the siblings from the tarballs
      // while the registry supplies the rest (the SDK peer, ws, commander, ...).
      const tarballPaths = packages.map((publicPackage) => publicPackage.tarball);
      await run(
        'npm',
        [
          'install',
          '--no-audit',
          '--no-fund',
          '--loglevel=error',
          ...tarballPaths,
          '@agentclientprotocol/sdk@^2.4.0',
          '@types/node@^20.19.0',
        ],
        { cwd: consumer, env: environment, timeoutMs: 300_000 },
      );
      const lock = JSON.parse(readFileSync(join(consumer, 'package-lock.json'), 'utf8'));
      const problems = [];
      for (const publicPackage of packages) {
        const entries = Object.entries(lock.packages).filter(([path]) =>
          path.endsWith(`node_modules/${publicPackage.name}`),
        );
        if (entries.length !== 1) problems.push(`${publicPackage.name} is installed ${entries.length} times`);
        for (const [path, entry] of entries) {
          if (!String(entry.resolved ?? '').startsWith('file:')) {
            problems.push(`${path} came from ${entry.resolved ?? 'the registry'}, not from its tarball`);
          }
          if (entry.version !== publicPackage.manifest.version) problems.push(`${path} is ${entry.version}`);
        }
      }
      const sdkCopies = Object.keys(lock.packages).filter((path) =>
        path.endsWith('node_modules/@agentclientprotocol/sdk'),
      );
      if (sdkCopies.length !== 1)
        problems.push(`@agentclientprotocol/sdk is installed ${sdkCopies.length} times: ${sdkCopies}`);
      // npm's own verdict on the tree: a missing or invalid (peer) dependency makes `npm ls` exit non-zero.
      const tree = await run('npm', ['ls', '--all'], {
        cwd: consumer,
        env: environment,
        allowFailure: true,
      });
      if (tree.code !== 0) problems.push(`npm ls reports problems:\n${tail(tree, 20)}`);
      if (problems.length > 0) throw new Error(problems.join('\n'));
      const sdkVersion = lock.packages['node_modules/@agentclientprotocol/sdk'].version;
      return `${Object.keys(lock.packages).length - 1} packages, @agentclientprotocol/sdk@${sdkVersion}`;
    },
    { requires: ['pnpm pack *'] },
  );

  return packages;
}
