import type { AuditRecord } from '../core/audit/records';
import { badgeFor, hookRunDecision, type DecisionBadge } from './decision-badge';

/**
 * A session's audit records as a trace: turn > step > model request / tool call > event
 * (one hook dispatch) > hook runs, each a span with a start and an end on the session's
 * clock. `TraceTree.add` takes records as they arrive and updates the tree in place, so a
 * live timeline costs one pass over each new batch, never a rebuild.
 *
 * Records name no parent: the structure comes from the events the agent fires in order
 * (UserPromptSubmit opens a turn, BeforeLLM a step and its model request, PreToolUse a tool
 * call keyed by tool_use_id, SubagentStart a subagent keyed by agent_id) and from the
 * dispatch id that ties hook runs and the dispatch summary to their event. A record whose
 * parent is not in the log (a log cut at its start, a hook run with no turn) lands at the
 * top level, under a stand-in for its event when that is missing.
 */

export type SpanKind = 'turn' | 'step' | 'model' | 'tool' | 'subagent' | 'event' | 'hook' | 'permission' | 'note';

export interface TraceSpan {
  readonly id: number;
  kind: SpanKind;
  label: string;
  /** The hook event of the span's record ('' for turns, steps, model requests and tool calls). */
  event: string;
  /** Hook runs only. */
  hookName: string | undefined;
  parent: TraceSpan | undefined;
  children: TraceSpan[];
  depth: number;
  /** Milliseconds since the epoch. */
  startMs: number;
  endMs: number;
  /** Nothing closed it yet: still running, or the log ends before it did. */
  open: boolean;
  badge: DecisionBadge;
  /** The decision, status or outcome in words ('' when there is none). */
  decision: string;
  /** The record the detail pane shows: the event record of an event or model span, the hook run, permission or note. */
  record: AuditRecord | undefined;
  /** An `async: true` hook run: it does not stretch its parents (it ran beside them). */
  async: boolean;
}

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
const TURN_END_BADGES: Record<string, DecisionBadge> = { blocked: 'block', error: 'error' };
/** How many of the slowest hook runs "slowest" keeps. */
export const SLOWEST_COUNT = 20;
const LABEL_CHARS = 100;

type Fields = Record<string, unknown>;

interface AgentContext {
  /** The subagent span (undefined for the main agent, whose root is the open turn). */
  root: TraceSpan | undefined;
  step: TraceSpan | undefined;
  stepNumber: unknown;
  model: TraceSpan | undefined;
}

const fieldsOf = (value: unknown): Fields => (typeof value === 'object' && value !== null ? (value as Fields) : {});
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function clip(value: string): string {
  const line = value.replace(/\s+/g, ' ').trim();
  return line.length > LABEL_CHARS ? `${line.slice(0, LABEL_CHARS - 1)}…` : line;
}

function parseTime(ts: string): number {
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? 0 : ms;
}

/** A tool call in a few words: its name and the input field that says what it does. */
function toolLabel(payload: Fields): string {
  const name = text(payload.tool_name) ?? 'tool';
  const input = fieldsOf(payload.tool_input);
  for (const key of ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt']) {
    const value = text(input[key]);
    if (value) return clip(`${name} · ${value}`);
  }
  return name;
}

