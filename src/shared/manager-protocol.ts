import * as z from 'zod';
import { auditRecordSchema } from '../core/audit/records';
import {
  approvalViewSchema,
  hookViewSchema,
  mcpServerViewSchema,
  pendingConfigViewSchema,
  problemViewSchema,
  testResultViewSchema,
  timelineSessionSchema,
} from './manager-views';
import { quickArray } from './quick-check';
import { approvalChoiceSchema, receive, type Received } from './wire-common';

/**
 * Messages between the Hook Manager webview and the extension host. Hooks, problems,
 * approvals and trust are small snapshots (the latest wins). The timeline is the audit
 * log of one session: `timelineReset` replaces it, `timelineAppend` adds the records
 * written since (records carry the log's own `seq`, so duplicates are dropped and a gap
 * makes the webview ask for the session again with `selectSession`).
 */

export const managerTabSchema = z.enum(['hooks', 'approvals', 'timeline', 'mcp']);
export type ManagerTab = z.infer<typeof managerTabSchema>;

/**
 * The Timeline holds at most this many of a session's records (the newest; the host's reset sends
 * no more) ...
 */
export const MAX_TIMELINE_RECORDS = 10_000;
/** ... and at most this many characters of them as JSON, so a session of big tool outputs cannot make a huge message. */
export const MAX_TIMELINE_CHARS = 8 * 1024 * 1024;

/** Timeline records, checked with the audit log's schema (quickly: a reset carries up to MAX_TIMELINE_RECORDS). */
const auditRecordListSchema = quickArray(auditRecordSchema);

export const hostToManagerSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('hooks'),
    hooks: z.array(hookViewSchema),
    /** `disableAllHooks` is set in a config: every configured hook is off. */
    disableAllHooks: z.boolean(),
  }),
  z.object({ type: z.literal('problems'), problems: z.array(problemViewSchema) }),
  z.object({ type: z.literal('approvals'), pending: z.array(approvalViewSchema) }),
  /** Workspace trust: workspace-sourced hooks run only when trusted. */
  z.object({ type: z.literal('trust'), trusted: z.boolean() }),
  z.object({
    type: z.literal('timelineReset'),
    sessionId: z.string(),
    records: auditRecordListSchema,
    /** The seqs of records whose long strings were cut: the detail pane asks for them whole (`timelineDetail`). */
    shortened: z.array(z.number().int()).optional(),
    /** Sessions that have a log, newest first. */
    sessions: z.array(timelineSessionSchema),
  }),
  z.object({
    type: z.literal('timelineAppend'),
    sessionId: z.string(),
    records: auditRecordListSchema,
    shortened: z.array(z.number().int()).optional(),
  }),
  /** The answer to `timelineDetail`: the record whole, a model request rebuilt in full. */
  z.object({ type: z.literal('timelineRecord'), sessionId: z.string(), record: auditRecordSchema }),
  /** The session list changed (a session started or ended) without switching the shown one. */
  z.object({ type: z.literal('timelineSessions'), sessions: z.array(timelineSessionSchema) }),
  /** The answer to `testFire` for hook `id`. */
  z.object({ type: z.literal('testResult'), id: z.string(), result: testResultViewSchema }),
  /** Bring a tab to the front (commands like "Show Pending Approvals"). */
  /** `hook`: show the timeline filtered to that hook's runs (by name; the health notification's "Show Runs"). */
  z.object({ type: z.literal('showTab'), tab: managerTabSchema, hook: z.string().min(1).optional() }),
  /** Configuration changes held until a person applies or discards them (the latest list wins). */
  z.object({ type: z.literal('pendingConfig'), changes: z.array(pendingConfigViewSchema) }),
  /** The MCP servers with their status and tools (the latest list wins; sent again on each change). */
  z.object({ type: z.literal('mcpServers'), servers: z.array(mcpServerViewSchema) }),
]);
export type HostToManager = z.infer<typeof hostToManagerSchema>;

export const MAX_TEST_PAYLOAD_CHARS = 1_000_000;

export const managerToHostSchema = z.discriminatedUnion('type', [
  /** The webview loaded: the host answers with hooks, problems, approvals, trust and a timelineReset. */
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('toggleHook'), id: z.string().min(1), enabled: z.boolean() }),
  z.object({ type: z.literal('toggleAll'), enabled: z.boolean() }),
  /** Run hook `id` once with `payload` (JSON text, as edited by the user); the host answers with testResult. */
  z.object({ type: z.literal('testFire'), id: z.string().min(1), payload: z.string().max(MAX_TEST_PAYLOAD_CHARS) }),
  z.object({ type: z.literal('openDefinition'), id: z.string().min(1) }),
  /** A person approves hook `id`'s changed scripts (or its rpc server's) as its row listed them: `fingerprint` is the row's. */
  z.object({ type: z.literal('approveScripts'), id: z.string().min(1), fingerprint: z.string().min(1) }),
  z.object({ type: z.literal('openProblem'), id: z.string().min(1) }),
  /** `key`: the card's (ApprovalView.key): the answer reaches that ask only, never a later one under the same id. */
  z.object({ type: z.literal('answerApproval'), id: z.string().min(1), key: z.string().min(1), choice: approvalChoiceSchema }),
  /** Show the change the pending file edit `id` proposes (as the chat's showDiff). */
  z.object({ type: z.literal('showDiff'), id: z.string().min(1) }),
  z.object({ type: z.literal('selectSession'), sessionId: z.string().min(1) }),
  z.object({ type: z.literal('exportTimeline'), sessionId: z.string().min(1) }),
  /** Record `seq` of the shown session in full (a model request is logged as a delta); the host answers with timelineRecord. */
  z.object({ type: z.literal('timelineDetail'), sessionId: z.string().min(1), seq: z.number().int().nonnegative() }),
  /** Run the hook of hook_run record `seq` again on the payload it got then (the Hooks tab's test panel shows it). */
  z.object({ type: z.literal('testFireRecord'), sessionId: z.string().min(1), seq: z.number().int().nonnegative() }),
  /** Replay the session's recorded model replies against today's hooks, in a scratch copy; the timeline shows the replay. */
  z.object({ type: z.literal('replaySession'), sessionId: z.string().min(1) }),
  z.object({ type: z.literal('reloadHooks') }),
  z.object({ type: z.literal('openHooksConfig') }),
  /** Open VS Code's workspace trust editor (from the Restricted Mode banner). */
  z.object({ type: z.literal('manageTrust') }),
  /** Apply the held configuration change `id`, exactly as shown. */
  z.object({ type: z.literal('applyConfigChange'), id: z.string().min(1) }),
  /** Discard the held configuration change `id`: the applied configuration stays. */
  z.object({ type: z.literal('discardConfigChange'), id: z.string().min(1) }),
  z.object({ type: z.literal('restartMcpServer'), name: z.string().min(1) }),
  /** Turn MCP server `name` on or off; the choice is kept for this workspace. */
  z.object({ type: z.literal('toggleMcpServer'), name: z.string().min(1), enabled: z.boolean() }),
]);
export type ManagerToHost = z.infer<typeof managerToHostSchema>;

export function receiveHostToManager(raw: unknown): Received<HostToManager> {
  return receive(hostToManagerSchema, raw);
}

export function receiveManagerToHost(raw: unknown): Received<ManagerToHost> {
  return receive(managerToHostSchema, raw);
}
