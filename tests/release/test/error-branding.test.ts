// Two installed copies of every public package's built output (house style §4.11): an error one copy throws must be
// recognised by the other copy's `instanceof` and `isInstance()`, by its own class and its bases only, with name, code
// and cause intact, and by the other copy's one root, `AcpKitError` of `@acpkit/errors`. The copies are two separate
// node_modules trees of the built dist, so every @acpkit module (the root included) is evaluated twice; third-party
// dependencies are shared, as npm would dedupe them.
import { cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWorkspacePackages, repositoryRoot, type WorkspacePackage } from './support/scratch-workspace.js';

type ErrorClass = (new (...args: never[]) => Error) & { isInstance(value: unknown): boolean };
type Namespace = Record<string, unknown>;

const cause = new Error('root cause');

/**
 * How to build one of each exported error class whose constructor is not `(code, message, { cause })`. A new error
 * class with another signature needs a line here; the test says which one is missing.
 */
const constructors: Record<string, (errorClass: new (...args: never[]) => Error) => Error> = {
  InvalidElicitationResponseError: (C) =>
    new (C as new (...args: unknown[]) => Error)('INVALID_CHOICE', 'bad answer', { action: 'x' }, { cause }),
  ElicitationUnsupportedError: (C) => new (C as new (...args: unknown[]) => Error)('form', { cause }),
  InvalidElicitationFallbackError: (C) =>
    new (C as new (...args: unknown[]) => Error)('FALLBACK_NOT_A_RESULT', 'not a result', 'plain', { cause }),
  ElicitationScopeError: (C) => new (C as new (...args: unknown[]) => Error)('other', 'this'),
  ElicitationConnectionClosedError: (C) => new (C as new (...args: unknown[]) => Error)({ cause }),
  ClientCapabilitiesNotRecordedError: (C) => new (C as new (...args: unknown[]) => Error)('form'),
  // Option errors name the option, what it allows and what it got.
  AcpRemoteOptionError: (C) =>
    new (C as new (...args: unknown[]) => Error)('maxConnections', 'a positive integer', '0', { cause }),
  OptionError: (C) =>
    new (C as new (...args: unknown[]) => Error)('maxSteps', 'a positive integer', '0', { cause }),
  SessionStoreOptionError: (C) =>
    new (C as new (...args: unknown[]) => Error)('limit', 'a positive integer', '0', { cause }),
  WebClientOptionError: (C) =>
    new (C as new (...args: unknown[]) => Error)('command', 'a command to run', 'an empty command', {
      cause,
    }),
  // A refused resume says why and which wire refused it.
  ResumeRefusedError: (C) =>
    new (C as new (...args: unknown[]) => Error)('expired', 'gone', 'durable-resume', { cause }),
  SessionStoreError: (C) =>
    new (C as new (...args: unknown[]) => Error)('STALE_WRITE', 'stale', { sessionId: 's' }, { cause }),
  FormSchemaError: (C) =>
    new (C as new (...args: unknown[]) => Error)(
      'NESTED_OBJECT',
      'nested',
      { path: 'a', construct: 'object' },
      { cause },
    ),
};
/**
 * Families a class joins besides its bases (`brandErrorClass(..., { families })`): remote's option error is an
 * `OptionError` by its base and an `AcpRemoteError` by family.
 */
const families: Record<string, readonly string[]> = {
  AcpRemoteOptionError: ['AcpRemoteError'],
  SessionStoreOptionError: ['SessionStoreError'],
  WebClientOptionError: ['WebClientError'],
};
/** Classes whose constructor takes no cause. */
const withoutCause = new Set(['ElicitationScopeError', 'ClientCapabilitiesNotRecordedError']);

function construct(name: string, errorClass: ErrorClass): Error {
  const build =
    constructors[name] ??
    ((C) => new (C as new (...args: unknown[]) => Error)('SOME_CODE', `a ${name}`, { cause }));
  return build(errorClass);
}

function errorClassesOf(namespace: Namespace): Map<string, ErrorClass> {
  const classes = new Map<string, ErrorClass>();
  for (const [name, value] of Object.entries(namespace)) {
    if (typeof value === 'function' && value.prototype instanceof Error)
      classes.set(name, value as ErrorClass);
  }
  return classes;
}

let scratch = '';
let publicPackages: WorkspacePackage[] = [];
const copies: [Map<string, Namespace>, Map<string, Namespace>] = [new Map(), new Map()];

/** Copies package.json and dist of every public package into `<root>/node_modules`, linking third-party deps. */
async function installCopy(root: string): Promise<void> {
  for (const workspacePackage of publicPackages) {
    const source = join(repositoryRoot, workspacePackage.directory);
    const target = join(root, 'node_modules', workspacePackage.name);
    await mkdir(target, { recursive: true });
    await cp(join(source, 'package.json'), join(target, 'package.json'));
    await cp(join(source, 'dist'), join(target, 'dist'), { recursive: true });
    const manifest = JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    const thirdParty = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter(
      (name) => !name.startsWith('@acpkit/'),
    );
    for (const dependency of thirdParty) {
      const link = join(root, 'node_modules', dependency);
      const resolved = await realpath(join(source, 'node_modules', dependency)).catch(() => undefined);
      if (resolved === undefined) continue;
      await mkdir(dirname(link), { recursive: true });
      await symlink(resolved, link, 'dir').catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
    }
  }
}

