// The hosts and mirrors run as plain JavaScript, as the CLIs do, never under tsx: tsx adds ~2.5 MB to a process's
// heap (5.2 MB against 2.7 MB for an empty process), and that alone moves V8's garbage-collection regime. Measured:
// a `serveCommand` relay holds 6.2 MB after relaying 16 KiB, 1 MiB and 16 MiB messages as plain Node and 9.5 MB under
// tsx; the minimal relay under tsx (6.8 MB) with 2.5 MB of objects added marks incrementally all the time after large
// messages (64 mark-compacts against 1 in the same sequence), which doubles its CPU per 16 KiB message. So every
// `src/hosts/*.ts` and `src/fixtures/*.ts` is transpiled once per run (TypeScript's transpileModule: types stripped,
// nothing bundled) into `bench/.hosts/hosts/` and `bench/.hosts/fixtures/`: the same relative layout, inside the
// package so their imports resolve as the sources' do.
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const sourceRoot = fileURLToPath(new URL('..', import.meta.url));
const outputRoot = fileURLToPath(new URL('../../.hosts/', import.meta.url));
let transpiled = false;

function transpileHosts(): void {
  for (const directory of ['hosts', 'fixtures']) {
    mkdirSync(join(outputRoot, directory), { recursive: true });
    for (const name of readdirSync(join(sourceRoot, directory)).filter((file) => file.endsWith('.ts'))) {
      transpile(join(sourceRoot, directory, name), join(outputRoot, directory, name.replace(/\.ts$/, '.js')));
    }
  }
  transpiled = true;
}

function transpile(source: string, target: string): void {
  const { outputText } = ts.transpileModule(readFileSync(source, 'utf8'), {
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
    fileName: source,
  });
  // Another bench run may read these files meanwhile: replace each whole, never write it in place.
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, outputText);
  renameSync(temporary, target);
}

/**
 * The JavaScript file of host `name` (`src/hosts/<name>.ts`), transpiled on first use in this run.
 *
 * @example
 * ```ts
 * spawn(process.execPath, [hostScript('mirror-host'), url]);
 * ```
 */
export function hostScript(name: string): string {
  if (!transpiled) transpileHosts();
  return join(outputRoot, 'hosts', `${name.replace(/\.ts$/, '')}.js`);
}
