// The release check's first half: build each public package, lint its manifest and what it would publish (publint,
// attw, our rules), pack it as a release would, and install all tarballs together with npm into a fresh project.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hygieneProblems, tarballProblems } from './package-rules.mjs';
import { root, run, tail } from './processes.mjs';
import { buildPackages, listPublicPackages, packPackage } from './public-packages.mjs';
import { assert, hasPassed, parallelSteps, step } from './steps.mjs';
import { typeResolutionProblems } from './type-resolution.mjs';

const consumerFixtures = join(root, 'scripts', 'release', 'consumer');
const binaries = join(root, 'node_modules', '.bin');

/** The name of the step after which the consumer project is usable. */
export const installedStep = 'npm install the tarballs into a fresh project';

/** @typedef {import('./public-packages.mjs').PublicPackage} PublicPackage */

/**
 * The `ai` the consumer installs: the part of @acpkit/ai-sdk's peer range (`^6.x || ^7.x`) for the major this Node runs
 * (ai 7 needs Node 22), as a user on this Node would pick.
 * @param {PublicPackage[]} packages
 */
function aiForThisNode(packages) {
  const range = packages.find((publicPackage) => publicPackage.name === '@acpkit/ai-sdk')?.manifest
    .peerDependencies?.ai;
  if (typeof range !== 'string') throw new Error('@acpkit/ai-sdk has no `ai` peer range');
  const major = Number(process.versions.node.split('.')[0]) >= 22 ? 7 : 6;
  const part = range
    .split('||')
    .map((item) => item.trim())
    .find((item) => item.startsWith(`^${major}.`));
  if (part === undefined) throw new Error(`@acpkit/ai-sdk's ai peer range ${range} has no ai ${major}`);
  return `ai@${part}`;
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
    await buildPackages(names);
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
      packages.map((publicPackage) => ({
        name: `pnpm pack ${publicPackage.name}`,
        action: async () => {
          const packed = await packPackage(publicPackage, tarballs);
          publicPackage.tarball = packed.filename;
          return checkTarball(publicPackage, packed);
        },
      })),
    );
    // publint and attw read the tarball pnpm packed above, the bytes a release publishes, instead of each packing
    // the package again (publint with pnpm, attw --pack with npm).
    const packedPackages = packages.filter((publicPackage) => hasPassed(`pnpm pack ${publicPackage.name}`));
    await parallelSteps(
      packedPackages.flatMap((publicPackage) => [
        {
          name: `publint --strict ${publicPackage.name}`,
          action: async () => {
            const { stdout } = await run(join(binaries, 'publint'), ['--strict', publicPackage.tarball]);
            // publint exits 0 on suggestions; --strict turns warnings into errors. Show anything it said.
            const said = stdout
              .split('\n')
              .filter(
                (line) => line && !/^(Running publint|Packing files|Unpacking tarball|Linting)/.test(line),
              );
            return said.join(' ').slice(0, 200);
          },
        },
        {
          name: `attw --profile esm-only ${publicPackage.name}`,
          action: async () => {
            const problems = await typeResolutionProblems(publicPackage.tarball);
            assert(problems.length === 0, problems.join('\n'));
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
          // The `ai` peer of @acpkit/ai-sdk: the major this Node runs (ai 7 needs Node 22), as a user would pick.
          aiForThisNode(packages),
          '@types/node@^20.19.0',
          // The AI SDK's declarations import `json-schema` types without depending on them (checked below with
          // skipLibCheck off).
          '@types/json-schema@^7.0.15',
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
      // One copy of each shared peer: a second SDK, `ai` or zod breaks instanceof checks and schema identity.
      for (const shared of ['@agentclientprotocol/sdk', 'ai', 'zod']) {
        const copies = Object.keys(lock.packages).filter((path) => path.endsWith(`node_modules/${shared}`));
        if (copies.length !== 1) problems.push(`${shared} is installed ${copies.length} times: ${copies}`);
      }
      // npm's own verdict on the tree: a missing or invalid (peer) dependency makes `npm ls` exit non-zero.
      const tree = await run('npm', ['ls', '--all'], {
        cwd: consumer,
        env: environment,
        allowFailure: true,
      });
      if (tree.code !== 0) problems.push(`npm ls reports problems:\n${tail(tree, 20)}`);
      if (problems.length > 0) throw new Error(problems.join('\n'));
      const versionOf = (name) => `${name}@${lock.packages[`node_modules/${name}`].version}`;
      return `${Object.keys(lock.packages).length - 1} packages, ${['@agentclientprotocol/sdk', 'ai', 'zod'].map(versionOf).join(', ')}`;
    },
    { requires: ['pnpm pack *'] },
  );

  return packages;
}
