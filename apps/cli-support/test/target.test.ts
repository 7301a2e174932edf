import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CliError, CliErrorCode } from '../src/errors.js';
import { agentSource, instantiateAgent, isAgentApp, loadTarget } from '../src/target.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

async function loadError(specifier: string): Promise<CliError> {
  try {
    await loadTarget(specifier, { cwd: fixtures });
  } catch (error) {
    expect(CliError.isInstance(error)).toBe(true);
    return error as CliError;
  }
  throw new Error(`loadTarget(${specifier}) did not throw`);
}

describe('loadTarget', () => {
  it('loads the default export when no export is named', async () => {
    const target = await loadTarget('agents.js', { cwd: fixtures });
    expect(target.kind).toBe('app');
    expect(target.exportName).toBe('default');
    expect(target.modulePath).toBe(`${fixtures}agents.js`);
  });

  it('resolves a module path given without its extension', async () => {
    const target = await loadTarget('./agents:app', { cwd: fixtures });
    expect(target.kind).toBe('app');
    expect(target.exportName).toBe('app');
  });

  it('classifies a function export as a factory and hands the validation instance to the first caller', async () => {
    const target = await loadTarget('./agents.js:createAgent', { cwd: fixtures });
    expect(target.kind).toBe('factory');
    const { factoryCount } = (await import(`${fixtures}agents.js`)) as { factoryCount: () => number };
    const before = factoryCount();
    const first = await instantiateAgent(target);
    expect(factoryCount()).toBe(before);
    const second = await instantiateAgent(target);
    expect(factoryCount()).toBe(before + 1);
    expect(isAgentApp(first) && isAgentApp(second)).toBe(true);
    expect(first).not.toBe(second);
  });

  it('awaits an async factory', async () => {
    const target = await loadTarget('./agents.js:createAgentAsync', { cwd: fixtures });
    expect(target.kind).toBe('factory');
    expect(isAgentApp(await instantiateAgent(target))).toBe(true);
  });

  it('loads a .ts TARGET without a build step', async () => {
    const target = await loadTarget('typescript-agent.ts', { cwd: fixtures });
    expect(target.kind).toBe('factory');
    expect(isAgentApp(await instantiateAgent(target))).toBe(true);
    const named = await loadTarget('typescript-agent:createTypedAgent', { cwd: fixtures });
    expect(named.exportName).toBe('createTypedAgent');
  });

  it('gives serveAcp the app itself or the factory', async () => {
    const appTarget = await loadTarget('agents.js:app', { cwd: fixtures });
    expect(agentSource(appTarget)).toBe(appTarget.kind === 'app' ? appTarget.app : undefined);
    const factoryTarget = await loadTarget('agents.js:createAgent', { cwd: fixtures });
    expect(typeof agentSource(factoryTarget)).toBe('function');
  });

  it('throws TARGET_NOT_FOUND for a missing file or a directory', async () => {
    expect((await loadError('./missing.js')).code).toBe(CliErrorCode.TargetNotFound);
    expect((await loadError('.')).code).toBe(CliErrorCode.TargetNotFound);
  });

  it('throws TARGET_IMPORT_FAILED with the cause when the module throws', async () => {
    const error = await loadError('./broken.js');
    expect(error.code).toBe(CliErrorCode.TargetImportFailed);
    expect((error.cause as Error).message).toBe('broken at import');
  });

  it('throws TARGET_EXPORT_MISSING and lists the exports', async () => {
    const error = await loadError('./agents.js:nope');
    expect(error.code).toBe(CliErrorCode.TargetExportMissing);
    expect(error.message).toContain('createAgent');
  });

  it.each(['clientApp', 'notAnAgent', 'returnsNothing', 'throwsOnCall', 'SomeClass'])(
    'throws TARGET_NOT_AGENT for the %s export',
    async (exportName) => {
      expect((await loadError(`./agents.js:${exportName}`)).code).toBe(CliErrorCode.TargetNotAgent);
    },
  );
});
