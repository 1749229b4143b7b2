import * as z from 'zod';
import { HANDLER_TYPES, HOOK_SOURCE_KINDS } from '../core/hooks/types';
import { approvalChoiceSchema, hookEventNameSchema, isoTimeSchema } from './wire-common';

/** What the Hook Manager shows: flat, render-ready views the host builds (see manager-view-builders). */

export const hookSourceKindSchema = z.enum(HOOK_SOURCE_KINDS);
export const handlerTypeSchema = z.enum(HANDLER_TYPES);
export const hookRunStatusSchema = z.enum(['success', 'blocking-error', 'error', 'timeout', 'cancelled']);

export const hookLastResultSchema = z.object({
  status: hookRunStatusSchema,
  /** allow, deny, ask, block, context, none, error, timeout, ... */
  decision: z.string(),
  durationMs: z.number().nonnegative(),
  at: isoTimeSchema,
});
export type HookLastResult = z.infer<typeof hookLastResultSchema>;

/** A hook's health in this window (see docs/hooks.md, "Hook health"). */
export const hookHealthViewSchema = z.object({
  runs: z.number().int().nonnegative(),
  /** Runs that ended in error; timeouts apart. */
  failures: z.number().int().nonnegative(),
  timeouts: z.number().int().nonnegative(),
  p50Ms: z.number().nonnegative().optional(),
  p95Ms: z.number().nonnegative().optional(),
  /** The percentiles are those of a uniform sample (a hook with very many runs). */
  sampled: z.boolean(),
  state: z.enum(['healthy', 'failing', 'slow']),
  lastError: z.object({ status: z.enum(['error', 'timeout']), message: z.string(), at: isoTimeSchema }).optional(),
  /** Durations of the last runs, oldest first (the chart). */
  recentMs: z.array(z.number().nonnegative()).max(100),
});
export type HookHealthView = z.infer<typeof hookHealthViewSchema>;

export const hookViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  event: hookEventNameSchema,
  sourceKind: hookSourceKindSchema,
  /** The file it was defined in (absolute or workspace-relative, as the host chooses to show it). */
  file: z.string().optional(),
  /** 1-based line of the handler entry. */
  line: z.number().int().positive().optional(),
  matcher: z.string().optional(),
  handlerType: handlerTypeSchema,
  /** What runs: the command line, the URL, `server (mode)` or the built-in's name. */
  target: z.string(),
  priority: z.number(),
  enabled: z.boolean(),
  trusted: z.boolean(),
  active: z.boolean(),
  /** Why it does not run, in words for the user; absent while active. */
  inactiveReason: z.string().optional(),
  /** Its scripts changed since they were approved: it fails instead of running until re-approved. */
  scriptChanged: z
    .object({
      /** The changed files, workspace-relative and escaped, the first MAX_LISTED_SCRIPT_CHANGES of them. */
      files: z.array(z.string()),
      /** Changed files beyond those listed. */
      more: z.number().int().nonnegative(),
      /** The scripts as listed: Re-approve sends it back, and the host approves nothing else. */
      fingerprint: z.string(),
    })
    .optional(),
  lastResult: hookLastResultSchema.optional(),
  /** Runs that ended in error or timeout. */
  errorCount: z.number().int().nonnegative(),
  runCount: z.number().int().nonnegative(),
  health: hookHealthViewSchema.optional(),
});
export type HookView = z.infer<typeof hookViewSchema>;

/** A configuration diagnostic ("unknown event", "script not executable") with its place. */
export const problemViewSchema = z.object({
  /** Opaque to the webview; `openProblem` sends it back. */
  id: z.string(),
  severity: z.enum(['error', 'warning', 'info']),
  code: z.string(),
  message: z.string(),
  /** JSON path in the config, e.g. `hooks.PreToolUse[0].hooks[1].command`. */
  path: z.string(),
  sourceKind: hookSourceKindSchema,
  file: z.string().optional(),
  line: z.number().int().positive().optional(),
  column: z.number().int().positive().optional(),
});
export type ProblemView = z.infer<typeof problemViewSchema>;

