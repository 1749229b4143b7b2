import type { ChatMessage } from '../agent/llm/chat-model';
import { COMPACTION_STEP } from '../agent/compaction';
import { clip } from '../agent/tool-summary';
import type { AuditRecord } from '../audit/records';
import { messageText, toolOutcomeOf } from './transcript-text';
import { uniqueCallIds } from '../agent/llm/unique-call-ids';

/**
 * The decisions of a run, as its audit log has them, in a form two runs can be compared by:
 * for each tool call, what the policy decided (allow, deny, or ask a person: a person's answer
 * is not policy); for every other dispatch, the hooks' combined decision and who made it.
 */
export interface Decision {
  /** Matches the same decision in another run: the tool call's id, else the event's place in its turn. */
  key: string;
  /** The model reply this decision follows (1-based over the session), 0 before the first. */
  step: number;
  event: string;
  /** `Bash(rm -rf build)` for a tool call. */
  subject?: string;
  decision: string;
  /** Who decided: "hook guard", "rule Bash(git *)", "default mode", ... */
  by?: string;
}

export interface DecisionDifference {
  key: string;
  step: number;
  event: string;
  subject?: string;
  recorded?: { decision: string; by?: string };
  now?: { decision: string; by?: string };
}

type Fields = Record<string, unknown>;

/** Events whose decisions the tool-call record already covers, or that cannot decide anything. */
const NOT_COMPARED = new Set(['PreToolUse', 'PermissionDenied']);
const PERSON = new Set(['person', 'timeout', 'cancel']);

/** What a tool call's subject shows of its input: its main field, else the whole input as JSON. */
export function subjectTextOf(input: unknown): string {
  const fields = typeof input === 'object' && input !== null ? (input as Fields) : {};
  const main = ['command', 'file_path', 'pattern', 'path', 'url', 'description']
    .map((k) => fields[k])
    .find((v): v is string => typeof v === 'string');
  return main ?? (Object.keys(fields).length > 0 ? JSON.stringify(fields) : '');
}

/** `Bash(rm -rf build)`, `Write(src/a.ts)` from subjectTextOf the input: paths inside the workspace shown relative to it. */
export function toolSubject(toolName: string, text: string, workspaceRoot?: string): string {
  if (workspaceRoot) text = text.split(`${workspaceRoot.replace(/\/+$/, '')}/`).join('');
  return `${toolName}(${clip(text.replace(/\s+/g, ' '), 80)})`;
}

/** The comparable decisions in a session's records, in order. */
export function decisionsOf(records: readonly AuditRecord[]): Decision[] {
  const events = new Map<string, { event: string; payload: Fields }>();
  const dispatches = new Map<string, { decision: string }>();
  const deciders = new Map<string, string[]>();
  const runs = new Map<string, Array<{ name: string; status: string }>>();
  // In place: a recording of many runs under one dispatch must not cost their square.
  const add = <T>(map: Map<string, T[]>, key: string, value: T) => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const record of records) {
    if (record.type === 'event') events.set(record.dispatch_id, { event: record.event, payload: (record.payload ?? {}) as Fields });
    else if (record.type === 'dispatch') dispatches.set(record.dispatch_id, { decision: record.decision });
    else if (record.type === 'hook_run' && !record.async) {
      if (record.decision !== 'none') add(deciders, record.dispatch_id, `hook ${record.hook_name}`);
      // A hook of the user's that fails now (a guard failing open) differs even when the dispatch decides the same.
      // Exit 2 is a decision, which the dispatch's unit compares.
      const status = record.status === 'blocking-error' ? 'success' : record.status;
      if (record.source !== 'builtin') add(runs, record.dispatch_id, { name: record.hook_name, status });
    }
  }

  // Hooks of a group run in parallel: their order in the log is not a difference.
  const decidersOf = (dispatchId: string) => deciders.get(dispatchId)?.sort().join(', ');
  const out: Decision[] = [];
  const byTool = new Map<string, Decision>();
  const preToolDispatch = new Map<Decision, string>();
  const counts = new Map<string, number>();
  let step = 0;
  let turn = 0;
  let inTurn = false;
  let root: string | undefined;
  for (const record of records) {
    if (record.type === 'permission' && record.tool_use_id) {
      const decision = byTool.get(record.tool_use_id);
      if (!decision) continue;
      // An ask is the policy's decision; the person's answer that follows is not.
      if (decision.decision === 'ask') continue;
      decision.decision = record.decision === 'ask' || PERSON.has(record.by ?? '') ? 'ask' : record.decision;
      // Hooks of a group that all deny race to be the one the gate names: name them all.
      const hooks = record.by === 'hook' ? decidersOf(preToolDispatch.get(decision) ?? '') : undefined;
      decision.by = hooks ?? record.source;
      continue;
    }
    if (record.type !== 'event') continue;
    const { payload } = events.get(record.dispatch_id) ?? { payload: {} as Fields };
    if (record.event === 'SessionStart' && typeof payload.cwd === 'string') root ??= payload.cwd;
    if (payload.agent_id === undefined) {
      if (record.event === 'AfterLLM' && payload.step !== COMPACTION_STEP) step++;
      if (record.event === 'UserPromptSubmit' && !inTurn) turn++;
      if (record.event === 'TurnStart') inTurn = true;
      if (record.event === 'TurnEnd') inTurn = false;
    }
    const toolUseId = typeof payload.tool_use_id === 'string' ? payload.tool_use_id : undefined;
    // A record a replay kept has the input's subject text already (keptRecord).
    const input = typeof payload.tool_input === 'string' ? payload.tool_input : subjectTextOf(payload.tool_input);
    const subject = typeof payload.tool_name === 'string' ? toolSubject(payload.tool_name, input, root) : undefined;
    if (record.event === 'PreToolUse' && toolUseId) {
      // Some models reuse call ids across steps: the nth call with an id is matched with the nth.
      const nth = (counts.get(`tool ${toolUseId}`) ?? 0) + 1;
      counts.set(`tool ${toolUseId}`, nth);
      // Not reaching the gate (input invalid now, a hook blocked it) leaves this as it is.
      const key = nth === 1 ? `tool ${toolUseId}` : `tool ${toolUseId} #${nth}`;
      const decision: Decision = { key, step, event: 'PreToolUse', subject, decision: 'not decided' };
      const dispatch = dispatches.get(record.dispatch_id);
      if (dispatch && dispatch.decision !== 'none') {
        Object.assign(decision, { decision: dispatch.decision, by: decidersOf(record.dispatch_id) });
      }
      byTool.set(toolUseId, decision);
      preToolDispatch.set(decision, record.dispatch_id);
      out.push(decision);
    }
    const place = toolUseId ?? `turn ${turn}`;
    const n = (counts.get(`${record.event} ${place}`) ?? 0) + 1;
    counts.set(`${record.event} ${place}`, n);
    const key = `${record.event} ${place} #${n}`;
    for (const run of runs.get(record.dispatch_id) ?? []) {
      const hookSubject = `${subject ? `${subject} ` : ''}hook ${run.name}`;
      out.push({ key: `${key} hook ${run.name}`, step, event: record.event, subject: hookSubject, decision: run.status });
    }
    if (NOT_COMPARED.has(record.event)) continue;
    const decision = dispatches.get(record.dispatch_id)?.decision ?? 'none';
    out.push({ key, step, event: record.event, subject, decision, by: decision === 'none' ? undefined : decidersOf(record.dispatch_id) });
  }
  return out;
}

