import type { Command } from 'commander';
import { z } from 'zod';
import type { HookState } from '../../core/hooks/registry';
import { handlerTarget } from '../../shared/manager-view-builders';
import { projectDirOf, stderrLogger, type CliContext } from '../cli-context';
import { EXIT } from '../cli-error';
import { createEngine } from '../composition';
import { formatSource, SettingsPositions } from '../config-positions';
import { formatTable } from '../output/table';
import { collect } from './hooks';

const listOptionsSchema = z.object({ cwd: z.string().optional(), hooks: z.array(z.string()).default([]), json: z.boolean().default(false) });

export function registerHooksListCommand(hooks: Command, ctx: CliContext): void {
  hooks
    .command('list')
    .description('every hook from every source: id, event, matcher, type, name, source (file:line) and whether it is active')
    .option('--cwd <dir>', 'the workspace (default: the current directory)')
    .option('--hooks <file>', 'an extra hooks.json-format file (repeatable)', collect)
    .option('--json', 'print JSON instead of a table')
    .action(async (raw: unknown) => {
      const options = listOptionsSchema.parse(raw);
      const projectDir = projectDirOf(ctx, options.cwd);
      const engine = await createEngine({ projectDir, env: ctx.env, extraHooksFiles: options.hooks, log: stderrLogger(ctx) });
      let states: readonly HookState[];
      try {
        // Configured hooks first, in file order; the built-ins after them.
        const all = engine.registry.current().states;
        states = [...all.filter((s) => s.hook.source.kind !== 'builtin'), ...all.filter((s) => s.hook.source.kind === 'builtin')];
      } finally {
        await engine.dispose();
      }
      const positions = new SettingsPositions();
      if (options.json) {
        const rows = states.map((s) => ({
          id: s.hook.id,
          event: s.hook.event,
          matcher: s.hook.matcher ?? null,
          type: s.hook.spec.type,
          name: s.hook.name,
          target: handlerTarget(s.hook.spec),
          source: { kind: s.hook.source.kind, file: s.hook.source.file ?? null, line: s.hook.source.line ?? null, location: formatSource(s.hook.source, positions, ctx.cwd) },
          enabled: s.enabled,
          active: s.active,
          inactive_reason: s.inactiveReason ?? null,
        }));
        ctx.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      } else {
        const rows = states.map((s) => [s.hook.id, s.hook.event, s.hook.matcher ?? '*', s.hook.spec.type, s.hook.name, formatSource(s.hook.source, positions, ctx.cwd), stateOf(s)]);
        ctx.stdout.write(formatTable(['ID', 'EVENT', 'MATCHER', 'TYPE', 'NAME', 'SOURCE', 'STATE'], rows));
      }
      ctx.exitCode = EXIT.ok;
    });
}

function stateOf(state: HookState): string {
  if (state.active) return 'active';
  if (state.inactiveReason === 'disabled') return 'disabled';
  return `inactive (${state.inactiveReason ?? 'unknown'})`;
}
