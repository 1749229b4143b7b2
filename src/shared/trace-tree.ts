import type { AuditRecord } from '../core/audit/records';
import { badgeFor, hookRunDecision, type DecisionBadge } from './decision-badge';
import { SlowestDurations } from './slowest-durations';
import { SpanForest } from './trace-forest';
import { clip, fieldsOf, parseTime, text, type Fields } from './trace-labels';
import { TraceScopes } from './trace-scopes';
import type { TraceSpan } from './trace-span';

export type { SpanKind, TraceSpan } from './trace-span';
export { SLOWEST_COUNT } from './slowest-durations';

/**
 * A session's audit records as a trace: turn > step > model request / tool call > event
 * (one hook dispatch) > hook runs, each a span with a start and an end on the session's
 * clock. `TraceTree.add` takes records as they arrive and updates the tree in place, so a
 * live timeline costs one pass over each new batch, never a rebuild.
 *
 * Records name no parent: the structure comes from the events the agent fires in order
 * (UserPromptSubmit opens a turn, BeforeLLM a step and its model request, PreToolUse a tool
 * call keyed by tool_use_id, SubagentStart a subagent keyed by agent_id; `TraceScopes` keeps
 * what is open) and from the dispatch id that ties hook runs and the dispatch summary to
 * their event. A record whose parent is not in the log (a log cut at its start, a hook run
 * with no turn) lands at the top level, under a stand-in for its event when that is missing.
 */

/** Events that belong to the turn rather than to the step running when they fire. */
const TURN_EVENTS = new Set(['UserPromptSubmit', 'TurnStart', 'TurnEnd', 'Stop', 'StopFailure', 'FollowUpQueued', 'InterruptReceived']);
/** Events outside any turn. */
const SESSION_EVENTS = new Set(['SessionStart', 'SessionEnd']);
/** Events of one tool call: their payload carries its tool_use_id. */
const TOOL_EVENTS = new Set(['PreToolUse', 'PermissionRequest', 'PermissionDenied', 'PostToolUse', 'PostToolUseFailure', 'ToolSkipped']);
/** Tool events that end the call, with the outcome they mean. */
const TOOL_ENDS: Record<string, { decision: string; badge: DecisionBadge } | undefined> = {
  PostToolUse: undefined,
  PostToolUseFailure: { decision: 'failed', badge: 'error' },
  PermissionDenied: { decision: 'denied', badge: 'deny' },
  ToolSkipped: { decision: 'skipped', badge: 'none' },
};

export class TraceTree {
  /** Changes with every batch that changed the tree. */
  version = 0;
  private readonly forest = new SpanForest();
  private readonly scopes = new TraceScopes(this.forest);
  private lastSeq = -1;
  private readonly byDispatch = new Map<string, TraceSpan>();
  /** Permission asks waiting for their answer, by tool_use_id (or tool name). */
  private readonly asks = new Map<string, TraceSpan>();
  private readonly slowest = new SlowestDurations();

  get roots(): TraceSpan[] {
    return this.forest.roots;
  }

  /** The session's first start (0 while empty). */
  get startMs(): number {
    return this.forest.startMs;
  }

  /** The session's last end (0 while empty). */
  get endMs(): number {
    return this.forest.endMs;
  }

  /** Spans in the tree. */
  get size(): number {
    return this.forest.size;
  }

  /** Adds records (any order within the batch; ones already added are skipped). */
  add(records: readonly AuditRecord[]): void {
    const fresh = records.filter((r) => r.seq > this.lastSeq);
    if (fresh.length === 0) return;
    if (!fresh.every((r, i) => i === 0 || fresh[i - 1].seq < r.seq)) fresh.sort((a, b) => a.seq - b.seq);
    for (const record of fresh) this.addRecord(record);
    this.lastSeq = fresh[fresh.length - 1].seq;
    this.version++;
  }

  /** Hook runs at least this long are among the slowest SLOWEST_COUNT (Infinity while there are none). */
  get slowThresholdMs(): number {
    return this.slowest.thresholdMs;
  }

  /** Every span, depth first, in the order of the tree. */
  walk(spans?: readonly TraceSpan[]): Generator<TraceSpan> {
    return this.forest.walk(spans);
  }

  private addRecord(record: AuditRecord): void {
    switch (record.type) {
      case 'event':
        this.addEvent(record);
        return;
      case 'dispatch': {
        const span = this.eventSpan(record.dispatch_id, record.event);
        const end = parseTime(record.ts);
        span.decision = record.decision === 'none' ? span.decision : record.decision;
        span.badge = badgeFor(record.decision);
        span.open = false;
        this.forest.stretch(span, end - record.duration_ms, end);
        // A blocked prompt: its turn ends with TurnEnd (reason blocked), or with the next prompt in older logs.
        const turn = this.scopes.turn;
        if (record.event === 'UserPromptSubmit' && span.badge === 'block' && span.parent === turn && turn) {
          turn.badge = 'block';
          turn.decision = 'blocked';
        }
        return;
      }
      case 'hook_run': {
        const parent = this.eventSpan(record.dispatch_id, record.event);
        const end = parseTime(record.ts);
        const decision = hookRunDecision(record);
        const span = this.forest.span('hook', record.hook_name, parent, record, record.event);
        span.hookName = record.hook_name;
        span.decision = decision;
        span.badge = badgeFor(decision);
        span.async = record.async === true;
        this.forest.stretch(span, end - record.duration_ms, end, span.async);
        this.slowest.note(record.duration_ms);
        return;
      }
      case 'permission':
        this.addPermission(record);
        return;
      case 'note': {
        const at = parseTime(record.ts);
        const decision = record.level === 'info' ? '' : record.level;
        const span = this.forest.span('note', clip(record.message), this.scopes.innermost(''), record);
        span.decision = decision;
        span.badge = record.level === 'error' ? 'error' : 'none';
        this.forest.stretch(span, at, at);
      }
    }
  }

