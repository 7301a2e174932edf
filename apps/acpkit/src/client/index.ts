import type { Command } from 'commander';

/**
 * Registers `acpkit client` on the acpkit program. Placeholder until the terminal client lands; it refuses to run.
 */
export function registerClientCommand(program: Command): void {
  program
    .command('client')
    .description('Terminal ACP client (not available yet)')
    .action(() => {
      throw new Error('acpkit client is not available yet');
    });
}