/**
 * What a transcript can tell: each tool call's outcome (executed, blocked, denied, failed),
 * read back from its tool message. Used when a session has a transcript but no audit log.
 */
export function outcomesOfTranscript(messages: readonly ChatMessage[], workspaceRoot?: string): Decision[] {
  // The calls of the last reply by the id its tool messages answer, in order: two calls may share one.
  let calls = new Map<string, Decision[]>();
  const seen = new Map<string, number>();
  const out: Decision[] = [];
  let step = 0;
  for (const message of messages) {
    if (message.role === 'assistant') {
      step++;
      calls = new Map();
      const functions = (message.tool_calls ?? []).filter((call) => call.type === 'function');
      // Within a reply, ids are made unique as the agent loop makes them: a replay of it agrees.
      const ids = uniqueCallIds(functions.map((call) => call.id));
      for (const [i, call] of functions.entries()) {
        let input: unknown;
        try {
          input = JSON.parse(call.function.arguments);
        } catch {
          input = call.function.arguments;
        }
        const nth = (seen.get(ids[i]) ?? 0) + 1;
        seen.set(ids[i], nth);
        const key = nth === 1 ? `tool ${ids[i]}` : `tool ${ids[i]} #${nth}`;
        const subject = toolSubject(call.function.name, subjectTextOf(input), workspaceRoot);
        const decision: Decision = { key, step, event: 'tool', subject, decision: 'not run' };
        calls.set(call.id, [...(calls.get(call.id) ?? []), decision]);
        out.push(decision);
      }
    } else if (message.role === 'tool') {
      const decision = calls.get(message.tool_call_id)?.shift();
      if (decision) decision.decision = toolOutcomeOf(messageText(message));
    }
  }
  return out;
}

/** Nothing decided, or a hook that ran fine: not a difference when only one run has it. */
const quiet = (d: Decision) => d.decision === 'none' || d.decision === 'success';
const same = (a: Decision, b: Decision) => a.decision === b.decision && (quiet(a) || a.by === b.by);

/**
 * The decisions that differ between a recorded run and its replay: a different decision or
 * decider, or one only one of the runs reached. Observers that decided nothing in the run
 * that reached them are not differences.
 */
export function diffDecisions(recorded: readonly Decision[], now: readonly Decision[]): DecisionDifference[] {
  const nowByKey = new Map(now.map((d) => [d.key, d]));
  const recordedKeys = new Set(recorded.map((d) => d.key));
  const out: DecisionDifference[] = [];
  const side = (d: Decision) => ({ decision: d.decision, by: d.by });
  for (const r of recorded) {
    const n = nowByKey.get(r.key);
    if (n && same(r, n)) continue;
    if (!n && quiet(r)) continue;
    out.push({ key: r.key, step: r.step, event: r.event, subject: r.subject, recorded: side(r), now: n ? side(n) : undefined });
  }
  for (const n of now) {
    if (recordedKeys.has(n.key) || quiet(n)) continue;
    out.push({ key: n.key, step: n.step, event: n.event, subject: n.subject, now: side(n) });
  }
  return out;
}

/** "step 3 PreToolUse Bash(rm -rf build): recorded allow by rule Bash, now deny by hook guard" */
export function describeDifference(d: DecisionDifference): string {
  const side = (s: { decision: string; by?: string } | undefined) => (s ? `${s.decision}${s.by ? ` by ${s.by}` : ''}` : 'not reached');
  return `step ${d.step} ${d.event}${d.subject ? ` ${d.subject}` : ''}: recorded ${side(d.recorded)}, now ${side(d.now)}`;
}
