import { isSubagentTool } from '../core/agent/tools/tool-catalog';
import type { AuditRecord } from '../core/audit/records';
import type { DecisionBadge } from './decision-badge';
import type { SpanForest } from './trace-forest';
import { clip, fieldsOf, text, toolLabel, type Fields } from './trace-labels';
import type { TraceSpan } from './trace-span';

const TURN_END_BADGES: Record<string, DecisionBadge> = { blocked: 'block', error: 'error' };

/** Where one agent (the main one, or a subagent by agent_id) is in its run. */
export interface AgentContext {
  /** The subagent span (undefined for the main agent, whose root is the open turn). */
  root: TraceSpan | undefined;
  step: TraceSpan | undefined;
  stepNumber: unknown;
  model: TraceSpan | undefined;
}

/**
 * The spans still open that new records land in: the main agent's turn, each agent's step
 * and model request, each subagent, and tool calls by tool_use_id. Opens and closes them as
 * the events that start and end them arrive.
 */
export class TraceScopes {
  private turnCount = 0;
  private openTurn: TraceSpan | undefined;
  private readonly agents = new Map<string, AgentContext>();
  private readonly tools = new Map<string, TraceSpan>();
  /** The tool spans of calls that run a subagent (Task). */
  private readonly subagentCalls = new WeakSet<TraceSpan>();

  constructor(private readonly forest: SpanForest) {}

  /** The main agent's open turn. */
  get turn(): TraceSpan | undefined {
    return this.openTurn;
  }

  agent(id: string): AgentContext {
    let context = this.agents.get(id);
    if (!context) {
      context = { root: undefined, step: undefined, stepNumber: undefined, model: undefined };
      this.agents.set(id, context);
    }
    return context;
  }

  /** The span of subagent `id` while it runs. */
  subagent(id: string): TraceSpan | undefined {
    return this.agents.get(id)?.root;
  }

  /** The span of tool call `id`, once one of its events came. */
  tool(id: string): TraceSpan | undefined {
    return this.tools.get(id);
  }

  /** Where an event of agent `id` with no place of its own goes: the agent's open step, else its turn or subagent. */
  innermost(id: string): TraceSpan | undefined {
    const context = this.agent(id);
    return context.step ?? context.root ?? (id === '' ? this.openTurn : undefined);
  }

  startTurn(at: number, prompt: string | undefined): TraceSpan {
    this.turnCount++;
    const label = prompt ? clip(`Turn ${this.turnCount} · ${prompt}`) : `Turn ${this.turnCount}`;
    const turn = this.forest.span('turn', label, undefined);
    turn.open = true;
    this.forest.stretch(turn, at, at);
    this.openTurn = turn;
    return turn;
  }

  /** Ends the open turn with `reason` (undefined: a new prompt came without the turn's end in the log). */
  endTurn(reason: string | undefined): void {
    const turn = this.openTurn;
    if (!turn) return;
    this.openTurn = undefined;
    const main = this.agent('');
    main.step = undefined;
    main.model = undefined;
    const outcome = reason ?? (turn.decision === 'blocked' ? 'blocked' : 'unfinished');
    this.forest.closeSubtree(turn, turn.endMs, outcome === 'completed' ? '' : outcome);
    turn.decision = outcome;
    turn.badge = TURN_END_BADGES[outcome] ?? (turn.badge === 'block' ? 'block' : 'none');
  }

  startSubagent(agentId: string, payload: Fields, at: number): TraceSpan {
    // A Task call still running is the subagent's parent.
    let parent: TraceSpan | undefined;
    for (const tool of this.tools.values()) if (tool.open && this.subagentCalls.has(tool)) parent = tool;
    const label = clip(`Subagent ${text(payload.agent_type) ?? agentId}${text(payload.prompt) ? ` · ${String(payload.prompt)}` : ''}`);
    const span = this.forest.span('subagent', label, parent ?? this.innermost(''));
    span.open = true;
    this.forest.stretch(span, at, at);
    this.agents.set(agentId, { root: span, step: undefined, stepNumber: undefined, model: undefined });
    return span;
  }

  endSubagent(agentId: string, at: number): void {
    const root = this.agents.get(agentId)?.root;
    if (root) this.forest.closeSubtree(root, at, '');
    this.agents.delete(agentId);
  }

  /** A model request (BeforeLLM), in a new step when the step number changed. */
  startModel(agentId: string, payload: Fields, at: number, record: AuditRecord): TraceSpan {
    const context = this.agent(agentId);
    const step = payload.step;
    if (!context.step || context.stepNumber !== step) {
      if (context.step) this.forest.close(context.step, context.step.endMs, '');
      const parent = context.root ?? (agentId === '' ? this.openTurn : undefined);
      context.step = this.forest.span('step', typeof step === 'number' ? `Step ${step}` : 'Step', parent);
      context.step.open = true;
      this.forest.stretch(context.step, at, at);
      context.stepNumber = step;
    }
    const request = fieldsOf(payload.llm_request);
    const label = text(request.model) ? `Model request · ${String(request.model)}` : 'Model request';
    const model = this.forest.span('model', label, context.step, record, 'BeforeLLM');
    model.open = true;
    this.forest.stretch(model, at, at);
    context.model = model;
    return model;
  }

  /** Ends the model request open (AfterLLM): its label says what the model answered. */
  endModel(agentId: string, payload: Fields, at: number): void {
    const context = this.agent(agentId);
    const model = context.model;
    if (!model) return;
    const response = fieldsOf(payload.llm_response);
    const calls = Array.isArray(response.tool_calls) ? response.tool_calls.length : 0;
    model.label = `${model.label} → ${calls > 0 ? `${calls} tool call${calls === 1 ? '' : 's'}` : 'answer'}`;
    this.forest.close(model, at, text(response.finish_reason) ?? '');
    context.model = undefined;
  }

  endStep(agentId: string, at: number): void {
    const context = this.agent(agentId);
    if (context.step) this.forest.close(context.step, at, '');
    context.step = undefined;
    context.model = undefined;
  }

  /** The span of tool call `id`, made on its first event under the agent's open step. */
  toolSpan(id: string, agentId: string, payload: Fields, at: number): TraceSpan {
    const known = this.tools.get(id);
    if (known) return known;
    const context = this.agent(agentId);
    const tool = this.forest.span('tool', toolLabel(payload), context.step ?? this.innermost(agentId));
    tool.open = true;
    this.forest.stretch(tool, at, at);
    this.tools.set(id, tool);
    if (isSubagentTool(text(payload.tool_name) ?? '')) this.subagentCalls.add(tool);
    return tool;
  }
}
