import { existsSync, statSync } from 'node:fs';
import { extname, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentApp } from '@agentclientprotocol/sdk';
import { CliError, CliErrorCode } from './errors.js';

/** A parsed `path/to/module[.js|.ts][:exportName]` TARGET. */
export interface TargetSpecifier {
  /** The module path as written (relative paths resolve against the working directory). */
  readonly modulePath: string;
  /** The export to use; `undefined` means the default export. */
  readonly exportName: string | undefined;
}

/** A TARGET whose export is an SDK agent app (one app object shared by every connection). */
export interface AgentAppTarget {
  readonly kind: 'app';
  readonly app: AgentApp;
  /** Absolute path of the imported module file. */
  readonly modulePath: string;
  /** The export used (`default` when none was named). */
  readonly exportName: string;
}

/** A TARGET whose export is a factory of SDK agent apps (called once per connection). */
export interface AgentFactoryTarget {
  readonly kind: 'factory';
  /** Calls the exported factory and checks that it returned an agent app. */
  readonly factory: () => Promise<AgentApp>;
  readonly modulePath: string;
  readonly exportName: string;
}

/** What {@link loadTarget} returns. */
export type LoadedTarget = AgentAppTarget | AgentFactoryTarget;

/** Options of {@link loadTarget}. */
export interface LoadTargetOptions {
  /** Directory relative module paths resolve against; default `process.cwd()`. */
  readonly cwd?: string;
}

const TYPESCRIPT_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);
const JAVASCRIPT_EXTENSIONS = new Set(['.js', '.mjs', '.cjs']);
/** Extensions tried, in order, when the TARGET names a module without one. */
const IMPLICIT_EXTENSIONS = ['.js', '.mjs', '.ts', '.mts'];
const EXPORT_NAME = /^[A-Za-z_$][\w$]*$/;

/**
 * Splits a TARGET into its module path and optional export name. The export name is whatever follows the last
 * `:` when it is a JavaScript identifier, so Windows drive letters (`C:\agent.js`) stay part of the path.
 *
 * @throws {@link CliError} with code `USAGE` when the TARGET is blank or the module path is empty.
 * @example
 * ```ts
 * parseTargetSpecifier('./agent.ts:createAgent'); // { modulePath: './agent.ts', exportName: 'createAgent' }
 * parseTargetSpecifier('./agent.js'); // { modulePath: './agent.js', exportName: undefined }
 * ```
 */
export function parseTargetSpecifier(specifier: string): TargetSpecifier {
  const trimmed = specifier.trim();
  if (trimmed === '') throw new CliError(CliErrorCode.Usage, 'TARGET must not be blank.');
  const separator = trimmed.lastIndexOf(':');
  if (separator === -1) return { modulePath: trimmed, exportName: undefined };
  const modulePath = trimmed.slice(0, separator);
  const exportName = trimmed.slice(separator + 1);
  const isDriveLetter = /^[A-Za-z]$/.test(modulePath) && /^[\\/]/.test(exportName);
  if (isDriveLetter) return { modulePath: trimmed, exportName: undefined };
  if (modulePath === '') {
    throw new CliError(CliErrorCode.Usage, `TARGET ${JSON.stringify(trimmed)} has no module path.`);
  }
  if (!EXPORT_NAME.test(exportName)) {
    throw new CliError(
      CliErrorCode.Usage,
      `TARGET export name ${JSON.stringify(exportName)} is not a valid identifier (use path/to/module[.js|.ts][:exportName]).`,
    );
  }
  return { modulePath, exportName };
}

/**
 * Whether `value` is an SDK agent app (`agent()` from the stable or `/unstable` entrypoint, or a subclass such as
 * the NES one). Checked structurally rather than with `instanceof`, because a TypeScript TARGET may import its own
 * copy of the SDK.
 *
 * @example
 * ```ts
 * isAgentApp(agent({ name: 'demo' })); // true
 * isAgentApp(client({ name: 'demo' })); // false
 * ```
 */
export function isAgentApp(value: unknown): value is AgentApp {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  const hasAppMethods = ['connect', 'connectWith', 'onRequest', 'onNotification'].every(
    (name) => typeof candidate[name] === 'function',
  );
  return hasAppMethods && prototypeChainNames(value).includes('AgentApp');
}

function prototypeChainNames(value: object): string[] {
  const names: string[] = [];
  for (
    let prototype = Object.getPrototypeOf(value);
    prototype;
    prototype = Object.getPrototypeOf(prototype)
  ) {
    const constructorName = (prototype as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof constructorName === 'string') names.push(constructorName);
  }
  return names;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') {
    if (prototypeChainNames(value).includes('ClientApp')) return 'a ClientApp (an ACP client, not an agent)';
    if (typeof (value as { then?: unknown }).then === 'function') return 'a Promise';
    return 'an object';
  }
  return `a ${typeof value}`;
}

