// `attw --profile esm-only` for every packed tarball in the release check's own process: @arethetypeswrong/core, the
// library under the attw CLI, with the CLI's esm-only profile and exit rule. One process loads TypeScript once for
// all thirteen packages instead of one `attw` process each (~1.5 CPU-s a start).
import { readFile } from 'node:fs/promises';
import { checkPackage, createPackageFromTarballData } from '@arethetypeswrong/core';
import { problemKindInfo } from '@arethetypeswrong/core/problems';

/** The attw CLI's `esm-only` profile: an ESM-only package is not resolved from CommonJS or by node10. */
const ESM_ONLY_IGNORED_RESOLUTIONS = ['node10', 'node16-cjs'];

/**
 * What attw reports about a tarball under the esm-only profile, one line per problem; empty when it passes.
 * @param {string} tarball
 * @returns {Promise<string[]>}
 */
export async function typeResolutionProblems(tarball) {
  const analysis = await checkPackage(createPackageFromTarballData(new Uint8Array(await readFile(tarball))));
  if (!analysis.types) return ['ships no types'];
  return analysis.problems
    .filter(
      (problem) =>
        !('resolutionKind' in problem) || !ESM_ONLY_IGNORED_RESOLUTIONS.includes(problem.resolutionKind),
    )
    .map((problem) => {
      const where = [problem.entrypoint, problem.resolutionKind].filter(Boolean).join(' ');
      return `${problem.kind}${where ? ` (${where})` : ''}: ${problemKindInfo[problem.kind].description}`;
    });
}
