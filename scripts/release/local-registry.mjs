#!/usr/bin/env node
// A throwaway npm registry for the release check: Verdaccio (installed from the npm registry into the check's scratch
// directory, never a workspace dependency) on 127.0.0.1 and a port the OS picks, with its own storage directory.
// It serves `@acpkit/*` only, from what is published to it: no uplink, so an install proves our publish. A consumer
// takes the scope from it (`@acpkit:registry=`) and every other package from its usual registry and npm's cache, as
// it would once we publish; proxying those through Verdaccio cost CPU and proved nothing about our packages. Prints
// `local registry at http://127.0.0.1:<port>/` on stderr once it listens; stops on SIGTERM/SIGINT.
//
//   node scripts/release/local-registry.mjs --verdaccio DIR --storage DIR
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { verdaccio: { type: 'string' }, storage: { type: 'string' } },
});
if (!values.verdaccio || !values.storage) {
  console.error('usage: local-registry.mjs --verdaccio DIR --storage DIR');
  process.exit(2);
}

mkdirSync(values.storage, { recursive: true });
const configPath = join(values.storage, 'config.yaml');
// Anyone may publish and read: the registry lives for one check, on loopback only.
writeFileSync(
  configPath,
  `storage: ${JSON.stringify(join(values.storage, 'packages'))}
auth:
  htpasswd:
    file: ${JSON.stringify(join(values.storage, 'htpasswd'))}
    max_users: 100
packages:
  '@acpkit/*':
    access: $all
    publish: $all
    unpublish: $all
log: { type: stdout, format: pretty, level: warn }
`,
);

const requireFromVerdaccio = createRequire(join(values.verdaccio, 'package.json'));
const { runServer } = await import(pathToFileURL(requireFromVerdaccio.resolve('verdaccio')).href);
const app = await runServer(configPath);
const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  console.error(`local registry at http://127.0.0.1:${port}/`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
