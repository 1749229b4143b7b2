import { Option, type Command } from 'commander';
import { z } from 'zod';
import { formatImportReport, formatImportWrite, importHooks, IMPORT_TOOLS, type ImportHooksResult } from '../../core/import/import-hooks';
import { projectDirOf, type CliContext } from '../cli-context';
import { CliError, EXIT, oneLine } from '../cli-error';

const importOptionsSchema = z.object({
  cwd: z.string().optional(),
  from: z.enum(IMPORT_TOOLS).optional(),
  dryRun: z.boolean().default(false),
  json: z.boolean().default(false),
});

/** `hookpilot hooks import`: other tools' hooks into `.vscode/hooks.json`, with a report of every hook. */
export function registerHooksImportCommand(hooks: Command, ctx: CliContext): void {
  hooks
    .command('import')
    .description(
      'convert the hooks of Claude Code, Copilot, Cline, Cursor, Gemini CLI, coding-agent and AtomCode into .vscode/hooks.json; the report lists every hook: converted exactly, converted with a change of meaning (and why), or not carried over (and why); exits 1 when nothing is found',
    )
    .option('--cwd <dir>', 'the workspace (default: the current directory)')
    .addOption(new Option('--from <tool>', "import only this tool's hooks").choices(IMPORT_TOOLS))
    .option('--dry-run', 'print the report and exactly what would be written, and write nothing')
    .option('--json', 'print the report (and, with --dry-run, the resulting hooks.json text) as JSON')
    .action((raw: unknown) => {
      const options = importOptionsSchema.parse(raw);
      const projectDir = projectDirOf(ctx, options.cwd);
      let result: ImportHooksResult;
      try {
        result = importHooks({ cwd: projectDir, from: options.from, dryRun: options.dryRun, home: ctx.env.HOME });
      } catch (error) {
        throw new CliError(`cannot import hooks: ${oneLine(error)}`);
      }
      const found = result.report.entries.length > 0;
      if (options.json) {
        const json = { report: result.report, written: result.written ?? null, ...(options.dryRun ? { text: result.text } : {}) };
        ctx.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
      } else if (found) {
        ctx.stdout.write(formatImportReport(result.report));
        if (options.dryRun && result.report.added > 0)
          ctx.stdout.write(`\n${formatImportWrite(result.report.target, result.before, result.text)}`);
      }
      if (!found) {
        ctx.stderr.write(`hookpilot: no hooks found to import in ${projectDir} (looked in ${result.report.searched.join(', ')})\n`);
        ctx.exitCode = EXIT.failed;
        return;
      }
      ctx.exitCode = EXIT.ok;
    });
}
