// Types for package-rules.mjs, so the TypeScript tests in tests/release can import it.

export declare function importedPackages(files: string[]): Set<string>;
export declare function hygieneProblems(publicPackage: {
  manifest: Record<string, unknown>;
  directory: string;
  absolute: string;
}): string[];
export declare function tarballProblems(
  manifest: Record<string, unknown>,
  paths: string[],
  packedManifest: Record<string, unknown>,
): string[];
export declare function wireFormatProblems(request: unknown, question: string): string[];
