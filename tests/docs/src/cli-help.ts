/** What one `--help` screen of a commander CLI lists. */
export interface HelpScreen {
  /** Long flags under `Options:`, e.g. `--host`, `--yes` (`--help` and `--version` excluded). */
  readonly flags: readonly string[];
  /** Subcommands under `Commands:`, e.g. `serve` (`help` excluded). */
  readonly commands: readonly string[];
  /** The exit codes named in an `Exit codes: 0 ok, 1 …` line, in order. */
  readonly exitCodes: readonly number[];
}

const ALWAYS_PRESENT_FLAGS = new Set(['--help', '--version']);

function linesUnder(text: string, heading: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start === -1) return [];
  const section: string[] = [];
  for (const line of lines.slice(start + 1)) {
    // A section ends at a blank line followed by unindented text (the next heading).
    if (line !== '' && !line.startsWith(' ')) break;
    section.push(line);
  }
  return section;
}

/**
 * Reads the flags, subcommands and exit codes of a commander `--help` screen.
 *
 * @example
 * ```ts
 * parseHelp('Options:\n  -y, --yes  answer\n  -h, --help  help\n').flags; // ['--yes']
 * ```
 */
export function parseHelp(text: string): HelpScreen {
  const flags = linesUnder(text, 'Options:')
    .map((line) => /^ {2}(?:-\w, )?(--[a-z][a-z-]*)/.exec(line)?.[1])
    .filter((flag): flag is string => flag !== undefined && !ALWAYS_PRESENT_FLAGS.has(flag));
  const commands = linesUnder(text, 'Commands:')
    .map((line) => /^ {2}([a-z][a-z-]*)\b/.exec(line)?.[1])
    .filter((command): command is string => command !== undefined && command !== 'help');
  const exitLine = /^Exit codes: (.*)$/m.exec(text)?.[1] ?? '';
  const exitCodes = [...exitLine.matchAll(/(?:^|, )(\d+) /g)].map((match) => Number(match[1]));
  return { flags, commands, exitCodes };
}

/**
 * The text of a Markdown section: from the first heading that starts with `headingPrefix` up to the next heading of
 * the same or a higher level. Undefined when there is no such heading.
 *
 * @example
 * ```ts
 * markdownSection('## A\ntext\n## B\n', '## A'); // '## A\ntext\n'
 * ```
 */
export function markdownSection(markdown: string, headingPrefix: string): string | undefined {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(headingPrefix));
  if (start === -1) return undefined;
  const level = /^#+/.exec(lines[start] ?? '')?.[0].length ?? 1;
  const end = lines.findIndex(
    (line, index) => index > start && /^#+ /.test(line) && (/^#+/.exec(line)?.[0].length ?? 0) <= level,
  );
  return `${lines.slice(start, end === -1 ? undefined : end).join('\n')}\n`;
}

/**
 * Every long flag written in backticks in a Markdown text (`--host`, `--token-env`), without duplicates.
 *
 * @example
 * ```ts
 * documentedFlags('Use `--host <host>` or `--port`.'); // ['--host', '--port']
 * ```
 */
export function documentedFlags(markdown: string): string[] {
  return [...new Set([...markdown.matchAll(/`(--[a-z][a-z-]*)/g)].map((match) => match[1] as string))];
}