export class TraceTree {
  readonly roots: TraceSpan[] = [];
  /** The session's first start and last end (0 while empty). */
  startMs = 0;
  endMs = 0;
  private bounded = false;
  /** Spans in the tree; `version` changes with every batch that changed it. */
  size = 0;
  version = 0;
  private nextId = 0;
  private lastSeq = -1;
  private turnCount = 0;
  private turn: TraceSpan | undefined;
  private readonly agents = new Map<string, AgentContext>();
  private readonly byDispatch = new Map<string, TraceSpan>();
  private readonly tools = new Map<string, TraceSpan>();
  /** Permission asks waiting for their answer, by tool_use_id (or tool name). */
  private readonly asks = new Map<string, TraceSpan>();
  /** The durations of the slowest hook runs, descending, at most SLOWEST_COUNT. */
  private readonly slowest: number[] = [];

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
    return this.slowest.length === 0 ? Infinity : this.slowest[this.slowest.length - 1];
  }

  /** Every span, depth first, in the order of the tree. */
  *walk(spans: readonly TraceSpan[] = this.roots): Generator<TraceSpan> {
    for (const span of spans) {
      yield span;
      yield* this.walk(span.children);
    }
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
        this.stretch(span, end - record.duration_ms, end);
        // A blocked prompt: its turn ends with TurnEnd (reason blocked), or with the next prompt in older logs.
        if (record.event === 'UserPromptSubmit' && span.badge === 'block' && span.parent === this.turn && this.turn) {
          this.turn.badge = 'block';
          this.turn.decision = 'blocked';
        }
        return;
      }
      case 'hook_run': {
        const parent = this.eventSpan(record.dispatch_id, record.event);
        const end = parseTime(record.ts);
        const decision = hookRunDecision(record);
        const span = this.span('hook', record.hook_name, parent, record, record.event);
        span.hookName = record.hook_name;
        span.decision = decision;
        span.badge = badgeFor(decision);
        span.async = record.async === true;
        this.stretch(span, end - record.duration_ms, end, span.async);
        this.noteDuration(record.duration_ms);
        return;
      }
      case 'permission':
        this.addPermission(record);
        return;
      case 'note': {
        const at = parseTime(record.ts);
        const decision = record.level === 'info' ? '' : record.level;
        const span = this.span('note', clip(record.message), this.innermost(this.agent('')), record);
        span.decision = decision;
        span.badge = record.level === 'error' ? 'error' : 'none';
        this.stretch(span, at, at);
      }
    }
  }

  private addEvent(record: Extract<AuditRecord, { type: 'event' }>): void {
    const payload = fieldsOf(record.payload);
    const at = parseTime(record.ts);
    const agentId = text(payload.agent_id) ?? '';
    const name = record.event;
    let parent: TraceSpan | undefined;
    if (name === 'UserPromptSubmit' && agentId === '') {
      this.endTurn(undefined);
      parent = this.startTurn(at, text(payload.prompt));
    } else if (name === 'SubagentStart' && agentId !== '') {
      parent = this.startSubagent(agentId, payload, at);
    } else if (name === 'SubagentStop' && this.agents.get(agentId)?.root) {
      parent = this.agents.get(agentId)?.root;
    } else if (SESSION_EVENTS.has(name)) {
      parent = undefined;
    } else if (TOOL_EVENTS.has(name) && text(payload.tool_use_id)) {
      parent = this.toolSpan(String(payload.tool_use_id), agentId, payload, at);
    } else if (name === 'BeforeLLM') {
      parent = this.startModel(agentId, payload, at, record);
    } else if (name === 'AfterLLM') {
      const context = this.agent(agentId);
      parent = context.model ?? this.innermost(context);
    } else if (TURN_EVENTS.has(name) && agentId === '') {
      parent = this.turn ?? (name === 'TurnStart' ? this.startTurn(at, text(payload.prompt)) : undefined);
    } else {
      parent = this.innermost(this.agent(agentId));
    }
    const span = this.eventSpan(record.dispatch_id, name, parent);
    span.record = record;
    span.label = name;
    this.stretch(span, at, at);
    this.afterEvent(name, agentId, payload, span, at);
  }

  /** What an event closes, once its own span is in place. */
  private afterEvent(name: string, agentId: string, payload: Fields, span: TraceSpan, at: number): void {
    const context = this.agent(agentId);
    switch (name) {
      case 'AfterLLM': {
        const model = context.model;
        if (!model) return;
        const response = fieldsOf(payload.llm_response);
        const calls = Array.isArray(response.tool_calls) ? response.tool_calls.length : 0;
        model.label = `${model.label} → ${calls > 0 ? `${calls} tool call${calls === 1 ? '' : 's'}` : 'answer'}`;
        this.close(model, at, text(response.finish_reason) ?? '');
        context.model = undefined;
        return;
      }
      case 'StepComplete':
        if (context.step) this.close(context.step, at, '');
        context.step = undefined;
        context.model = undefined;
        return;
      case 'SubagentStop':
        if (context.root) this.closeSubtree(context.root, at, '');
        this.agents.delete(agentId);
        return;
      case 'TurnEnd':
        if (agentId === '') this.endTurn(text(payload.reason) ?? '');
        return;
    }
    const end = TOOL_ENDS[name];
    if ((name in TOOL_ENDS) && span.parent?.kind === 'tool') {
      const tool = span.parent;
      if (end) Object.assign(tool, end);
      this.close(tool, at, tool.decision);
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
      this.close(pending, at, record.decision);
      pending.badge = badgeFor(record.decision);
      if (pending.parent?.kind === 'tool') this.setOutcome(pending.parent, record.decision);
      return;
    }
    const tool = record.tool_use_id ? this.tools.get(record.tool_use_id) : undefined;
    const parent = tool ?? this.innermost(this.agent(record.agent_id ?? ''));
    const span = this.span('permission', `Permission · ${record.tool_name}`, parent, record);
    span.decision = record.decision;
    span.badge = badgeFor(record.decision);
    this.stretch(span, at, at);
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

  private startTurn(at: number, prompt: string | undefined): TraceSpan {
    this.turnCount++;
    const label = prompt ? clip(`Turn ${this.turnCount} · ${prompt}`) : `Turn ${this.turnCount}`;
    const turn = this.span('turn', label, undefined);
    turn.open = true;
    this.stretch(turn, at, at);
    this.turn = turn;
    return turn;
  }

  /** Ends the open turn with `reason` (undefined: a new prompt came without the turn's end in the log). */
  private endTurn(reason: string | undefined): void {
    const turn = this.turn;
    if (!turn) return;
    this.turn = undefined;
    const main = this.agent('');
    main.step = undefined;
    main.model = undefined;
    const outcome = reason ?? (turn.decision === 'blocked' ? 'blocked' : 'unfinished');
    this.closeSubtree(turn, turn.endMs, outcome === 'completed' ? '' : outcome);
    turn.decision = outcome;
    turn.badge = TURN_END_BADGES[outcome] ?? (turn.badge === 'block' ? 'block' : 'none');
  }

  private startSubagent(agentId: string, payload: Fields, at: number): TraceSpan {
    const main = this.agent('');
    // A Task call still running is the subagent's parent.
    let parent: TraceSpan | undefined;
    for (const tool of this.tools.values()) if (tool.open && (tool.label.startsWith('Task') || tool.label.startsWith('Agent'))) parent = tool;
    const label = clip(`Subagent ${text(payload.agent_type) ?? agentId}${text(payload.prompt) ? ` · ${String(payload.prompt)}` : ''}`);
    const span = this.span('subagent', label, parent ?? this.innermost(main));
    span.open = true;
    this.stretch(span, at, at);
    this.agents.set(agentId, { root: span, step: undefined, stepNumber: undefined, model: undefined });
    return span;
  }

  private startModel(agentId: string, payload: Fields, at: number, record: AuditRecord): TraceSpan {
    const context = this.agent(agentId);
    const step = payload.step;
    if (!context.step || context.stepNumber !== step) {
      if (context.step) this.close(context.step, context.step.endMs, '');
      const parent = context.root ?? (agentId === '' ? this.turn : undefined);
      context.step = this.span('step', typeof step === 'number' ? `Step ${step}` : 'Step', parent);
      context.step.open = true;
      this.stretch(context.step, at, at);
      context.stepNumber = step;
    }
    const request = fieldsOf(payload.llm_request);
    const model = this.span('model', text(request.model) ? `Model request · ${String(request.model)}` : 'Model request', context.step, record, 'BeforeLLM');
    model.open = true;
    this.stretch(model, at, at);
    context.model = model;
    return model;
  }

  private toolSpan(id: string, agentId: string, payload: Fields, at: number): TraceSpan {
    const known = this.tools.get(id);
    if (known) return known;
    const context = this.agent(agentId);
    const tool = this.span('tool', toolLabel(payload), context.step ?? this.innermost(context));
    tool.open = true;
    this.stretch(tool, at, at);
    this.tools.set(id, tool);
    return tool;
  }

  private agent(id: string): AgentContext {
    let context = this.agents.get(id);
    if (!context) {
      context = { root: undefined, step: undefined, stepNumber: undefined, model: undefined };
      this.agents.set(id, context);
    }
    return context;
  }

  /** Where an event with no place of its own goes: the agent's open step, else its turn or subagent. */
  private innermost(context: AgentContext): TraceSpan | undefined {
    return context.step ?? context.root ?? (context === this.agents.get('') ? this.turn : undefined);
  }

  /** The span of dispatch `id`: made on first sight, as a stand-in at the top level when its event record has not come. */
  private eventSpan(id: string, event: string, parent?: TraceSpan): TraceSpan {
    const known = this.byDispatch.get(id);
    if (known) {
      // The event record came after its hook runs (out of order): move the stand-in to its place.
      if (parent && known.parent !== parent && known.record === undefined) this.move(known, parent);
      return known;
    }
    const span = this.span('event', `${event} (event not in the log)`, parent, undefined, event);
    this.byDispatch.set(id, span);
    return span;
  }

  /** A new span under `parent` (at the top level without one), with no extent until `stretch` gives it one. */
  private span(kind: SpanKind, label: string, parent: TraceSpan | undefined, record?: AuditRecord, event = ''): TraceSpan {
    // One object shape for every span: the tree of a long session holds tens of thousands.
    const span: TraceSpan = {
      id: this.nextId++,
      kind,
      label,
      event,
      hookName: undefined,
      parent,
      children: [],
      depth: parent ? parent.depth + 1 : 0,
      startMs: Infinity,
      endMs: -Infinity,
      open: false,
      badge: 'none',
      decision: '',
      record,
      async: false,
    };
    (parent ? parent.children : this.roots).push(span);
    this.size++;
    return span;
  }

  /** Widens a span to [start, end], and its ancestors with it unless `alone`, and the session's bounds. */
  private stretch(span: TraceSpan, start: number, end: number, alone = false): void {
    for (let s: TraceSpan | undefined = span; s; s = alone ? undefined : s.parent) {
      if (start >= s.startMs && end <= s.endMs) break;
      s.startMs = Math.min(s.startMs, start);
      s.endMs = Math.max(s.endMs, end);
    }
    if (!this.bounded || start < this.startMs) this.startMs = start;
    if (!this.bounded || end > this.endMs) this.endMs = end;
    this.bounded = true;
  }

  private move(span: TraceSpan, parent: TraceSpan): void {
    const siblings = span.parent ? span.parent.children : this.roots;
    siblings.splice(siblings.indexOf(span), 1);
    span.parent = parent;
    parent.children.push(span);
    for (const s of this.walk([span])) s.depth = s.parent ? s.parent.depth + 1 : 0;
    if (Number.isFinite(span.startMs)) this.stretch(parent, span.startMs, span.endMs);
  }

  private close(span: TraceSpan, at: number, decision: string): void {
    span.open = false;
    if (decision !== '') span.decision = decision;
    this.stretch(span, at, at);
  }

  /** Closes a span and whatever is still open under it; `outcome` names why those never ended. */
  private closeSubtree(span: TraceSpan, at: number, outcome: string): void {
    for (const s of this.walk([span])) {
      if (!s.open) continue;
      s.open = false;
      if (s !== span && s.decision === '' && outcome !== '') s.decision = outcome;
    }
    this.stretch(span, at, at);
  }

  private noteDuration(ms: number): void {
    const list = this.slowest;
    if (list.length === SLOWEST_COUNT && ms <= list[list.length - 1]) return;
    let i = list.length;
    while (i > 0 && list[i - 1] < ms) i--;
    list.splice(i, 0, ms);
    if (list.length > SLOWEST_COUNT) list.pop();
  }
}
