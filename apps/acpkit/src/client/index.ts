import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError, CliErrorCode, collectRepeatable, exitAfterFlush } from '@acpkit/cli-support';
import type { Command } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { runClient } from './run-client.js';

interface ClientCommandOptions {
  yes?: boolean;
  cwd?: string;
  prompt?: string[];
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Registers `acpkit client [--yes] [--cwd DIR] [--prompt TEXT]... -- COMMAND...` on the acpkit program: a terminal
 * ACP client that spawns a stdio agent, streams its answers and renders its elicitation forms as prompts.
 *
 * @example
 * ```ts
 * import { Command } from 'commander';
 * const program = new Command('acpkit');
 * registerClientCommand(program);
 * await program.parseAsync(['client', '--yes', '--prompt', 'deploy', '--', 'node', 'agent.js'], { from: 'user' });
 * ```
 */
export function registerClientCommand(program: Command): void {
  program
    .command('client')
    .description(
      'Talk to a stdio ACP agent in the terminal and answer its forms. Without a TTY on stdin, or with --yes, ' +
        'forms are answered with their defaults and printed; prompts come from --prompt or stdin lines.',
    )
    .usage('[options] -- COMMAND...')
    .argument('<command...>', 'The agent command and its arguments (put them after --).')
    .passThroughOptions()
    .option('-y, --yes', 'Answer every form and permission request with its default instead of asking.')
    .option(
      '--cwd <dir>',
      'Working directory of the agent process and the session (default: the current directory).',
    )
    .option(
      '-p, --prompt <text>',
      'Send this prompt and exit after the turn ends (repeatable, one turn each). Without it the client asks in ' +
        'the terminal, or reads one prompt per stdin line when stdin is not a TTY.',
      collectRepeatable,
    )
    .action(async (command: string[], options: ClientCommandOptions) => {
      const cwd = resolve(options.cwd ?? process.cwd());
      if (!isDirectory(cwd)) {
        throw new CliError(CliErrorCode.Usage, `--cwd ${JSON.stringify(options.cwd)} is not a directory.`);
      }
      const code = await runClient({
        command,
        cwd,
        yes: options.yes === true,
        prompts: options.prompt ?? [],
        input: process.stdin,
        output: process.stdout,
        errorOutput: process.stderr,
        version: packageJson.version,
      });
      // Exit here, once output is flushed: a paused stdin reader or a prompt library listener would otherwise keep
      // the process alive after the conversation ended.
      await exitAfterFlush(code);
    });
}
