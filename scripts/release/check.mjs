#!/usr/bin/env node
// `pnpm release:check`: proves, before any publish, that every public package works as a user gets it from npm.
// It builds, packs each public package with pnpm (as a release would), lints it (our manifest rules, and
// publint --strict and attw --profile esm-only on that tarball), installs all tarballs together with npm into a
// fresh project outside the workspace, and there: compares the API surface with the committed snapshot, runs
// askChoice through `import` and `require()`, runs the installed `acpremote` and `acpkit` binaries (--version,
// --help, serve/expose + mirror round trips driven by an SDK client over stdio), and type-checks a consumer against
// the packed .d.ts files. Beside that, the full publish path (registry-steps.mjs): Verdaccio from the npm registry as a local
// registry on a port the OS picks, `changeset publish` to it, and in a fresh project `npm install @acpkit/elicitation
// @acpkit/ai-sdk @acpkit/langchain` from it, an AI SDK agent built with tsc and a LangChain agent, run over stdio.
//
// The parts: steps.mjs (the step runner and its report), processes.mjs (every program it starts, reaped on every
// exit path), package-steps.mjs (build, lint, pack, install), consumer-steps.mjs (what runs in the installed
// project) and registry-steps.mjs (publish to a local registry, install from it). Exit code 0 only when every step passed. Temporary directories and every spawned process are removed on
// every exit path.
//
//   node scripts/release/check.mjs [--keep] [--node PATH]...
//
// --keep leaves the scratch directory for inspection. Each --node names another Node binary (the test command passes
// Node 22 and 24 from the npm registry): the installed packages and binaries are then also run on it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { consumerSteps } from './consumer-steps.mjs';
import { packageSteps } from './package-steps.mjs';
import { consumerEnvironment, reapChildren } from './processes.mjs';
import { registrySteps } from './registry-steps.mjs';
import { printSummary, recordCrash } from './steps.mjs';

const { values: flags } = parseArgs({
  options: {
    keep: { type: 'boolean', default: false },
    node: { type: 'string', multiple: true, default: [] },
  },
});

/** The temporary directory of this run, removed on every exit path (also on SIGINT/SIGTERM). */
let scratchDirectory = '';

async function main() {
  const scratch = mkdtempSync(join(tmpdir(), 'acpkit-release-check-'));
  scratchDirectory = scratch;
  const tarballs = join(scratch, 'tarballs');
  const consumer = join(scratch, 'consumer');
  mkdirSync(tarballs);
  mkdirSync(consumer);
  const environment = consumerEnvironment();
  console.log(`release:check scratch directory: ${scratch}`);
  try {
    const packages = await packageSteps({ tarballs, consumer, environment });
    if (packages.length === 0) return;
    // The two halves share nothing but the built packages, and each mostly waits (on npm, the registry, tsc): side by
    // side they take ~the longer one's time instead of the sum (~50 s less). Their steps' lines may interleave.
    const installedTarballs = async () => {
      await consumerSteps({ packages, consumer, environment });
      for (const node of flags.node) {
        const version = execFileSync(node, ['--print', 'process.versions.node'], { encoding: 'utf8' }).trim();
        await consumerSteps({ packages, consumer, environment, runtime: { node, version } });
      }
    };
    // Both settle before the scratch directory goes, even when one crashes.
    const halves = await Promise.allSettled([
      installedTarballs(),
      registrySteps({ packages, scratch, environment }),
    ]);
    const crash = halves.find((half) => half.status === 'rejected');
    if (crash) throw crash.reason;
  } finally {
    await reapChildren();
    if (flags.keep) console.log(`\nKept ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  }
}

// Ctrl+C or a CI timeout: reap what we started before leaving.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.log(`\nrelease:check interrupted by ${signal}; stopping child processes`);
    void reapChildren().finally(() => {
      if (scratchDirectory && !flags.keep) rmSync(scratchDirectory, { recursive: true, force: true });
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  });
}

const started = Date.now();
try {
  await main();
} catch (error) {
  recordCrash(error);
}
process.exitCode = printSummary(started);
