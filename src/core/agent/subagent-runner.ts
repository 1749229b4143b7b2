import type { AgentEvent } from './agent-events';
import type { Compactor } from './compaction';
import type { ChatMessage, ChatModel } from './llm/chat-model';
import type { SessionHooks } from './session-hooks';
import { BUILTIN_SUBAGENTS, GENERAL_PURPOSE, subagentTools, type SubagentDefinition } from './subagent-definitions';
import type { TaskInput } from './task-tool';
import type { ToolExecutor } from './tool-executor';
import type { Transcript } from './transcript';
import { errorMessage } from '../error-message';
import { toolFailure, type Tool, type ToolResult } from './tools/tool';
import { reminder, runTurnLoop } from './turn-loop';
import { StopBlocks } from './stop-continuation';
import { showHookMessages } from './hook-notices';

export interface SubagentDeps {
  parentHooks: SessionHooks;
  model: ChatModel;
  modelName: string;
  /** The built-in tools a subagent may be offered (never Task). */
  tools: readonly Tool[];
  /** MCP servers' tools as listed now: offered only to a subagent whose definition names them. */
  mcpTools?: () => readonly Tool[];
  definitions?: readonly SubagentDefinition[];
  executorFor: (hooks: SessionHooks, tools: ReadonlyMap<string, Tool>) => ToolExecutor;
  compactor: Compactor;
  emit: (event: AgentEvent) => void;
  maxSteps: number;
  stopHookCap: number;
  /** The subagent's system prompt for these tools, with its definition's instructions. */
  systemPrompt: (tools: readonly Tool[], instructions?: string) => string;
  /** A subagent's own transcript, which SubagentStop hooks read (`agent_transcript_path`). */
  transcriptFor?: (agentId: string) => Transcript;
}

/**
 * Runs a Task subagent: SubagentStart, its own loop whose model requests and tool calls see
 * the parent's hooks for them (SessionHooks.forSubagent; docs/design.md#subagents-steering-and-async-hooks),
 * then SubagentStop, which may keep it going.
 */
export class SubagentRunner {
  private count = 0;

  constructor(private readonly deps: SubagentDeps) {}

  async run(input: TaskInput, signal: AbortSignal): Promise<ToolResult> {
    const started = performance.now();
    const type = input.subagent_type ?? GENERAL_PURPOSE;
    const definition = this.deps.definitions?.find((d) => d.name === type);
    if (!definition && !BUILTIN_SUBAGENTS.includes(type)) {
      const known = [...BUILTIN_SUBAGENTS, ...(this.deps.definitions ?? []).map((d) => d.name)].join(', ');
      return toolFailure(`There is no subagent type "${type}". Available: ${known}.`);
    }
    const agent = { id: `agent-${++this.count}`, type };
    const parent = this.deps.parentHooks;
    // The executor looks calls up in what is offered now: an MCP tool that was not offered cannot be called.
    const offered = new Map<string, Tool>();
    const tools = () => {
      const list = subagentTools(definition, this.deps.tools, this.deps.mcpTools?.() ?? []);
      offered.clear();
      for (const tool of list) offered.set(tool.name, tool);
      return list;
    };
    const start = await parent.dispatch('SubagentStart', { agent_id: agent.id, agent_type: agent.type, prompt: input.prompt }, signal);
    showHookMessages(this.deps.emit, start.systemMessages, start.warnings);
    const system = this.deps.systemPrompt(tools(), definition?.prompt);
    const messages: ChatMessage[] = [
      { role: 'system', content: system },
      { role: 'user', content: input.prompt },
    ];
    if (start.contexts.length > 0) messages.push(reminder(start.contexts));
    const hooks = parent.forSubagent(agent);
    const blocks = new StopBlocks(this.deps.stopHookCap, 'SubagentStop');
    const transcript = this.attempt('be started', () => this.deps.transcriptFor?.(agent.id));
    const outcome = await runTurnLoop(
      messages,
      {
        model: this.deps.model,
        modelName: this.deps.modelName,
        hooks,
        tools,
        executor: this.deps.executorFor(hooks, offered),
        compactor: this.deps.compactor.reportingTo(this.compactionNotice(agent.id)),
        emit: this.deps.emit,
        maxSteps: this.deps.maxSteps,
        onFinalAnswer: async (answer, loopSignal, toolCallsSoFar) => {
          const written = transcript && this.attempt('be written', () => (transcript.sync(messages), transcript.file));
          const stop = await parent.dispatch(
            'SubagentStop',
            {
              agent_id: agent.id,
              agent_type: agent.type,
              ...(written === undefined ? {} : { agent_transcript_path: written }),
              stop_hook_active: blocks.total > 0,
              last_assistant_message: answer,
            },
            loopSignal,
          );
          showHookMessages(this.deps.emit, stop.systemMessages, stop.warnings);
          if (stop.stop) return { stop: stop.stop };
          // As Stop (Claude Code): a block, or additionalContext alone, keeps the subagent working.
          return blocks.continuation(stop, toolCallsSoFar);
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
    // A hook that stopped or aborted the subagent meant the session or the turn, which the
    // subagent runs inside: the Task call ends the main turn the same way.
    const halt =
      outcome.reason === 'stopped' ? { stop: outcome.stopSession } : outcome.reason === 'aborted' ? { abort: outcome.abort } : undefined;
    if (outcome.reason !== 'completed')
      return {
        ok: false,
        error: `subagent ${agent.id} ended (${outcome.reason}): ${outcome.error ?? outcome.result}`,
        interrupted: outcome.reason === 'cancelled',
        response,
        halt,
      };
    return { ok: true, content: outcome.result || '(the subagent returned no text)', response };
  }

  /** A transcript that cannot be started or written costs its hooks the path, not the subagent its work. */
  private attempt<T>(what: 'be started' | 'be written', action: () => T): T | undefined {
    try {
      return action();
    } catch (error) {
      this.deps.emit({ type: 'notice', level: 'warning', message: `the subagent's transcript could not ${what}: ${errorMessage(error)}` });
      return undefined;
    }
  }

  /**
   * A subagent's compaction is told to the user as a notice: the session's `compacted` event
   * would rewrite the session's transcript, whose conversation was not compacted.
   */
  private compactionNotice(agentId: string): (event: AgentEvent) => void {
    return (event) =>
      this.deps.emit(
        event.type === 'compacted'
          ? {
              type: 'notice',
              level: 'info',
              message: `subagent ${agentId}: compacted its conversation (${event.messagesBefore} -> ${event.messagesAfter} messages)`,
            }
          : event,
      );
  }
}
