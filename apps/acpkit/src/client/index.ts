import { type CliRun, collectRepeatable, parseSecondsToMilliseconds } from '@acpkit/cli-support';
import { type Command, Option } from 'commander';
import type { ClientCommandOptions } from './client-action.js';
import { DEFAULT_INITIALIZE_TIMEOUT_MS } from './client-defaults.js';

/**
 * Registers `acpkit client [options] -- COMMAND...` on the acpkit program: a terminal ACP client that spawns a stdio
 * agent, streams its answers and renders its elicitation forms as prompts, or answers them from a script
 * (`--answer NAME=VALUE`, `--answers FILE`, `--decline`, `--cancel`). It runs through `run`'s streams, environment
 * and signals and returns its exit code, like every other command.
 *
 * @example
 * ```ts
 * const run = new CliRun(processIo());
 * const program = run.createRootCommand('acpkit', 'ACP tools', '0.1.0');
 * registerClientCommand(program, run);
 * await run.execute(program, ['client', '--answer', 'Choice=Preview', '--prompt', 'Deploy', '--', 'node', 'agent.js']);
 * ```
 */
export function registerClientCommand(program: Command, run: CliRun): void {
  program
    .command('client')
    .summary('Talk to a stdio ACP agent in the terminal and answer its forms (or script the answers).')
    .description(
      'Talk to a stdio ACP agent in the terminal and answer its forms. Without a TTY on stdin, or with --yes, ' +
        'forms are answered with their defaults and printed; --answer, --answers, --decline or --cancel script ' +
        'the answers instead. Prompts come from --prompt, the terminal, or stdin lines.',
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
        'the terminal, or reads one prompt per stdin line when stdin is not a TTY (/exit ends).',
      collectRepeatable,
    )
    .addOption(
      new Option(
        '--answer <name=value>',
        'Answer every form with this field value (repeatable; NAME is the property name or its title; VALUE ' +
          "matches an option's title, then its value, else is read as the field's type; repeat a NAME for a " +
          'multi-select). Fields left out take their defaults. A value that fits no field or fails validation is an ' +
          'error (exit 2).',
      )
        .argParser(collectRepeatable)
        .conflicts(['answers', 'decline', 'cancel']),
    )
    .addOption(
      new Option(
        '--answers <file>',
        'Answer the forms from a JSON list, one entry per form in order, or from a JSON object keyed by form title ' +
          '(the form\'s title, else its question); an entry is an object of NAME: VALUE, "decline" or "cancel". A ' +
          'form the file does not answer is an error (exit 2).',
      ).conflicts(['decline', 'cancel']),
    )
    .addOption(new Option('--decline', 'Decline every form.').conflicts('cancel'))
    .option('--cancel', 'Cancel every form.')
    .option(
      '--initialize-timeout <seconds>',
      `Give up (exit 1) when the agent has not answered initialize after this long (default ` +
        `${DEFAULT_INITIALIZE_TIMEOUT_MS / 1000}); the client says it is waiting after 5 s. An agent that writes ` +
        'text instead of JSON-RPC to stdout is given up on 2 s after that text.',
      parseSecondsToMilliseconds,
    )
    .action(
      run.action(async (command: string[], options: ClientCommandOptions) => {
        const { runClientCommand } = await import('./client-action.js');
        return runClientCommand(command, options, run, program.version() ?? '0.0.0');
      }),
    );
}
