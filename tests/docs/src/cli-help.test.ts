import { describe, expect, it } from 'vitest';
import { documentedFlags, markdownSection, parseHelp } from './cli-help.js';

const helpScreen = `Usage: acpkit [options] [command]

Run an ACP agent.

Options:
  -V, --version                  Print the version and exit.
  -y, --yes                      answer every form
  --host <host>                  Interface to bind. (default:
                                 "127.0.0.1")
  -h, --help                     Show help for the command.

Commands:
  run [options] [target]         Run an agent over stdio: an in-process TARGET,
                                 or a remote endpoint with --addr.
  client [options] <command...>  Talk to a stdio ACP agent.
  help [command]                 Show help for a command.

Exit codes: 0 ok, 1 runtime failure, 2 usage or configuration error, 130 SIGINT, 143 SIGTERM.
`;

describe('parseHelp', () => {
  it('reads long flags, subcommands and exit codes, leaving out help and version', () => {
    expect(parseHelp(helpScreen)).toEqual({
      flags: ['--yes', '--host'],
      commands: ['run', 'client'],
      exitCodes: [0, 1, 2, 130, 143],
    });
  });

  it('returns empty lists for a screen without those sections', () => {
    expect(parseHelp('Usage: x\n')).toEqual({ flags: [], commands: [], exitCodes: [] });
  });
});

describe('markdownSection', () => {
  const page = '# Title\n## A\ntext\n### A.1\nmore\n## B\nother\n';

  it('runs from the heading to the next heading of the same or a higher level', () => {
    expect(markdownSection(page, '## A')).toBe('## A\ntext\n### A.1\nmore\n');
    expect(markdownSection(page, '### A.1')).toBe('### A.1\nmore\n');
    expect(markdownSection(page, '## B')).toBe('## B\nother\n\n');
  });

  it('is undefined when no heading starts with the prefix', () => {
    expect(markdownSection(page, '## C')).toBeUndefined();
  });
});

describe('documentedFlags', () => {
  it('finds each long flag written in backticks once', () => {
    expect(documentedFlags('`--host <host>`, `--port`, --not-in-backticks, `--host`')).toEqual([
      '--host',
      '--port',
    ]);
  });
});
