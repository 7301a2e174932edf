// Runtime deprecation warnings of @acpkit/remote: their codes and a once-per-process emitter.

/** Deprecation warning codes of `@acpkit/remote` (VERSIONING.md keeps the table of them). */
export const RemoteDeprecationCode = {
  /** `connectAcp` given `useUnstableProtocol`, `hostOwnership` or `emitLatencyMeta`, which only `runMirror` uses. */
  ConnectMirrorOnlyOptions: 'ACPKIT_DEP006',
} as const;

const WARNED = Symbol.for('acpkit.remote.deprecations-warned');

/**
 * Emits a `DeprecationWarning` once per process and code, even with two copies of the package loaded (the registry
 * of codes already warned lives on `globalThis` under a `Symbol.for` key).
 */
export function warnDeprecatedOnce(code: string, message: string): void {
  const registry = globalThis as typeof globalThis & { [WARNED]?: Set<string> };
  registry[WARNED] ??= new Set();
  if (registry[WARNED].has(code)) return;
  registry[WARNED].add(code);
  process.emitWarning(message, { type: 'DeprecationWarning', code });
}
