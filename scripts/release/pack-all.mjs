#!/usr/bin/env node
// `pnpm pack:all`: builds every public package and packs each, as a release would, into one folder of tarballs, so
// ACP Kit can be installed in a project outside this repository before (or without) a publish. Prints the npm
// install command and the pnpm overrides that use the tarballs.
//
//   node scripts/release/pack-all.mjs [--out DIR]      (default: ./packed)
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { reapChildren, root } from './processes.mjs';
import { buildPackages, listPublicPackages, packPackage } from './public-packages.mjs';

const { values: flags } = parseArgs({ options: { out: { type: 'string', default: join(root, 'packed') } } });
const out = resolve(flags.out);

try {
  const packages = await listPublicPackages();
  console.error(`Building ${packages.length} public packages…`);
  await buildPackages(packages.map((publicPackage) => publicPackage.name));
  mkdirSync(out, { recursive: true });
  // Tarballs of an earlier run (older versions) would be picked up by `npm install DIR/*.tgz`.
  for (const file of readdirSync(out)) if (file.endsWith('.tgz')) rmSync(join(out, file));
  const packed = [];
  for (const publicPackage of packages) {
    const { filename } = await packPackage(publicPackage, out);
    packed.push({ name: publicPackage.name, file: join(out, basename(filename)) });
    console.error(
      `  ${publicPackage.name}@${publicPackage.manifest.version} → ${join(out, basename(filename))}`,
    );
  }
  const overrides = Object.fromEntries(packed.map(({ name, file }) => [name, `file:${file}`]));
  console.log(`Packed ${packed.length} packages into ${out}

Use them in your project (npm takes every @acpkit package from the tarballs in one install):
  npm install ${out}/*.tgz @agentclientprotocol/sdk

With pnpm, add these overrides to your package.json, then \`pnpm add @acpkit/elicitation @agentclientprotocol/sdk\`:
${JSON.stringify({ pnpm: { overrides } }, null, 2)}`);
} catch (error) {
  console.error(`pack:all failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await reapChildren();
}
