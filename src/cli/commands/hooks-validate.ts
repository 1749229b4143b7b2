import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import type { ConfigProblem } from '../../core/hooks/config/config-problems';
import { mergeConfigs } from '../../core/hooks/config/merge-configs';
import { checkHookScripts } from '../../core/hooks/config/script-diagnostics';
import { HOOKS_JSON, loadWorkspaceConfigs, WORKSPACE_SETTINGS } from '../../core/hooks/config/workspace-config-files';
import { projectDirOf, type CliContext } from '../cli-context';
import { EXIT, usageError } from '../cli-error';
import { userSettingsFile } from '../cli-environment';
import { displayPath, formatProblem, SettingsPositions } from '../config-positions';
import { collect } from './hooks';

const validateOptionsSchema = z.object({ cwd: z.string().optional(), hooks: z.array(z.string()).default([]) });

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 } as const;

export function registerHooksValidateCommand(hooks: Command, ctx: CliContext): void {
  hooks
    .command('validate')
    .description('check every hook configuration: prints each problem as file:line:column: severity: message; exits 1 on any error')
    .option('--cwd <dir>', 'the workspace (default: the current directory)')
    .option('--hooks <file>', 'an extra hooks.json-format file to check too (repeatable)', collect)
    .action((raw: unknown) => {
      const options = validateOptionsSchema.parse(raw);
      const projectDir = projectDirOf(ctx, options.cwd);
      const extraFiles = options.hooks.map((file) => path.resolve(ctx.cwd, file));
      for (const file of extraFiles) if (!existsSync(file)) throw usageError(`--hooks: no such file ${file}`);
      const userFile = userSettingsFile(ctx.env);
      const merged = mergeConfigs(loadWorkspaceConfigs(projectDir, { userSettingsFile: userFile, extraFiles }));
      const problems = [...merged.problems, ...checkHookScripts(merged.hooks, projectDir)].sort(byFileAndPosition);
      const positions = new SettingsPositions();
      for (const problem of problems) ctx.stdout.write(`${formatProblem(problem, positions, ctx.cwd)}\n`);

      const checked = [userFile, path.join(projectDir, WORKSPACE_SETTINGS), path.join(projectDir, HOOKS_JSON), ...extraFiles].filter(
        (file) => existsSync(file),
      );
      const count = (severity: ConfigProblem['severity']) => problems.filter((p) => p.severity === severity).length;
      const errors = count('error');
      const files = checked.length === 0 ? 'no configuration files found' : checked.map((file) => displayPath(file, ctx.cwd)).join(', ');
      ctx.stderr.write(
        `${errors} error(s), ${count('warning')} warning(s), ${count('info')} note(s); ${merged.hooks.length} hook(s) load (checked: ${files})\n`,
      );
      ctx.exitCode = errors > 0 ? EXIT.failed : EXIT.ok;
    });
}

function byFileAndPosition(a: ConfigProblem, b: ConfigProblem): number {
  return (
    (a.file ?? '').localeCompare(b.file ?? '') ||
    (a.line ?? 0) - (b.line ?? 0) ||
    (a.column ?? 0) - (b.column ?? 0) ||
    SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]
  );
}
