import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { z } from 'zod';
import { permissionModeSchema } from '../../core/agent/permissions/permission-settings';
import { isValidSessionId } from '../../core/session-id';
import { describeDifference } from '../../core/replay/decisions';
import { RecordingError } from '../../core/replay/recording';
import { loadReplaySource, recordingFileFor, type ReplaySource } from '../../core/replay/replay-source';
import { replayInScratchCopy, ReplayRefusedError, type ScratchReplayResult } from '../../core/replay/scratch-replay';
import { errorMessage } from '../../core/error-message';
import { projectDirOf, stderrLogger, type CliContext } from '../cli-context';
import { CliError, EXIT, usageError } from '../cli-error';
import { cliSecretValues, projectStorageDir, userSettingsFile } from '../cli-environment';
import { storageRoot } from '../../core/storage-root';
import { headlessApprover } from '../headless-approver';
import { TerminalApprover } from '../terminal-approver';
import { plainToolNames, splitToolList } from '../tool-rules';
import { loadPermissions, workspacePermissionNotices } from '../workspace-permissions';
import { workspaceConfigs } from '../composition';
import { collect } from './hooks';

const replayOptionsSchema = z.object({
  cwd: z.string().optional(),
  json: z.boolean().default(false),
  allowedTools: z.array(z.string()).default([]),
  disallowedTools: z.array(z.string()).default([]),
  permissionMode: permissionModeSchema.optional(),
  hooks: z.array(z.string()).default([]),
  maxSteps: z.number().int().positive().optional(),
});
type ReplayOptions = z.infer<typeof replayOptionsSchema>;

/** Next to the CLI in the bundle (dist/); absent when the CLI runs from source. */
const BUNDLED_SPAWNER = path.join(__dirname, 'process-spawner.js');

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return n;
}

export function registerReplayCommand(program: Command, ctx: CliContext): void {
  program
    .command('replay')
    .description(
      "re-run a recorded session's model replies against today's hooks and tools, in a scratch copy of the workspace, " +
        'and print each decision that differs (exit 1 when one does)',
    )
    .argument('<recording>', 'a session id of this workspace, or an audit log or transcript file (.jsonl)')
    .option('--cwd <dir>', 'the workspace whose copy the replay runs in (default: the current directory)')
    .option('--allowed-tools <rules>', 'tools or rules to allow without asking, as for run (repeatable)', collect)
    .option('--disallowed-tools <rules>', 'tools or rules to deny, as for run (repeatable)', collect)
    .addOption(
      new Option(
        '--permission-mode <mode>',
        "permission mode (default: the workspace settings' mode, else the user settings', else default)",
      ).choices(permissionModeSchema.options),
    )
    .option('--hooks <file>', 'an extra hooks.json-format file (repeatable)', collect)
    .option('--max-steps <n>', 'stop a turn after this many model steps (default 50)', positiveInteger)
    .option('--json', 'print JSON')
    .action(async (recordingArg: string, raw: unknown) => {
      ctx.exitCode = await replay(recordingArg, replayOptionsSchema.parse(raw), ctx);
    });
}

/** A file path (it exists), else a session id of this workspace: its audit log, else its transcript. */
async function resolveSource(arg: string, ctx: CliContext, storageDir: string): Promise<ReplaySource> {
  const asFile = path.resolve(ctx.cwd, arg);
  let file: string | undefined;
  try {
    if (existsSync(asFile) && statSync(asFile).isFile()) file = asFile;
    else if (isValidSessionId(arg)) file = recordingFileFor(storageDir, arg);
    if (!file) throw usageError(`no recorded session or file "${arg}" (hookpilot timeline --list shows this workspace's sessions)`);
    return await loadReplaySource(file);
  } catch (error) {
    if (error instanceof RecordingError) throw usageError(`${file ?? arg}: ${error.message}`);
    throw error;
  }
}

