import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const packageDirectory = new URL('..', import.meta.url).pathname;
const bundle = new URL('../dist/index.js', import.meta.url).pathname;

// A real Node process: the warning goes through process.emitWarning to stderr exactly once, however often the
// legacy fallback returns a plain value, and --no-deprecation silences it.
const script = `
import { legacyFallback } from ${JSON.stringify(bundle)};
const fallback = legacyFallback(() => 'a');
for (let round = 0; round < 3; round += 1) await fallback();
await legacyFallback(async () => 'b')();
`;

function run(extraArguments: string[]) {
  return spawnSync(process.execPath, [...extraArguments, '--input-type=module', '--eval', script], {
    cwd: packageDirectory,
    encoding: 'utf8',
    timeout: 15_000,
  });
}

describe('legacyFallback in a real process', () => {
  it('prints the ACPKIT_DEP001 DeprecationWarning once per process', () => {
    expect(
      existsSync(bundle),
      'build @acpkit/compat-1.6 first (pnpm --filter @acpkit/compat-1.6... build)',
    ).toBe(true);
    const result = run([]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.match(/\[ACPKIT_DEP001\] DeprecationWarning/g)).toHaveLength(1);
    expect(result.stderr).toContain('plain value');
  });

  it('respects --no-deprecation', () => {
    const result = run(['--no-deprecation']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('ACPKIT_DEP001');
  });
});