  private addEvent(record: Extract<AuditRecord, { type: 'event' }>): void {
    const payload = fieldsOf(record.payload);
    const at = parseTime(record.ts);
    const agentId = text(payload.agent_id) ?? '';
    const name = record.event;
    const scopes = this.scopes;
    let parent: TraceSpan | undefined;
    if (name === 'UserPromptSubmit' && agentId === '') {
      scopes.endTurn(undefined);
      parent = scopes.startTurn(at, text(payload.prompt));
    } else if (name === 'SubagentStart' && agentId !== '') {
      parent = scopes.startSubagent(agentId, payload, at);
    } else if (name === 'SubagentStop' && scopes.subagent(agentId)) {
      parent = scopes.subagent(agentId);
    } else if (SESSION_EVENTS.has(name)) {
      parent = undefined;
    } else if (TOOL_EVENTS.has(name) && text(payload.tool_use_id)) {
      parent = scopes.toolSpan(String(payload.tool_use_id), agentId, payload, at);
    } else if (name === 'BeforeLLM') {
      parent = scopes.startModel(agentId, payload, at, record);
    } else if (name === 'AfterLLM') {
      parent = scopes.agent(agentId).model ?? scopes.innermost(agentId);
    } else if (TURN_EVENTS.has(name) && agentId === '') {
      parent = scopes.turn ?? (name === 'TurnStart' ? scopes.startTurn(at, text(payload.prompt)) : undefined);
    } else {
      parent = scopes.innermost(agentId);
    }
    const span = this.eventSpan(record.dispatch_id, name, parent);
    span.record = record;
    span.label = name;
    this.forest.stretch(span, at, at);
    this.afterEvent(name, agentId, payload, span, at);
  }

  /** What an event closes, once its own span is in place. */
  private afterEvent(name: string, agentId: string, payload: Fields, span: TraceSpan, at: number): void {
    switch (name) {
      case 'AfterLLM':
        this.scopes.endModel(agentId, payload, at);
        return;
      case 'StepComplete':
        this.scopes.endStep(agentId, at);
        return;
      case 'SubagentStop':
        this.scopes.endSubagent(agentId, at);
        return;
      case 'TurnEnd':
        if (agentId === '') this.scopes.endTurn(text(payload.reason) ?? '');
        return;
    }
    const end = TOOL_ENDS[name];
    if (name in TOOL_ENDS && span.parent?.kind === 'tool') {
      const tool = span.parent;
      if (end) Object.assign(tool, end);
      this.forest.close(tool, at, tool.decision);
    }
  }

  private addPermission(record: Extract<AuditRecord, { type: 'permission' }>): void {
    const at = parseTime(record.ts);
    const key = record.tool_use_id ?? `tool:${record.tool_name}`;
    const pending = this.asks.get(key);
    if (pending && record.decision !== 'ask') {
      // The answer to an ask: the span lasts as long as the person took.
      this.asks.delete(key);
      pending.record = record;
      pending.label = `Permission · ${record.tool_name}`;
      this.forest.close(pending, at, record.decision);
      pending.badge = badgeFor(record.decision);
      if (pending.parent?.kind === 'tool') this.setOutcome(pending.parent, record.decision);
      return;
    }
    const tool = record.tool_use_id ? this.scopes.tool(record.tool_use_id) : undefined;
    const parent = tool ?? this.scopes.innermost(record.agent_id ?? '');
    const span = this.forest.span('permission', `Permission · ${record.tool_name}`, parent, record);
    span.decision = record.decision;
    span.badge = badgeFor(record.decision);
    this.forest.stretch(span, at, at);
    if (record.decision === 'ask') {
      span.open = true;
      this.asks.set(key, span);
    } else if (tool) {
      this.setOutcome(tool, record.decision);
    }
  }

  private setOutcome(tool: TraceSpan, decision: string): void {
    if (tool.badge === 'error' || tool.badge === 'deny') return;
    tool.decision = decision;
    tool.badge = badgeFor(decision);
  }

  /** The span of dispatch `id`: made on first sight, as a stand-in at the top level when its event record has not come. */
  private eventSpan(id: string, event: string, parent?: TraceSpan): TraceSpan {
    const known = this.byDispatch.get(id);
    if (known) {
      // The event record came after its hook runs (out of order): move the stand-in to its place.
      if (parent && known.parent !== parent && known.record === undefined) this.forest.move(known, parent);
      return known;
    }
    const span = this.forest.span('event', `${event} (event not in the log)`, parent, undefined, event);
    this.byDispatch.set(id, span);
    return span;
  }
}