async function replay(recordingArg: string, options: ReplayOptions, ctx: CliContext): Promise<number> {
  const projectDir = projectDirOf(ctx, options.cwd);
  const storageDir = projectStorageDir(storageRoot(ctx.env), projectDir);
  const allowedTools = options.allowedTools.flatMap((list) => splitToolList(list, '--allowed-tools'));
  const disallowedTools = options.disallowedTools.flatMap((list) => splitToolList(list, '--disallowed-tools'));
  for (const file of options.hooks) if (!existsSync(path.resolve(file))) throw usageError(`--hooks: no such file ${path.resolve(file)}`);
  const source = await resolveSource(recordingArg, ctx, storageDir);
  const settingsFile = userSettingsFile(ctx.env);
  const loaded = loadPermissions(projectDir, settingsFile, { mode: options.permissionMode, allowedTools, disallowedTools });
  // As for run: the replayed commands run under what a cloned repository's settings chose.
  for (const notice of workspacePermissionNotices(loaded)) ctx.stderr.write(`hookpilot: ${notice}\n`);
  const permissions = loaded.settings;

  const controller = new AbortController();
  const stopListening = ctx.onInterrupt(() => controller.abort());
  // As for run: someone can answer only on a terminal. A recorded answer is never reused.
  const terminal = ctx.stdin.isTTY ? new TerminalApprover(ctx.stdin, ctx.question) : undefined;
  let result: ScratchReplayResult;
  try {
    result = await replayInScratchCopy({
      source,
      projectDir,
      storageDir,
      storageRoots: [storageRoot(ctx.env)],
      trusted: true,
      env: ctx.env,
      log: stderrLogger(ctx),
      secretValues: cliSecretValues(ctx.env),
      userSettingsFile: settingsFile,
      spawnerModulePath: existsSync(BUNDLED_SPAWNER) ? BUNDLED_SPAWNER : undefined,
      configs: (workspaceDir) =>
        workspaceConfigs(
          workspaceDir,
          ctx.env,
          options.hooks.map((f) => path.resolve(f)),
        ),
      permissions,
      disallowedTools: plainToolNames(disallowedTools),
      maxSteps: options.maxSteps,
      approver: terminal ?? headlessApprover,
      signal: controller.signal,
      // As in run: stderr (hooks' warnings) and the report are redacted with the engine's secrets.
      onEngine: (engine) => (ctx.redactor = engine.audit.redactor),
    });
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (error instanceof ReplayRefusedError) throw usageError(error.message);
    throw new CliError(`replay of ${source.file} failed: ${errorMessage(error)}`);
  } finally {
    terminal?.dispose();
    stopListening();
  }
  if (options.json) ctx.stdout.write(`${JSON.stringify(ctx.redactor.redactForSerialization(toJson(source, result)), null, 2)}\n`);
  else printText(source, result, ctx);
  if (result.cancelled) return EXIT.interrupted;
  return result.differences.length > 0 ? EXIT.failed : EXIT.ok;
}

const replies = (n: number) => `${n} model repl${n === 1 ? 'y' : 'ies'}`;

function notesOf(source: ReplaySource, result: ScratchReplayResult): string[] {
  const notes = [...source.recording.notes];
  result.turns.forEach((turn, i) => {
    if (turn.error) notes.push(`turn ${i + 1} ended with an error: ${turn.error}`);
    if (turn.unusedReplies > 0) notes.push(`turn ${i + 1} ended ${replies(turn.unusedReplies)} early (${turn.reason})`);
  });
  for (const skipped of result.skipped) notes.push(`not copied: ${skipped}`);
  return notes;
}

function toJson(source: ReplaySource, result: ScratchReplayResult) {
  return {
    type: 'replay',
    recording: source.file,
    recording_kind: source.recording.kind,
    recorded_session_id: source.recording.sessionId,
    replay_session_id: result.replaySessionId,
    audit_log: result.auditLog,
    differs: result.differences.length > 0,
    differences: result.differences.map((d) => ({ ...d, description: describeDifference(d) })),
    turns: result.turns.map((t) => ({ prompt: t.prompt, reason: t.reason, error: t.error, unused_replies: t.unusedReplies })),
    notes: notesOf(source, result),
  };
}

/** Model-written text (commands, paths) is shown with control and format characters escaped. */
function printable(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function printText(source: ReplaySource, result: ScratchReplayResult, ctx: CliContext): void {
  const count = source.recording.turns.reduce((n, t) => n + t.responses.length, 0);
  const { sessionId, turns } = source.recording;
  ctx.stdout.write(`Replayed ${sessionId} (${turns.length} turn(s), ${replies(count)}) in a copy of the workspace\n`);
  ctx.stdout.write(`Replay session ${result.replaySessionId} (${result.auditLog})\n`);
  for (const difference of result.differences) ctx.stdout.write(`${printable(ctx.redactor.redactText(describeDifference(difference)))}\n`);
  for (const note of notesOf(source, result)) ctx.stderr.write(`hookpilot: note: ${printable(note)}\n`);
  const differ = result.differences.length;
  const summary = differ === 1 ? '1 decision differs' : `${differ} decisions differ`;
  ctx.stdout.write(differ === 0 ? 'No decision differs from the recording.\n' : `${summary} from the recording.\n`);
}
