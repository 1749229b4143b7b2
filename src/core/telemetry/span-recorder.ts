import { createHash } from 'node:crypto';
import { ROOT_CONTEXT, SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { AuditRecord } from '../audit/records';
import type { HookEventName } from '../hooks/events';
import { ATTR, SPAN, TOOL_END_EVENTS, type TelemetryInstruments } from './telemetry-names';

/**
 * Turns the audit log's record feed into OpenTelemetry spans and metrics: a session span,
 * turn spans under it, model-request and tool-call spans under a turn, a span per hook run
 * under whatever its dispatch belongs to, permission decisions as events on the tool-call
 * span. The records are the audit log's, already redacted; only names, ids, decisions,
 * statuses, durations and short reasons are exported, never tool input or output, prompts,
 * model text or hook output (docs/hooks.md#opentelemetry).
 *
 * Records arrive after the fact, with their timestamps: spans are started and ended with
 * explicit times. A span that waits for its dispatch to finish ends on that dispatch's
 * record, or at once when the event has no subscribers (no dispatch record follows).
 */

export interface SpanRecorderDeps {
  tracer: Tracer;
  instruments?: TelemetryInstruments;
  /** Whether a dispatch of this event in this session writes a closing `dispatch` record (it has subscribers). */
  hasSubscribers: (event: HookEventName, sessionId: string) => boolean;
  /** Export hook reasons, error texts and deciding rules as written (OtlpExportConfig.toolDetails). */
  toolDetails?: boolean;
}

type NodeKind = 'session' | 'turn' | 'model' | 'tool';

interface SpanNode {
  kind: NodeKind;
  span: Span;
  /** The latest time seen in this span or below it: a forced end never ends before its children. */
  lastMs: number;
  ended: boolean;
  children: Set<SpanNode>;
  parent?: SpanNode;
}

interface SessionState {
  id: string;
  session: SpanNode;
  turn?: SpanNode;
  model?: SpanNode;
  tools: Map<string, SpanNode>;
  /** Which span each dispatch belongs to, for its hook runs (async ones report late). */
  dispatchOwner: Map<string, SpanNode>;
  /** Spans that end once their dispatch's closing record arrives. */
  closing: Map<string, SpanNode>;
  turns: number;
}

/** Free text (a hook's reason, an error) is cut to this; it was redacted with the audit record. */
export const MAX_TEXT = 256;
const MAX_ID = 128;
/** Bounds what one session keeps for late records: a long session forgets its oldest dispatches and tool calls. */
const MAX_REMEMBERED = 5_000;
/** Ended sessions whose late records (async hooks) still find their spans. */
const MAX_ENDED_SESSIONS = 16;
const HOOK_FAILURE_STATUSES = new Set(['error', 'timeout']);

export class SpanRecorder {
  private readonly sessions = new Map<string, SessionState>();
  private readonly ended = new Map<string, SessionState>();

  constructor(private readonly deps: SpanRecorderDeps) {}

  /** A text that may quote tool input or output: exported only with toolDetails. */
  private detail(value: unknown): string | undefined {
    return this.deps.toolDetails ? text(value, MAX_TEXT) : undefined;
  }

  /** One audit record of a session, in the order the log wrote them. Never throws. */
  record(record: AuditRecord, sessionId: string): void {
    const ms = Date.parse(record.ts);
    if (!Number.isFinite(ms)) return;
    const ended = this.ended.get(sessionId);
    if (ended) {
      // Only hook runs that finished after their session (async hooks) still belong to it.
      if (record.type === 'hook_run') this.hookRun(ended, record, ms);
      return;
    }
    const state = this.sessions.get(sessionId) ?? this.startSession(sessionId, ms);
    switch (record.type) {
      case 'event':
        return this.event(state, record, ms);
      case 'hook_run':
        return this.hookRun(state, record, ms);
      case 'dispatch': {
        const node = state.closing.get(record.dispatch_id);
        state.closing.delete(record.dispatch_id);
        if (node) this.end(state, node, ms);
        else this.touch(state.dispatchOwner.get(record.dispatch_id) ?? state.session, ms);
        return;
      }
      case 'permission':
        return this.permission(state, record, ms);
      case 'note':
        return;
    }
  }

  /** Ends every open span at the last time it saw (the host is stopping). */
  endAll(): void {
    for (const state of [...this.sessions.values()]) this.end(state, state.session, state.session.lastMs);
  }

  private startSession(id: string, ms: number): SessionState {
    const attributes = { [ATTR.sessionId]: id.slice(0, MAX_ID) };
    const span = this.deps.tracer.startSpan(SPAN.session, { root: true, startTime: ms, attributes }, ROOT_CONTEXT);
    const session = node('session', span, ms);
    const state: SessionState = { id, session, tools: new Map(), dispatchOwner: new Map(), closing: new Map(), turns: 0 };
    this.sessions.set(id, state);
    return state;
  }

  private event(state: SessionState, record: Extract<AuditRecord, { type: 'event' }>, ms: number): void {
    const event = record.event as HookEventName;
    const payload = asObject(record.payload);
    let owner: SpanNode = state.turn ?? state.session;
    let closes: SpanNode | undefined;
    const toolUseId = text(payload.tool_use_id, MAX_ID);
    switch (event) {
      case 'SessionStart':
        owner = state.session;
        if (payload.source === 'compact') break;
        state.session.span.setAttributes(
          defined({
            [ATTR.sessionSource]: text(payload.source, MAX_ID),
            [ATTR.model]: text(payload.model, MAX_ID),
          }),
        );
        break;
      case 'SessionEnd':
        owner = closes = state.session;
        state.session.span.setAttributes(defined({ [ATTR.sessionEndReason]: text(payload.reason, MAX_ID) }));
        break;
      case 'UserPromptSubmit':
        // A message queued while the turn ran goes through UserPromptSubmit too: it stays in that turn.
        owner = state.turn ?? this.startTurn(state, ms);
        break;
      case 'TurnEnd':
        owner = state.turn ?? this.startTurn(state, ms);
        owner.span.setAttributes(
          defined({
            [ATTR.turnIndex]: num(payload.turn_index),
            [ATTR.turnReason]: text(payload.reason, MAX_ID),
            [ATTR.turnSteps]: num(payload.steps),
            [ATTR.turnToolCalls]: num(payload.tool_calls),
          }),
        );
        if (payload.reason === 'error' || payload.reason === 'aborted') {
          owner.span.setStatus({ code: SpanStatusCode.ERROR, message: text(payload.error, MAX_TEXT) });
        }
        closes = owner;
        break;
      case 'BeforeLLM':
        owner = this.startModelRequest(state, payload, ms);
        break;
      case 'AfterLLM': {
        owner = state.model ?? this.startModelRequest(state, payload, ms);
        const response = asObject(payload.llm_response);
        const finish = text(response.finish_reason, MAX_ID);
        if (finish !== undefined) owner.span.setAttribute(ATTR.finishReason, [finish]);
        if (Array.isArray(response.tool_calls)) owner.span.setAttribute(ATTR.responseToolCalls, response.tool_calls.length);
        closes = owner;
        break;
      }
      case 'StopFailure':
        if (state.model) {
          state.model.span.setStatus({ code: SpanStatusCode.ERROR, message: text(payload.error, MAX_ID) });
          this.end(state, state.model, ms);
        }
        break;
      default:
        if (toolUseId !== undefined && isToolEvent(event)) {
          owner = state.tools.get(toolUseId) ?? this.startTool(state, toolUseId, payload, ms);
          if (TOOL_END_EVENTS[event as keyof typeof TOOL_END_EVENTS] && !owner.ended) closes = this.finishTool(owner, event, payload);
        }
    }
    remember(state.dispatchOwner, record.dispatch_id, owner);
    this.touch(owner, ms);
    if (!closes) return;
    if (this.deps.hasSubscribers(event, state.id)) state.closing.set(record.dispatch_id, closes);
    else this.end(state, closes, ms);
  }

  private startTurn(state: SessionState, ms: number): SpanNode {
    state.turns++;
    state.turn = this.child(state.session, 'turn', SPAN.turn, ms, { [ATTR.turnNumber]: state.turns });
    return state.turn;
  }

  private startModelRequest(state: SessionState, payload: Record<string, unknown>, ms: number): SpanNode {
    // A request whose AfterLLM never came (the model failed) ends where the next begins.
    if (state.model) this.end(state, state.model, state.model.lastMs);
    const request = asObject(payload.llm_request);
    const parent = state.turn ?? state.session;
    const attributes = defined({ [ATTR.operation]: 'chat', [ATTR.model]: text(request.model, MAX_ID), [ATTR.step]: num(payload.step) });
    state.model = this.child(parent, 'model', SPAN.modelRequest, ms, attributes);
    return state.model;
  }

  private startTool(state: SessionState, id: string, payload: Record<string, unknown>, ms: number): SpanNode {
    const tool = this.child(
      state.turn ?? state.session,
      'tool',
      SPAN.toolCall,
      ms,
      defined({
        [ATTR.operation]: 'execute_tool',
        [ATTR.toolName]: text(payload.tool_name, MAX_ID),
        [ATTR.toolCallId]: id,
        [ATTR.agentId]: text(payload.agent_id, MAX_ID),
      }),
    );
    remember(state.tools, id, tool);
    return tool;
  }

  /** The tool call's outcome, from the event that ends it; counted once. */
  private finishTool(tool: SpanNode, event: HookEventName, payload: Record<string, unknown>): SpanNode {
    // As the chat's tool cards say it: a hook's deny blocks the call, a rule's or a person's denies it.
    const denied = event === 'PermissionDenied';
    const outcome = denied && payload.source === 'Hook' ? 'blocked' : TOOL_END_EVENTS[event as keyof typeof TOOL_END_EVENTS];
    tool.span.setAttributes(defined({ [ATTR.toolOutcome]: outcome, [ATTR.deniedBy]: denied ? text(payload.source, MAX_ID) : undefined }));
    // The tool's error is its output (a command's stderr, a file's path): only that it failed, unless asked for.
    if (outcome === 'failed')
      tool.span.setStatus({ code: SpanStatusCode.ERROR, message: this.detail(payload.error) ?? 'the tool call failed' });
    const toolName = text(payload.tool_name, MAX_ID) ?? 'unknown';
    this.deps.instruments?.toolCalls.add(1, { [ATTR.toolName]: toolName, [ATTR.toolOutcome]: outcome });
    return tool;
  }

  private hookRun(state: SessionState, record: Extract<AuditRecord, { type: 'hook_run' }>, ms: number): void {
    const parent = state.dispatchOwner.get(record.dispatch_id) ?? state.turn ?? state.session;
    const duration = Math.max(0, record.duration_ms);
    const attributes = defined({
      [ATTR.hookName]: text(record.hook_name, MAX_ID),
      [ATTR.hookEvent]: record.event,
      [ATTR.hookHandler]: record.handler,
      [ATTR.hookSource]: record.source,
      [ATTR.hookStatus]: record.status,
      [ATTR.hookDecision]: record.decision,
      [ATTR.hookDurationMs]: duration,
      [ATTR.hookExitCode]: typeof record.exit_code === 'number' ? record.exit_code : undefined,
      // A guard's reason often quotes the call it judged (`blocked: <command>`).
      [ATTR.hookReason]: this.detail(record.reason),
      [ATTR.hookAsync]: record.async,
    });
    const parentContext = trace.setSpan(ROOT_CONTEXT, parent.span);
    const span = this.deps.tracer.startSpan(SPAN.hookRun, { startTime: ms - duration, attributes }, parentContext);
    const failed = HOOK_FAILURE_STATUSES.has(record.status);
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: this.detail(record.error) ?? record.status });
    span.end(ms);
    this.touch(parent, ms);
    const instruments = this.deps.instruments;
    if (!instruments) return;
    const metric = { [ATTR.hookName]: attributes[ATTR.hookName] ?? '', [ATTR.hookEvent]: record.event, [ATTR.hookHandler]: record.handler };
    instruments.hookRuns.add(1, { ...metric, [ATTR.hookStatus]: record.status, [ATTR.hookDecision]: record.decision });
    if (failed) instruments.hookFailures.add(1, { ...metric, [ATTR.hookStatus]: record.status });
    instruments.hookDuration.record(duration, metric);
  }

  private permission(state: SessionState, record: Extract<AuditRecord, { type: 'permission' }>, ms: number): void {
    const id = text(record.tool_use_id, MAX_ID);
    const target = (id !== undefined ? state.tools.get(id) : undefined) ?? state.turn ?? state.session;
    const by = record.by ?? 'unknown';
    const ruleText = by === 'rule' || by === 'session-rule' ? record.source.replace(/^(?:session )?rule /, '') : undefined;
    // A rule "Allow for this session" or "Always allow" added holds the approved command whole: its content is tool input.
    const rule = ruleText === undefined || this.deps.toolDetails ? ruleText : opaqueRule(ruleText);
    const source = rule === undefined ? record.source : `${by === 'session-rule' ? 'session rule' : 'rule'} ${rule}`;
    const attributes = defined({
      [ATTR.permissionDecision]: record.decision,
      [ATTR.permissionSource]: text(source, MAX_TEXT),
      [ATTR.permissionBy]: by,
      // The rule that decided, when a rule did: the source is "rule Bash(git *)" or "session rule …".
      [ATTR.permissionRule]: text(rule, MAX_TEXT),
      [ATTR.permissionLevel]: record.level,
      [ATTR.permissionAnswer]: record.answer,
      [ATTR.toolName]: text(record.tool_name, MAX_ID),
    });
    target.span.addEvent(SPAN.permission, attributes, ms);
    this.touch(target, ms);
    this.deps.instruments?.permissionDecisions.add(1, { [ATTR.permissionDecision]: record.decision, [ATTR.permissionBy]: by });
  }

  private child(parent: SpanNode, kind: NodeKind, name: string, ms: number, attributes: Attributes): SpanNode {
    const span = this.deps.tracer.startSpan(name, { startTime: ms, attributes }, trace.setSpan(ROOT_CONTEXT, parent.span));
    const created = node(kind, span, ms, parent);
    parent.children.add(created);
    this.touch(parent, ms);
    return created;
  }

  /** Ends a span and what is still open below it, never before the last thing seen in it. */
  private end(state: SessionState, target: SpanNode, ms: number): void {
    if (target.ended) return;
    for (const child of [...target.children]) this.end(state, child, Math.max(child.lastMs, Math.min(ms, target.lastMs)));
    target.ended = true;
    this.touch(target, ms);
    target.span.end(target.lastMs);
    target.parent?.children.delete(target);
    if (state.turn === target) state.turn = undefined;
    if (state.model === target) state.model = undefined;
    if (target.kind === 'session') {
      this.sessions.delete(state.id);
      state.closing.clear();
      remember(this.ended, state.id, state, MAX_ENDED_SESSIONS);
    }
  }

  private touch(target: SpanNode, ms: number): void {
    for (let n: SpanNode | undefined = target; n; n = n.parent) if (ms > n.lastMs) n.lastMs = ms;
  }
}

function node(kind: NodeKind, span: Span, ms: number, parent?: SpanNode): SpanNode {
  return { kind, span, lastMs: ms, ended: false, children: new Set(), parent };
}

function isToolEvent(event: HookEventName): boolean {
  return event === 'PreToolUse' || event === 'PermissionRequest' || event in TOOL_END_EVENTS;
}

/** A bounded map: the oldest entries go first. */
function remember<V>(map: Map<string, V>, key: string, value: V, limit = MAX_REMEMBERED): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value as string);
}

/** `Bash(npm test)` as `Bash(#3f2a…)`: which rule, by a digest of its content, never the content (a command, a path). */
function opaqueRule(rule: string): string {
  const open = rule.indexOf('(');
  if (open < 0 || !rule.endsWith(')')) return rule;
  const content = rule.slice(open + 1, -1);
  return `${rule.slice(0, open)}(#${createHash('sha256').update(content).digest('hex').slice(0, 12)})`;
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function text(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function defined(attributes: Record<string, string | number | boolean | undefined>): Attributes {
  const result: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) result[key] = value;
  return result;
}
