import { Command, CommanderError } from 'commander';
import { version } from '../../package.json';
import { CliError, EXIT, oneLine } from './cli-error';
import type { CliContext } from './cli-context';
import { registerHooksCommands } from './commands/hooks';
import { registerReplayCommand } from './commands/replay';
import { registerRunCommand } from './commands/run';
import { registerTimelineCommand } from './commands/timeline';

/** Parses `argv`, runs the command, and returns the exit code. Every failure is one line on stderr. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  const program = new Command('hookpilot');
  // Set before the subcommands are added, so that they inherit them.
  program
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
      outputError: (text, write) => write(`hookpilot: ${oneLine(text.replace(/^error: /, ''))}\n`),
    });
  program
    .description("Headless Hookpilot: a coding agent whose every step runs through hooks that speak Claude Code's hook protocol.")
    .version(version, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help');
  registerRunCommand(program, ctx);
  registerHooksCommands(program, ctx);
  registerTimelineCommand(program, ctx);
  registerReplayCommand(program, ctx);

  try {
    await program.parseAsync(argv);
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed its message (or the help) already.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.ok;
      if (error.code === 'commander.help') return error.exitCode;
      return EXIT.usage;
    }
    ctx.stderr.write(`hookpilot: ${oneLine(error)}\n`);
    return error instanceof CliError ? error.exitCode : EXIT.failed;
  }
}