beforeAll(async () => {
  publicPackages = (await listWorkspacePackages()).filter((entry) => entry.manifest.private !== true);
  scratch = await mkdtemp(join(tmpdir(), 'acpkit-error-copies-'));
  for (const [index, copy] of copies.entries()) {
    const root = join(scratch, `copy-${index}`);
    await installCopy(root);
    for (const workspacePackage of publicPackages) {
      const entry = join(root, 'node_modules', workspacePackage.name, 'dist', 'index.js');
      copy.set(workspacePackage.name, (await import(pathToFileURL(entry).href)) as Namespace);
    }
  }
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('error classes across two installed copies of the built packages', () => {
  it('loads two distinct copies of each package', () => {
    const [first, second] = copies;
    expect(first.get('@acpkit/choice-schema')?.AcpKitError).toBeDefined();
    expect(first.get('@acpkit/choice-schema')?.AcpKitError).not.toBe(
      second.get('@acpkit/choice-schema')?.AcpKitError,
    );
    expect(first.get('@acpkit/remote')?.AcpRemoteError).not.toBe(
      second.get('@acpkit/remote')?.AcpRemoteError,
    );
    expect(first.get('@acpkit/errors')?.AcpKitError).not.toBe(second.get('@acpkit/errors')?.AcpKitError);
  });

  it('has one root: every error class of every package is an AcpKitError of the other copy of @acpkit/errors', () => {
    const [first, second] = copies;
    const { AcpKitError } = second.get('@acpkit/errors') as { AcpKitError: ErrorClass };
    const checked: string[] = [];
    for (const workspacePackage of publicPackages) {
      for (const [name, errorClass] of errorClassesOf(first.get(workspacePackage.name)!)) {
        const error = construct(name, errorClass);
        expect(error instanceof AcpKitError, `${workspacePackage.name} ${name} instanceof AcpKitError`).toBe(
          true,
        );
        expect(AcpKitError.isInstance(error), `AcpKitError.isInstance(${name})`).toBe(true);
        checked.push(name);
      }
    }
    expect(checked).toEqual(expect.arrayContaining(['AcpRemoteError', 'TestingError', 'FormSchemaError']));
  });

  it('keeps the root in @acpkit/errors only: no other package bundles a copy of it', async () => {
    for (const workspacePackage of publicPackages) {
      if (workspacePackage.name === '@acpkit/errors') continue;
      const dist = join(repositoryRoot, workspacePackage.directory, 'dist');
      // The web client's page (dist/page/) is a browser bundle: it runs in the page, a realm of its own where no
      // class of a Node package ever arrives, so its copy of the root cannot split one family.
      const scripts = (await readdir(dist, { recursive: true })).filter(
        (file) => file.endsWith('.js') && !file.startsWith('page/'),
      );
      for (const script of scripts) {
        const text = await readFile(join(dist, script), 'utf8');
        // The slot every branded class keeps its marker in: only the root's own module defines it.
        expect(text.includes('acpkit.class-marker'), `${workspacePackage.name} dist/${script}`).toBe(false);
      }
    }
  });

  it('recognises every exported error class by its own marker in the other copy, with name, code and cause kept', () => {
    const [first, second] = copies;
    const checked: string[] = [];
    for (const workspacePackage of publicPackages) {
      const created = errorClassesOf(first.get(workspacePackage.name)!);
      const recognising = errorClassesOf(second.get(workspacePackage.name)!);
      for (const [name, errorClass] of created) {
        const error = construct(name, errorClass);
        const where = `${workspacePackage.name} ${name}`;
        expect(error.name, where).toBe(name);
        expect(typeof (error as { code?: unknown }).code, `${where} code`).toBe('string');
        if (!withoutCause.has(name)) expect(error.cause, `${where} cause`).toBe(cause);
        expect(Object.hasOwn(errorClass, 'isInstance'), `${where} declares its own isInstance`).toBe(true);
        for (const [otherName, otherClass] of recognising) {
          // What plain instanceof answers within one copy: the class itself and its bases match, nothing else.
          const sameCopyClass = created.get(otherName);
          const expected =
            (sameCopyClass !== undefined &&
              Object.prototype.isPrototypeOf.call(sameCopyClass.prototype, error)) ||
            (families[name] ?? []).includes(otherName);
          expect(error instanceof otherClass, `${where} instanceof ${otherName}`).toBe(expected);
          expect(otherClass.isInstance(error), `${otherName}.isInstance(${where})`).toBe(expected);
        }
        checked.push(name);
      }
    }
    expect(checked).toEqual(
      expect.arrayContaining([
        'AcpKitError',
        'ChoiceValidationError',
        'InvalidElicitationResponseError',
        'ElicitationUnsupportedError',
        'ElicitationConnectionClosedError',
        'AcpRemoteError',
      ]),
    );
  });

  it('recognises an elicitation error from one copy as an AcpKitError of the other copy of choice-schema', () => {
    const [first, second] = copies;
    const { ElicitationConnectionClosedError } = first.get('@acpkit/elicitation') as {
      ElicitationConnectionClosedError: new () => Error;
    };
    const { AcpKitError } = second.get('@acpkit/choice-schema') as { AcpKitError: ErrorClass };
    expect(new ElicitationConnectionClosedError() instanceof AcpKitError).toBe(true);
  });
});