function resolveModuleFile(modulePath: string, cwd: string): string {
  const absolute = isAbsolute(modulePath) ? modulePath : resolve(cwd, modulePath);
  const candidates = [absolute];
  const extension = extname(absolute);
  if (!TYPESCRIPT_EXTENSIONS.has(extension) && !JAVASCRIPT_EXTENSIONS.has(extension)) {
    candidates.push(...IMPLICIT_EXTENSIONS.map((implicit) => `${absolute}${implicit}`));
  }
  for (const candidate of candidates) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  if (existsSync(absolute) && statSync(absolute).isDirectory()) {
    throw new CliError(
      CliErrorCode.TargetNotFound,
      `TARGET module ${JSON.stringify(modulePath)} is a directory; name the module file (for example ${JSON.stringify(`${modulePath}/dist/index.js`)}).`,
    );
  }
  throw new CliError(
    CliErrorCode.TargetNotFound,
    `TARGET module ${JSON.stringify(modulePath)} was not found (looked for ${candidates.map((candidate) => JSON.stringify(candidate)).join(', ')}).`,
  );
}

async function importModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  try {
    if (TYPESCRIPT_EXTENSIONS.has(extname(file))) {
      // tsx compiles the TARGET on the fly so `.ts` agents run without a build step; loaded lazily so that
      // JavaScript targets never pay for it.
      const { tsImport } = await import('tsx/esm/api');
      return (await tsImport(url, { parentURL: import.meta.url })) as Record<string, unknown>;
    }
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CliError(
      CliErrorCode.TargetImportFailed,
      `Could not import TARGET module ${JSON.stringify(file)}: ${reason}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Imports a TARGET (`path/to/module[.js|.ts][:exportName]`; `.ts` through tsx, no build step) and classifies its
 * export (the default export when no name is given) as an SDK agent app or a factory of one. A factory is called
 * once here so that a broken TARGET fails at start-up; that first app is handed out by the first
 * `factory()` call, and every later call invokes the exported factory again.
 *
 * @throws {@link CliError} with code `TARGET_NOT_FOUND`, `TARGET_IMPORT_FAILED`, `TARGET_EXPORT_MISSING` or
 * `TARGET_NOT_AGENT`.
 * @example
 * ```ts
 * const target = await loadTarget('./agent.ts:createAgent');
 * const server = await serveAcp(target.kind === 'app' ? target.app : target.factory, { port: 0 });
 * ```
 */
export async function loadTarget(specifier: string, options: LoadTargetOptions = {}): Promise<LoadedTarget> {
  const parsed = parseTargetSpecifier(specifier);
  const modulePath = resolveModuleFile(parsed.modulePath, options.cwd ?? process.cwd());
  const namespace = await importModule(modulePath);
  const exportName = parsed.exportName ?? 'default';
  if (!(exportName in namespace) || namespace[exportName] === undefined) {
    const available = Object.keys(namespace).filter((name) => namespace[name] !== undefined);
    throw new CliError(
      CliErrorCode.TargetExportMissing,
      `TARGET module ${JSON.stringify(parsed.modulePath)} has no ${exportName === 'default' ? 'default export' : `export named ${JSON.stringify(exportName)}`} (exports: ${available.length ? available.join(', ') : 'none'}).`,
    );
  }
  const exported = namespace[exportName];
  const label = `${parsed.modulePath}:${exportName}`;
  if (isAgentApp(exported)) return { kind: 'app', app: exported, modulePath, exportName };
  if (typeof exported !== 'function') {
    throw new CliError(
      CliErrorCode.TargetNotAgent,
      `TARGET ${JSON.stringify(label)} is ${describeValue(exported)}, not an ACP agent app or a function that returns one.`,
    );
  }
  const callFactory = async (): Promise<AgentApp> => {
    let produced: unknown;
    try {
      produced = await (exported as () => unknown)();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new CliError(
        CliErrorCode.TargetNotAgent,
        `TARGET factory ${JSON.stringify(label)} threw: ${reason}`,
        {
          cause: error,
        },
      );
    }
    if (!isAgentApp(produced)) {
      throw new CliError(
        CliErrorCode.TargetNotAgent,
        `TARGET factory ${JSON.stringify(label)} returned ${describeValue(produced)}, not an ACP agent app.`,
      );
    }
    return produced;
  };
  let firstApp: AgentApp | undefined = await callFactory();
  const factory = async (): Promise<AgentApp> => {
    if (firstApp) {
      const app = firstApp;
      firstApp = undefined;
      return app;
    }
    return callFactory();
  };
  return { kind: 'factory', factory, modulePath, exportName };
}

/**
 * What to hand to `serveAcp`: the app itself, or the factory (called per connection).
 *
 * @example
 * ```ts
 * await serveAcp(agentSource(await loadTarget('./agent.js')), { port: 0 });
 * ```
 */
export function agentSource(target: LoadedTarget): AgentApp | (() => Promise<AgentApp>) {
  return target.kind === 'app' ? target.app : target.factory;
}

/**
 * One agent app for a single connection (stdio): the app itself, or one the factory produced.
 *
 * @example
 * ```ts
 * const app = await instantiateAgent(await loadTarget('./agent.ts'));
 * ```
 */
export async function instantiateAgent(target: LoadedTarget): Promise<AgentApp> {
  return target.kind === 'app' ? target.app : target.factory();
}
