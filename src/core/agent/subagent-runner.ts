import type { AgentEvent } from './agent-events';
import type { Compactor } from './compaction';
import type { ChatMessage, ChatModel } from './llm/chat-model';
import type { SessionHooks } from './session-hooks';
import type { TaskInput } from './task-tool';
import type { ToolExecutor } from './tool-executor';
import type { Tool, ToolResult } from './tools/tool';
import { reminder, runTurnLoop } from './turn-loop';

export interface SubagentDeps {
  parentHooks: SessionHooks;
  model: ChatModel;
  modelName: string;
  tools: readonly Tool[];
  executorFor: (hooks: SessionHooks, tools: ReadonlyMap<string, Tool>) => ToolExecutor;
  compactor: Compactor;
  emit: (event: AgentEvent) => void;
  maxSteps: number;
  stopHookCap: number;
  systemPrompt: string;
}

/**
 * Runs a Task subagent: SubagentStart, its own loop whose tool calls see only the
 * PreToolUse/PostToolUse hooks (docs/design.md#subagents-steering-and-async-hooks), then SubagentStop, which may keep it going.
 */
export class SubagentRunner {
  private count = 0;

  constructor(private readonly deps: SubagentDeps) {}

  async run(input: TaskInput, signal: AbortSignal): Promise<ToolResult> {
    const started = performance.now();
    const agent = { id: `agent-${++this.count}`, type: input.subagent_type ?? 'general-purpose' };
    const parent = this.deps.parentHooks;
    const start = await parent.dispatch('SubagentStart', { agent_id: agent.id, agent_type: agent.type, prompt: input.prompt }, signal);
    const messages: ChatMessage[] = [{ role: 'system', content: this.deps.systemPrompt }, { role: 'user', content: input.prompt }];
    if (start.contexts.length > 0) messages.push(reminder(start.contexts));
    const hooks = parent.forSubagent(agent);
    let blocks = 0;
    const outcome = await runTurnLoop(
      messages,
      {
        model: this.deps.model,
        modelName: this.deps.modelName,
        hooks,
        tools: () => this.deps.tools,
        executor: this.deps.executorFor(hooks, new Map(this.deps.tools.map((t) => [t.name, t]))),
        compactor: this.deps.compactor,
        emit: this.deps.emit,
        maxSteps: this.deps.maxSteps,
        onFinalAnswer: async (answer, loopSignal) => {
          const stop = await parent.dispatch('SubagentStop', { agent_id: agent.id, agent_type: agent.type, stop_hook_active: blocks > 0, last_assistant_message: answer }, loopSignal);
          if (stop.stop) return { stop: stop.stop };
          if (!stop.blocked || blocks >= this.deps.stopHookCap) return {};
          blocks++;
          return { continueWith: `SubagentStop hook feedback: ${stop.blockReason ?? ''}` };
        },
      },
      signal,
    );
    const response = {
      status: outcome.reason === 'completed' ? 'completed' : outcome.reason,
      agentId: agent.id,
      content: [{ type: 'text', text: outcome.result }],
      totalToolUseCount: outcome.toolCalls.length,
      totalDurationMs: Math.round(performance.now() - started),
      totalTokens: outcome.usage.totalTokens,
    };
    if (outcome.reason !== 'completed') return { ok: false, error: `subagent ${agent.id} ended (${outcome.reason}): ${outcome.error ?? outcome.result}`, interrupted: outcome.reason === 'cancelled', response };
    return { ok: true, content: outcome.result || '(the subagent returned no text)', response };
  }
}
