// The repository's scripts stop what they start with the product's own process-group teardown:
// `spawnProcessGroup` from the built `@acpkit/remote` (the root scripts that run these build it first).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = fileURLToPath(new URL('../packages/remote/dist/index.js', import.meta.url));
if (!existsSync(entry)) {
  throw new Error(`packages/remote is not built (missing ${entry}); run \`pnpm build\` first`);
}

/** @type {typeof import('../packages/remote/dist/index.js').spawnProcessGroup} */
export const { spawnProcessGroup } = await import(pathToFileURL(entry).href);
