// The release check's full publish path: Verdaccio from the npm registry as a throwaway local registry (a port the OS
// picks, its own storage in the scratch directory), `changeset publish` of every public package to it, then what a
// newcomer does in a fresh project: `npm install @acpkit/elicitation @acpkit/ai-sdk @acpkit/langchain` from that
// registry, build an AI SDK agent with tsc, and run it and a LangChain agent over stdio against an SDK client.
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';
import { keptFolder } from '../kept-folder.mjs';
import { root, run, start } from './processes.mjs';
import { assert, step } from './steps.mjs';

/** The Verdaccio the check installs (exact: the check must not change under us). */
const VERDACCIO = 'verdaccio@6.10.4';
const registryConsumerFixtures = join(root, 'scripts', 'release', 'registry-consumer');
/** Written last into a Verdaccio install folder: the install there is complete. */
const INSTALLED = '.installed';

/** Where the check keeps its Verdaccio: `$XDG_CACHE_HOME/acpkit-release-check/verdaccio@<version>`. */
function verdaccioInstall() {
  return join(keptFolder('acpkit-release-check'), VERDACCIO);
}

/**
 * A folder holding a `pnpm` that answers `pnpm --version` with the real pnpm's version, asked once, and runs the real
 * pnpm for everything else, for the front of `changeset publish`'s PATH: changesets asks `pnpm --version` again for
 * every package it publishes (only to pick `--no-git-checks`), and each answer cost a pnpm start (~0.9 CPU-s, 13 a
 * run). Every publish is still the real `pnpm publish`.
 * @param {string} scratch
 * @returns {Promise<string>}
 */
async function pnpmVersionAnswerer(scratch) {
  const folder = join(scratch, 'pnpm-version');
  mkdirSync(folder, { recursive: true });
  const pnpm = (await run('sh', ['-c', 'command -v pnpm'])).stdout.trim();
  const version = (await run(pnpm, ['--version'])).stdout.trim();
  assert(/^\d+\.\d+\.\d+/.test(version), `pnpm --version said ${JSON.stringify(version)}`);
  const script = join(folder, 'pnpm');
  writeFileSync(
    script,
    `#!/bin/sh\nif [ "$#" -eq 1 ] && [ "$1" = --version ]; then echo ${version}; exit 0; fi\nexec ${JSON.stringify(pnpm)} "$@"\n`,
    { mode: 0o755 },
  );
  return folder;
}

/**
 * Runs the registry steps; the registry is stopped before this resolves.
 * @param {{ packages: import('./public-packages.mjs').PublicPackage[]; scratch: string; environment: NodeJS.ProcessEnv }} options
 */
