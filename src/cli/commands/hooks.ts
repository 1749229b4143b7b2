import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { registerHooksImportCommand } from './hooks-import';
import { registerHooksListCommand } from './hooks-list';
import { registerHooksTestCommand } from './hooks-test';
import { registerHooksValidateCommand } from './hooks-validate';

export function registerHooksCommands(program: Command, ctx: CliContext): void {
  const hooks = program.command('hooks').description('list, validate and test-fire the configured hooks');
  registerHooksListCommand(hooks, ctx);
  registerHooksValidateCommand(hooks, ctx);
  registerHooksTestCommand(hooks, ctx);
  registerHooksImportCommand(hooks, ctx);
}

export const collect = (value: string, previous: string[] = []) => [...previous, value];
