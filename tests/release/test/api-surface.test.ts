import { describe, expect, it } from 'vitest';
import { type ApiSurface, compareWithSnapshot, readSnapshot } from '../../../scripts/release/api-surface.mjs';

// The built packages' exports against the snapshot are compared by release:check ("API surface matches
// tests/release/api-surface.json"), on the packed tarballs installed with npm: the same `api-surface.mjs --check`
// on what a user installs. Here: the snapshot's shape and the comparison itself.
describe('API-surface snapshot (tests/release/api-surface.json)', () => {
  it('records one entry per public package', () => {
    expect(Object.keys(readSnapshot())).toEqual([
      '@acpkit/acpremote',
      '@acpkit/ai-sdk',
      '@acpkit/choice-schema',
      '@acpkit/cli',
      '@acpkit/compat-1.6',
      '@acpkit/elicitation',
      '@acpkit/errors',
      '@acpkit/form-schema',
      '@acpkit/langchain',
      '@acpkit/remote',
      '@acpkit/sessions',
      '@acpkit/testing',
      '@acpkit/web-client',
    ]);
  });
});

describe('compareWithSnapshot', () => {
  const snapshot = { '@acpkit/x': { runtime: ['askChoice', 'Result'], types: ['Options'] } };
  const same: ApiSurface = {
    '@acpkit/x': {
      runtime: ['Result', 'askChoice'],
      declaredValues: ['Result', 'askChoice'],
      types: ['Options'],
    },
  };

  it('reports nothing when the exports match in any order', () => {
    expect(compareWithSnapshot(same, snapshot)).toEqual([]);
  });

  it('reports added and removed runtime and type-only exports', () => {
    const changed: ApiSurface = {
      '@acpkit/x': {
        runtime: ['askChoice', 'added'],
        declaredValues: ['askChoice', 'added'],
        types: ['NewOptions'],
      },
    };
    expect(compareWithSnapshot(changed, snapshot)).toEqual([
      '@acpkit/x: new runtime export added',
      '@acpkit/x: runtime export Result is gone',
      '@acpkit/x: new type-only export NewOptions',
      '@acpkit/x: type-only export Options is gone',
    ]);
  });

  it('reports a .d.ts that disagrees with the JavaScript', () => {
    const lying: ApiSurface = {
      '@acpkit/x': {
        runtime: ['Result', 'askChoice'],
        declaredValues: ['askChoice', 'ghost'],
        types: ['Options'],
      },
    };
    expect(compareWithSnapshot(lying, snapshot)).toEqual([
      '@acpkit/x: ghost is declared as a value in the .d.ts but missing at runtime',
      '@acpkit/x: Result is exported at runtime but not declared as a value in the .d.ts',
    ]);
  });

  it('reports new, vanished and unreadable packages', () => {
    expect(compareWithSnapshot({ '@acpkit/y': same['@acpkit/x']! }, snapshot)).toEqual([
      '@acpkit/x: in the snapshot but not inspected (removed or renamed package?)',
      '@acpkit/y: not in the snapshot (a new public package: run the update and review it)',
    ]);
    expect(compareWithSnapshot({ '@acpkit/x': { error: 'no .d.ts shipped' } }, snapshot)).toEqual([
      '@acpkit/x: no .d.ts shipped',
    ]);
  });
});
