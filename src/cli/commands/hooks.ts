import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { registerHooksImportCommand } from './hooks-import';
import { registerHooksListCommand } from './hooks-list';
import { registerHooksStatsCommand } from './hooks-stats';
import { registerHooksTestCommand } from './hooks-test';
import { registerHooksValidateCommand } from './hooks-validate';

export function registerHooksCommands(program: Command, ctx: CliContext): void {
  const hooks = program.command('hooks').description('list, validate, test-fire and import hooks; their health from the audit log');
  registerHooksListCommand(hooks, ctx);
  registerHooksValidateCommand(hooks, ctx);
  registerHooksTestCommand(hooks, ctx);
  registerHooksImportCommand(hooks, ctx);
  registerHooksStatsCommand(hooks, ctx);
}

export const collect = (value: string, previous: string[] = []) => [...previous, value];
