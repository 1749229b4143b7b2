import path from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { AuditLog, type AuditSessionInfo } from '../../core/audit/audit-log';
import { forEachAuditRecord } from '../../core/audit/audit-reader';
import { DEFAULT_HEALTH_LIMITS, HookHealth, type HookHealthSnapshot } from '../../core/hooks/hook-health';
import { projectDirOf, type CliContext } from '../cli-context';
import { CliError, EXIT } from '../cli-error';
import { projectStorageDir } from '../cli-environment';
import { storageRoot } from '../../core/storage-root';
import { formatTable } from '../output/table';
import { formatMs, printable, sparkline } from '../output/terminal-text';
import { isAgentRunSession } from '../../core/audit/session-kinds';

const statsOptionsSchema = z.object({
  cwd: z.string().optional(),
  session: z.string().min(1, '--session: give a session id').optional(),
  json: z.boolean().default(false),
  slowMs: z.coerce
    .number({ message: '--slow-ms: expected a number of milliseconds' })
    .int('--slow-ms: expected whole milliseconds')
    .min(0, '--slow-ms: 0 or more')
    .default(DEFAULT_HEALTH_LIMITS.slowHookMs),
});

export function registerHooksStatsCommand(hooks: Command, ctx: CliContext): void {
  hooks
    .command('stats')
    .description(
      "each hook's health from the audit log: runs, failures, timeouts, p50/p95 latency, last error and recent durations " +
        '(default: every session of this project but hooks test runs and replays)',
    )
    .option('--session <id>', 'only this session (an id, or a unique prefix of one)')
    .option('--cwd <dir>', 'the workspace (default: the current directory)')
    .option('--slow-ms <ms>', `report a hook slow when its median over its last ${DEFAULT_HEALTH_LIMITS.window} runs is longer (0: never)`)
    .option('--json', 'print JSON')
    .action(async (raw: unknown) => {
      const parsed = statsOptionsSchema.safeParse(raw);
      if (!parsed.success) throw new CliError(parsed.error.issues.map((i) => i.message).join('; '), EXIT.usage);
      const options = parsed.data;
      const projectDir = projectDirOf(ctx, options.cwd);
      const log = new AuditLog({ dir: path.join(projectStorageDir(storageRoot(ctx.env), projectDir), 'audit') });
      const sessions = pickSessions(await log.listSessions(), options.session, projectDir);
      const health = new HookHealth({ slowHookMs: options.slowMs });
      // Oldest first, so "recent" and the failure streaks follow the order the runs happened in.
      for (const session of [...sessions].reverse()) {
        const problems = await forEachAuditRecord(session.file, (record) => void health.record(record));
        for (const problem of problems) ctx.stderr.write(`hookpilot: warning: ${session.file}:${problem.line}: ${problem.error}\n`);
      }
      const stats = health.all();
      if (options.json) {
        const json = { sessions: sessions.map((s) => s.sessionId), slow_hook_ms: options.slowMs, hooks: stats.map(toJson) };
        ctx.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
      } else if (stats.length === 0) {
        ctx.stdout.write(`No hook runs in ${sessions.length} session${sessions.length === 1 ? '' : 's'}.\n`);
      } else {
        const headers = ['HOOK', 'EVENT', 'RUNS', 'FAILED', 'TIMEOUTS', 'P50', 'P95', 'RECENT', 'STATE', 'LAST ERROR'];
        ctx.stdout.write(formatTable(headers, stats.map(toRow)));
      }
      ctx.exitCode = EXIT.ok;
    });
}

/** The named session (or unique prefix), else every session but those of `hooks test` and replays. */
function pickSessions(sessions: readonly AuditSessionInfo[], wanted: string | undefined, projectDir: string): AuditSessionInfo[] {
  if (sessions.length === 0) throw new CliError(`no sessions recorded for ${projectDir} yet: run "hookpilot run" there first`);
  if (wanted === undefined) return sessions.filter((s) => isAgentRunSession(s.sessionId));
  const exact = sessions.find((s) => s.sessionId === wanted);
  if (exact) return [exact];
  const matches = sessions.filter((s) => s.sessionId.startsWith(wanted));
  if (matches.length === 1) return matches;
  if (matches.length > 1) throw new CliError(`"${wanted}" matches ${matches.length} sessions; give more of it (hookpilot timeline --list)`);
  throw new CliError(`no session "${wanted}" for ${projectDir} (hookpilot timeline --list shows them)`);
}

/** A hook's error can be a whole stack trace: the table shows its start (--json has it all). */
const MAX_ERROR_CHARS = 160;

function toRow(s: HookHealthSnapshot): string[] {
  const approx = s.sampled ? '~' : '';
  const error = s.lastError ? printable(`${s.lastError.status}: ${s.lastError.message}`) : '';
  const lastError = error.length > MAX_ERROR_CHARS ? `${error.slice(0, MAX_ERROR_CHARS)}…` : error;
  const counts = [s.runs, s.failures, s.timeouts].map(String);
  const cells = [s.hookName, s.event, ...counts, approx + formatMs(s.p50Ms), approx + formatMs(s.p95Ms), sparkline(s.recentMs), s.state];
  return [...cells.map(printable), lastError];
}

function toJson(s: HookHealthSnapshot) {
  const error = s.lastError;
  return {
    id: s.hookId,
    name: s.hookName,
    event: s.event,
    handler: s.handler,
    runs: s.runs,
    failures: s.failures,
    timeouts: s.timeouts,
    cancelled: s.cancelled,
    p50_ms: s.p50Ms ?? null,
    p95_ms: s.p95Ms ?? null,
    max_ms: s.maxMs ?? null,
    sampled: s.sampled,
    last_error: error ? { status: error.status, message: error.message, at: error.at, session_id: error.sessionId } : null,
    last_run_at: s.lastRunAt,
    consecutive_failures: s.consecutiveFailures,
    state: s.state,
    recent_ms: s.recentMs,
  };
}