export async function registrySteps({ packages, scratch, environment }) {
  const verdaccio = verdaccioInstall();
  const newcomer = join(scratch, 'newcomer');
  mkdirSync(newcomer);
  await step(`npm install ${VERDACCIO} (the local registry)`, async () => {
    // Kept between runs beside npm's own cache, as `npx` keeps what it installs: Verdaccio is the check's tool, not
    // what it checks (~200 packages, ~25 CPU-s to install). A folder counts only once npm has finished in it.
    if (existsSync(join(verdaccio, INSTALLED))) return `reused ${verdaccio}`;
    const installing = mkdtempSync(`${verdaccio}.installing-`);
    writeFileSync(join(installing, 'package.json'), '{ "private": true }\n');
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline', VERDACCIO],
      { cwd: installing, env: environment, timeoutMs: 300_000 },
    );
    writeFileSync(join(installing, INSTALLED), `${VERDACCIO}\n`);
    rmSync(verdaccio, { recursive: true, force: true });
    renameSync(installing, verdaccio);
    return `installed in ${verdaccio}`;
  });

  /** @type {ReturnType<typeof start> | undefined} */
  let registry;
  let url = '';
  try {
    await step(
      'start the local registry',
      async () => {
        registry = start(
          process.execPath,
          [
            join(root, 'scripts', 'release', 'local-registry.mjs'),
            '--verdaccio',
            verdaccio,
            '--storage',
            join(scratch, 'registry-storage'),
          ],
          { cwd: scratch, env: environment },
        );
        url = (await registry.waitForStderr(/local registry at (http:\/\/127\.0\.0\.1:\d+\/)/, 60_000))[1];
        return url;
      },
      { requires: [`npm install ${VERDACCIO} (the local registry)`] },
    );

    const publisherConfig = join(scratch, 'publisher.npmrc');
    await step(
      'changeset publish to the local registry',
      async () => {
        // A user of the registry, as `npm adduser` would create it; its token publishes.
        const response = await fetch(new URL('-/user/org.couchdb.user:release-check', url), {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'release-check', password: 'release-check-password' }),
        });
        const { token } = /** @type {{ token?: string }} */ (await response.json());
        assert(
          response.ok && typeof token === 'string',
          `the registry created no user (HTTP ${response.status})`,
        );
        const host = url.replace(/^http:/, '');
        writeFileSync(publisherConfig, `registry=${url}\n${host}:_authToken=${token}\n`);
        // --no-git-tag: a check must not tag the repository. Only loopback is reached: no extra CA bundle for the
        // ~50 npm and pnpm processes to parse.
        const { NODE_EXTRA_CA_CERTS: _certificates, ...publishEnvironment } = process.env;
        const { stdout, stderr } = await run('pnpm', ['exec', 'changeset', 'publish', '--no-git-tag'], {
          env: {
            ...publishEnvironment,
            PATH: `${await pnpmVersionAnswerer(scratch)}${delimiter}${process.env.PATH}`,
            npm_config_registry: url,
            npm_config_userconfig: publisherConfig,
          },
          timeoutMs: 600_000,
        });
        const said = `${stdout}\n${stderr}`;
        const missing = packages.filter(
          (publicPackage) => !said.includes(`${publicPackage.name}@${publicPackage.manifest.version}`),
        );
        assert(
          missing.length === 0,
          `changeset publish did not publish ${missing.map((p) => p.name)}\n${said}`,
        );
        return `${packages.length} packages`;
      },
      { requires: ['start the local registry'] },
    );

    await step(
      'npm install @acpkit/elicitation @acpkit/ai-sdk @acpkit/langchain from the local registry in a fresh project',
      async () => {
        cpSync(registryConsumerFixtures, newcomer, { recursive: true });
        // Named apart in the repository so that no workspace tool takes it for a project of its own.
        renameSync(join(newcomer, 'tsconfig.consumer.json'), join(newcomer, 'tsconfig.json'));
        writeFileSync(
          join(newcomer, 'package.json'),
          `${JSON.stringify({ name: 'newcomer', private: true, type: 'module', scripts: { build: 'tsc' } }, null, 2)}\n`,
        );
        // The scope from the local registry, everything else from the usual one (Verdaccio has no uplink).
        writeFileSync(join(newcomer, '.npmrc'), `@acpkit:registry=${url}\n`);
        const major = Number(process.versions.node.split('.')[0]) >= 22 ? 7 : 6;
        await run(
          'npm',
          [
            'install',
            '--no-audit',
            '--no-fund',
            '--loglevel=error',
            '@acpkit/elicitation',
            '@acpkit/ai-sdk',
            '@acpkit/langchain',
            '@agentclientprotocol/sdk',
            // @acpkit/langchain's peers, and the package its agent is made with.
            '@langchain/core@1',
            '@langchain/langgraph@1',
            'langchain@1',
            `ai@${major}`,
            'zod',
            'typescript@5.9',
            `@types/node@${process.versions.node.split('.')[0]}`,
            // The AI SDK's declarations import `json-schema` types without depending on them.
            '@types/json-schema',
          ],
          { cwd: newcomer, env: environment, timeoutMs: 300_000 },
        );
        // The integrity of each installed @acpkit package must be that of the tarball `changeset publish` put on the
        // local registry.
        const lock = JSON.parse(readFileSync(join(newcomer, 'package-lock.json'), 'utf8'));
        const ours = Object.entries(lock.packages).filter(([path]) => /node_modules\/@acpkit\//.test(path));
        const problems = [];
        for (const [path, entry] of ours) {
          const name = path.replace(/^.*node_modules\//, '');
          const packument = await (await fetch(new URL(name.replace('/', '%2f'), url))).json();
          const published = packument.versions?.[entry.version]?.dist?.integrity;
          if (published === undefined || published !== entry.integrity) {
            problems.push(`${name}@${entry.version} is not the tarball published to the local registry`);
          }
        }
        assert(
          ours.length >= 3 && problems.length === 0,
          problems.join('\n') || 'no @acpkit package installed',
        );
        return ours
          .map(([path, entry]) => `${path.replace(/^node_modules\//, '')}@${entry.version}`)
          .join(', ');
      },
      { requires: ['changeset publish to the local registry'] },
    );

    await step(
      'build and run an agent in the fresh project',
      async () => {
        // `tsc` with skipLibCheck on, as `tsc --init` sets it: the agent's own code is checked against the published
        // declarations; the declarations themselves (the same files, packed the same way) are checked with skipLibCheck
        // off by the consumer step ("consumer tsc --noEmit against the packed .d.ts"), and checking them again here
        // with the AI SDK's and LangChain's cost ~15 CPU-s.
        await run('npm', ['run', 'build'], { cwd: newcomer, env: environment, timeoutMs: 300_000 });
        const aiSdk = JSON.parse(
          (await run(process.execPath, ['drive.mjs'], { cwd: newcomer, env: environment })).stdout,
        );
        assert(aiSdk.stopReason === 'end_turn', `AI SDK agent: ${JSON.stringify(aiSdk)}`);
        assert(aiSdk.forms[0] === 'Which environment?', `AI SDK agent asked ${JSON.stringify(aiSdk.forms)}`);
        assert(/"answer":"Production"/.test(aiSdk.text), `AI SDK agent said ${aiSdk.text}`);
        const choice = JSON.parse(
          (await run(process.execPath, ['drive.mjs', 'choice'], { cwd: newcomer, env: environment })).stdout,
        );
        assert(choice.text === 'Chosen: production', `askChoice agent said ${JSON.stringify(choice)}`);
        const langchain = JSON.parse(
          (await run(process.execPath, ['drive.mjs', 'langchain'], { cwd: newcomer, env: environment }))
            .stdout,
        );
        assert(langchain.stopReason === 'end_turn', `LangChain agent: ${JSON.stringify(langchain)}`);
        assert(
          langchain.permissions.length === 1,
          `LangChain agent asked ${JSON.stringify(langchain.permissions)}`,
        );
        assert(/Deployed to production\.$/.test(langchain.text), `LangChain agent said ${langchain.text}`);
        return 'askUserTool, askChoice and a LangChain approval answered over stdio';
      },
      {
        requires: [
          'npm install @acpkit/elicitation @acpkit/ai-sdk @acpkit/langchain from the local registry in a fresh project',
        ],
      },
    );
  } finally {
    if (registry !== undefined) {
      registry.child.kill('SIGTERM');
      await registry.exited;
    }
  }
}
