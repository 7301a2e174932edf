// Types for api-surface.mjs, so the TypeScript tests in tests/release can import it.

/** Per package: runtime export names, value exports declared in the .d.ts, and type-only exports; or why not. */
export type ApiSurface = Record<
  string,
  { runtime: string[]; declaredValues: string[]; types: string[] } | { error: string }
>;

/** The committed snapshot: per package, runtime export names and type-only export names. */
export type ApiSnapshot = Record<string, { runtime: string[]; types: string[] }>;

export declare const snapshotPath: string;
export declare function readApiSurface(projectDirectory: string, packageNames: string[]): Promise<ApiSurface>;
export declare function readSnapshot(): ApiSnapshot;
export declare function compareWithSnapshot(surface: ApiSurface, snapshot: ApiSnapshot): string[];
export declare function writeSnapshot(surface: ApiSurface): string[];
