import path from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { AuditLog, type AuditSessionInfo } from '../../core/audit/audit-log';
import type { AuditReadProblem } from '../../core/audit/audit-reader';
import { auditFilePath } from '../../core/audit/audit-writer';
import { ModelRequestExpander } from '../../core/audit/model-request-delta';
import { describePermission } from '../../core/audit/permission-text';
import type { AuditRecord } from '../../core/audit/records';
import { projectDirOf, type CliContext } from '../cli-context';
import { CliError, EXIT } from '../cli-error';
import { projectStorageDir } from '../cli-environment';
import { storageRoot } from '../../core/storage-root';
import { JsonDocumentWriter } from '../output/json-document';
import { formatTable } from '../output/table';
import { printable } from '../output/terminal-text';
import { TraceJson, traceTable } from './timeline-trace';
import { isAgentRunSession } from '../../core/audit/session-kinds';

const timelineOptionsSchema = z.object({
  cwd: z.string().optional(),
  json: z.boolean().default(false),
  list: z.boolean().default(false),
  all: z.boolean().default(false),
  trace: z.boolean().default(false),
});

export function registerTimelineCommand(program: Command, ctx: CliContext): void {
  program
    .command('timeline')
    .description(
      "a session's audit timeline: time, event, hook, decision, duration and reason (default: the most recent session of this project)",
    )
    .argument('[session]', 'session id, or a unique prefix of one')
    .option('--cwd <dir>', 'the workspace (default: the current directory)')
    .option('--list', 'list the recorded sessions instead')
    .option('--all', 'also show built-in hooks that did nothing')
    .option(
      '--trace',
      'show the session as a tree: turns, steps, model requests, tool calls, events and hook runs, with start and duration',
    )
    .option('--json', 'print JSON')
    .action(async (sessionArg: string | undefined, raw: unknown) => {
      const options = timelineOptionsSchema.parse(raw);
      const projectDir = projectDirOf(ctx, options.cwd);
      const log = new AuditLog({ dir: path.join(projectStorageDir(storageRoot(ctx.env), projectDir), 'audit') });
      const sessions = await log.listSessions();
      if (options.list) {
        printSessions(sessions, options.json, ctx);
        ctx.exitCode = EXIT.ok;
        return;
      }
      const sessionId = pickSession(sessions, sessionArg, projectDir);
      const file = auditFilePath(log.dir, sessionId);
      // Records are handled as they are read, and only what is printed is kept: a session's log
      // has no size limit (each Bash call can add a 1 MiB record).
      let problems: AuditReadProblem[];
      if (options.trace) {
        const trace = new TraceJson();
        problems = await log.forEachRecord(sessionId, (record) => trace.add(record));
        const spans = trace.spans(options.all, quietBuiltin);
        if (options.json) ctx.stdout.write(`${JSON.stringify({ session_id: sessionId, file, spans, problems }, null, 2)}\n`);
        else ctx.stdout.write(`Session ${sessionId} (${file})\n${traceTable(spans, printable)}`);
      } else if (options.json) {
        // Model requests are logged as deltas; JSON readers get each one whole.
        const document = new JsonDocumentWriter(ctx.stdout, { session_id: sessionId, file }, 'records');
        const expander = new ModelRequestExpander();
        problems = await log.forEachRecord(sessionId, (record) => document.item(expander.expand(record)));
        document.end({ problems });
      } else {
        ctx.stdout.write(`Session ${sessionId} (${file})\n`);
        // The rows' cells only: the columns are padded to the widest, known once all are read.
        const rows: string[][] = [];
        problems = await log.forEachRecord(sessionId, (record) => {
          if (options.all || !quietBuiltin(record)) for (const row of toRow(record)) rows.push(row.map(printable));
        });
        ctx.stdout.write(formatTable(['TIME', 'EVENT', 'HOOK', 'DECISION', 'MS', 'REASON'], rows));
      }
      // A crash mid-write leaves a torn last line: the reader skipped it, the person should know.
      for (const problem of problems) ctx.stderr.write(`hookpilot: warning: ${file}:${problem.line}: ${problem.error}\n`);
      ctx.exitCode = EXIT.ok;
    });
}

/** The named session (or unique prefix); by default the newest run of the agent, not a `hooks test` or a replay. */
function pickSession(sessions: readonly AuditSessionInfo[], wanted: string | undefined, projectDir: string): string {
  if (sessions.length === 0) throw new CliError(`no sessions recorded for ${projectDir} yet: run "hookpilot run" there first`);
  if (wanted === undefined) return (sessions.find((s) => isAgentRunSession(s.sessionId)) ?? sessions[0]).sessionId;
  const exact = sessions.find((s) => s.sessionId === wanted);
  if (exact) return exact.sessionId;
  const matches = sessions.filter((s) => s.sessionId.startsWith(wanted));
  if (matches.length === 1) return matches[0].sessionId;
  if (matches.length > 1)
    throw new CliError(`"${wanted}" matches ${matches.length} sessions; give more of the id (hookpilot timeline --list)`);
  throw new CliError(`no session "${wanted}" for ${projectDir} (hookpilot timeline --list shows them)`);
}

function printSessions(sessions: readonly AuditSessionInfo[], json: boolean, ctx: CliContext): void {
  if (json) {
    ctx.stdout.write(
      `${JSON.stringify(
        sessions.map((s) => ({ session_id: s.sessionId, file: s.file, size_bytes: s.sizeBytes, modified: s.modified.toISOString() })),
        null,
        2,
      )}\n`,
    );
    return;
  }
  ctx.stdout.write(
    formatTable(
      ['SESSION', 'MODIFIED', 'SIZE'],
      sessions.map((s) => [s.sessionId, s.modified.toISOString(), `${s.sizeBytes} B`]),
    ),
  );
}

/** Built-in hooks run on almost every event; when they did nothing they only hide what matters. */
function quietBuiltin(record: AuditRecord): boolean {
  return record.type === 'hook_run' && record.source === 'builtin' && record.decision === 'none' && record.status === 'success';
}

function toRow(record: AuditRecord): string[][] {
  const time = record.ts.length >= 23 ? record.ts.slice(11, 23) : record.ts;
  switch (record.type) {
    case 'event':
      return [[time, record.event, '', '', '', '']];
    case 'hook_run': {
      const decision = record.status === 'success' ? record.decision : `${record.decision} (${record.status})`;
      return [[time, record.event, record.hook_name, decision, record.duration_ms.toFixed(1), record.reason ?? record.error ?? '']];
    }
    case 'permission':
      return [[time, `permission ${record.tool_name}`, '', describePermission(record), '', record.reason ?? '']];
    case 'note':
      return [[time, 'note', '', record.level, '', record.message]];
    case 'permission_required':
      return [[time, `PermissionRequired ${record.tool_name}`, record.hook_name, 'advisory', '', record.permission]];
    case 'dispatch':
      // The hook_run rows already say what each hook decided.
      return [];
    default:
      // A record kind this version does not know (a newer log).
      return [[time, String((record as AuditRecord).type), '', '', '', '']];
  }
}
