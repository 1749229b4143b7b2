import type { Command } from 'commander';
import { z } from 'zod';
import type { HookState } from '../../core/hooks/registry';
import type { ServerDefinition } from '../../core/hooks/types';
import { handlerTarget } from '../../shared/manager-view-builders';
import { projectDirOf, stderrLogger, type CliContext } from '../cli-context';
import { EXIT } from '../cli-error';
import { createEngine } from '../composition';
import { formatSource, SettingsPositions } from '../config-positions';
import { formatTable } from '../output/table';
import { collect } from './hooks';
import { interceptsPerHandshake } from '../../core/hooks/handlers/rpc/rpc-hook-definitions';

const listOptionsSchema = z.object({
  cwd: z.string().optional(),
  hooks: z.array(z.string()).default([]),
  json: z.boolean().default(false),
});

export function registerHooksListCommand(hooks: Command, ctx: CliContext): void {
  hooks
    .command('list')
    .description(
      'every hook from every source: id, event, matcher, type, name, source (file:line) and whether it is active; starts no process (rpc servers show as not started)',
    )
    .option('--cwd <dir>', 'the workspace (default: the current directory)')
    .option('--hooks <file>', 'an extra hooks.json-format file (repeatable)', collect)
    .option('--json', 'print JSON instead of a table')
    .action(async (raw: unknown) => {
      const options = listOptionsSchema.parse(raw);
      const projectDir = projectDirOf(ctx, options.cwd);
      // Listing reads the configuration only: no rpc server (workspace code) is started.
      const engine = await createEngine({
        projectDir,
        env: ctx.env,
        extraHooksFiles: options.hooks,
        log: stderrLogger(ctx),
        startProcesses: false,
      });
      // A target or a name may hold a credential of the configuration, which loading registered.
      const { redactor } = engine.audit;
      ctx.redactor = redactor;
      let states: readonly HookState[];
      let silentServers: ServerDefinition[];
      try {
        // Configured hooks first, in file order; the built-ins after them.
        const all = engine.registry.current().states;
        states = [...all.filter((s) => s.hook.source.kind !== 'builtin'), ...all.filter((s) => s.hook.source.kind === 'builtin')];
        silentServers = engine.loadedConfig.servers.filter(interceptsPerHandshake);
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
          source: {
            kind: s.hook.source.kind,
            file: s.hook.source.file ?? null,
            line: s.hook.source.line ?? null,
            location: formatSource(s.hook.source, positions, ctx.cwd),
          },
          enabled: s.enabled,
          // A managed policy's hook: nothing but the policy turns it off.
          locked: s.locked,
          active: s.active,
          inactive_reason: s.inactiveReason ?? null,
          // rpc hooks come from the declared events (or wait for the handshake); the server's handshake may narrow them.
          server: s.hook.spec.type === 'rpc' ? { name: s.hook.spec.server, started: false } : null,
        }));
        ctx.stdout.write(`${JSON.stringify(redactor.redact(rows), null, 2)}\n`);
      } else {
        const rows = states.map((s) =>
          [s.hook.id, s.hook.event, s.hook.matcher ?? '*', s.hook.spec.type, s.hook.name, sourceOf(s, positions, ctx.cwd), stateOf(s)].map(
            (cell) => redactor.redactText(cell),
          ),
        );
        ctx.stdout.write(formatTable(['ID', 'EVENT', 'MATCHER', 'TYPE', 'NAME', 'SOURCE', 'STATE'], rows));
      }
      for (const server of silentServers) {
        const where = formatSource(server.source, positions, ctx.cwd);
        ctx.stderr.write(
          `hookpilot: rpc server "${server.name}" (${where}) lists no intercept events: until its handshake answers, its hooks wait for it on every event it could intercept; which it takes is known once it runs (hookpilot hooks test starts it)\n`,
        );
      }
      ctx.exitCode = EXIT.ok;
    });
}

/** Claude Code's settings files show by their path; the managed policy says so, as its file alone would not. */
function sourceOf(state: HookState, positions: SettingsPositions, cwd: string): string {
  const where = formatSource(state.hook.source, positions, cwd);
  return state.locked ? `managed: ${where}` : where;
}

function stateOf(state: HookState): string {
  const lock = state.locked ? ', locked' : '';
  if (state.active) return state.hook.spec.type === 'rpc' ? `active (server not started${lock})` : `active${lock}`;
  if (state.inactiveReason === 'disabled') return `disabled${lock}`;
  return `inactive (${state.inactiveReason ?? 'unknown'}${lock})`;
}