/** A permission prompt waiting for a person (the modal and this list answer the same one). */
export const approvalViewSchema = z.object({
  /** The tool_use_id. */
  id: z.string(),
  /** The host's key for this very ask (the model picks tool_use_ids, and may reuse one): an answer carries it back. */
  key: z.string().min(1),
  sessionId: z.string(),
  toolName: z.string(),
  /** The call as the person must see it to answer: whole and escaped (approval-text.ts), never the clipped summary. */
  subject: z.string(),
  reason: z.string(),
  askedBy: z.string(),
  createdAt: isoTimeSchema,
  /** The rule "Allow for this session" / "Always allow" would add, escaped (visibleRule). */
  suggestedRule: z.string(),
  /** A file edit: the host can show the change before it is answered ("Show diff"). */
  proposedDiff: z.boolean(),
  /** A system ask (e.g. a change to a hook config): only "Allow once" or "Deny" are offered. */
  system: z.boolean(),
  /** Asked by a replay of a recorded session, in a scratch copy of the workspace. */
  replay: z.boolean(),
  /** The answers offered, in order (approval-choices.ts). */
  choices: z.array(approvalChoiceSchema),
});
export type ApprovalView = z.infer<typeof approvalViewSchema>;

export const testResultStatusSchema = z.enum(['success', 'blocking-error', 'error', 'timeout', 'cancelled', 'invalid-payload']);

/** What a test-fire of one hook with a hand-edited payload did. Nothing else ran. */
export const testResultViewSchema = z.object({
  status: testResultStatusSchema,
  decision: z.string(),
  reason: z.string().optional(),
  error: z.string().optional(),
  stdout: z.string().optional(),
  stderr: z.string().optional(),
  exitCode: z.number().nullable().optional(),
  durationMs: z.number().nonnegative(),
  /** The normalized effects (decision, context, rewritten input, ...), as the engine read them. */
  effects: z.unknown().optional(),
  /** The payload the host ran the hook with (a recorded event's): the test panel shows it. */
  payload: z.string().optional(),
});
export type TestResultView = z.infer<typeof testResultViewSchema>;

export const timelineSessionSchema = z.object({
  id: z.string(),
  /** One line: first prompt or start time. */
  label: z.string(),
  startedAt: isoTimeSchema.optional(),
  records: z.number().int().nonnegative().optional(),
  /** The session that is running now (its timeline grows with timelineAppend). */
  live: z.boolean().optional(),
});
export type TimelineSession = z.infer<typeof timelineSessionSchema>;

export const mcpServerStateSchema = z.enum(['starting', 'connected', 'failed', 'disabled', 'untrusted', 'stopped']);

/** One MCP server as the MCP tab shows it; `untrusted`: a workspace server in Restricted Mode, never started. */
export const mcpServerViewSchema = z.object({
  name: z.string(),
  sourceKind: z.enum(['user', 'workspace', 'cli']),
  /** The file it was defined in, as the host shows it. */
  file: z.string().optional(),
  transport: z.enum(['stdio', 'http', 'sse']),
  state: mcpServerStateSchema,
  /** The person's choice (persisted); a server may still not run (untrusted). */
  enabled: z.boolean(),
  error: z.string().optional(),
  tools: z.array(z.object({ name: z.string(), qualifiedName: z.string(), description: z.string() })),
});
export type McpServerView = z.infer<typeof mcpServerViewSchema>;

/** One line of a held change's diff, classed by the diff's structure and escaped by the host (diffLineViews). */
export const diffLineViewSchema = z.object({
  /** `meta`: a file header or "\ No newline at end of file"; `same`, `del`, `add`: a line of the file, whose marker `kind` gives. */
  kind: z.enum(['meta', 'hunk', 'same', 'del', 'add']),
  /** The text as a person must read it: controls, bidi and zero-width characters escaped, long runs of spaces counted. */
  text: z.string(),
});
export type DiffLineView = z.infer<typeof diffLineViewSchema>;

/** A change to hooks.json or the governing settings that no person made: held until one applies or discards it. */
/** What a governed file configures: hooks and permissions, or the workspace's MCP servers. */
export const configSubjectSchema = z.enum(['hooks', 'mcpServers']);
export type ConfigSubject = z.infer<typeof configSubjectSchema>;

export const pendingConfigViewSchema = z.object({
  /** Names exactly the content shown: Apply for an id that is no longer pending is refused. */
  id: z.string(),
  /** The file as a person reads it, e.g. `.vscode/hooks.json`. */
  label: z.string(),
  governs: configSubjectSchema,
  /** The unified diff from the applied content to the content on disk, line by line. */
  lines: z.array(diffLineViewSchema),
  /** The diff was cut short (a very large change). */
  truncated: z.boolean(),
  /** A ConfigChange hook kept this change out when it was about to apply: which, and why. */
  blockedBy: z.object({ hookName: z.string(), reason: z.string() }).optional(),
});
export type PendingConfigView = z.infer<typeof pendingConfigViewSchema>;
