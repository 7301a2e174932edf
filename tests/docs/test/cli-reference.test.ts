// docs/cli.md must describe exactly what the BUILT CLIs offer: every command and flag their `--help` lists is
// documented in that command's section, every flag the page mentions exists, and the exit-code table matches the
// codes `--help` names.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { documentedFlags, type HelpScreen, markdownSection, parseHelp } from '../src/cli-help.js';

const run = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const cliReference = readFileSync(join(repositoryRoot, 'docs/cli.md'), 'utf8');

const CLIS = {
  acpremote: join(repositoryRoot, 'apps/acpremote/dist/cli.js'),
  acpkit: join(repositoryRoot, 'apps/acpkit/dist/cli.js'),
} as const;
type CliName = keyof typeof CLIS;

/** Commands whose flags include the shared serve flags, documented once under "### Serve flags". */
const SERVE_FLAG_COMMANDS = new Set(['acpremote serve', 'acpremote expose', 'acpkit serve']);

async function help(cli: CliName, command?: string): Promise<HelpScreen> {
  const { stdout } = await run(process.execPath, [CLIS[cli], ...(command ? [command] : []), '--help'], {
    env: { ...process.env, COLUMNS: '200', NO_COLOR: '1' },
  });
  return parseHelp(stdout);
}

const screens = new Map<string, HelpScreen>();

beforeAll(async () => {
  for (const cli of Object.keys(CLIS) as CliName[]) {
    const top = await help(cli);
    screens.set(cli, top);
    for (const command of top.commands) screens.set(`${cli} ${command}`, await help(cli, command));
  }
});

describe('docs/cli.md', () => {
  it('documents every command of both CLIs in its own section', () => {
    const commands = [...screens.keys()].filter((key) => key.includes(' '));
    expect(commands).toEqual(
      expect.arrayContaining([
        'acpremote serve',
        'acpremote expose',
        'acpremote mirror',
        'acpkit run',
        'acpkit client',
      ]),
    );
    const missing = commands.filter(
      (command) => markdownSection(cliReference, `### \`${command}`) === undefined,
    );
    expect(missing, 'commands without a "### `<cli> <command>`" section').toEqual([]);
  });

  it("documents every flag of every command's --help in that command's section", () => {
    const serveFlags = markdownSection(cliReference, '### Serve flags') ?? '';
    const undocumented: string[] = [];
    for (const [key, screen] of screens) {
      if (!key.includes(' ')) continue;
      const section = markdownSection(cliReference, `### \`${key}`) ?? '';
      const where = SERVE_FLAG_COMMANDS.has(key) ? section + serveFlags : section;
      for (const flag of screen.flags) if (!where.includes(`\`${flag}`)) undocumented.push(`${key} ${flag}`);
    }
    expect(undocumented).toEqual([]);
  });

  it('mentions no flag that the CLIs do not have', () => {
    const known = new Set([
      '--help',
      '--version',
      ...[...screens.values()].flatMap((screen) => screen.flags),
    ]);
    expect(documentedFlags(cliReference).filter((flag) => !known.has(flag))).toEqual([]);
  });

  it.each(['acpremote', 'acpkit'] as const)(
    '%s serve --help says what the TARGET module must export',
    async (cli) => {
      const { stdout } = await run(process.execPath, [CLIS[cli], 'serve', '--help'], {
        env: { ...process.env, COLUMNS: '200', NO_COLOR: '1' },
      });
      expect(stdout).toContain('TARGET must export (as its default export, or under :exportName) one of:');
      expect(stdout).toContain('an SDK agent app: agent({ name }) from @agentclientprotocol/sdk');
      expect(stdout).toContain(
        'a function, sync or async, returning such an app: it is called once per connection',
      );
      expect(stdout).toContain('The module must not connect to stdio itself when imported');
      expect(stdout).toContain(`Example: ${cli} serve ./src/agent.ts:createAgent --port 0`);
    },
  );

  it('lists exactly the exit codes that --help names', () => {
    const named = new Set([...screens.values()].flatMap((screen) => screen.exitCodes));
    expect([...named].sort((a, b) => a - b)).toEqual([0, 1, 2, 130, 143]);
    const table = markdownSection(cliReference, '### Exit codes') ?? '';
    const documented = [...table.matchAll(/^\| `(\d+)` *\|/gm)].map((match) => Number(match[1]));
    expect(documented).toEqual([...named].sort((a, b) => a - b));
  });
});
