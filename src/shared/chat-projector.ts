import type { AgentEvent } from '../core/agent/agent-events';
import { summarizeToolCall } from '../core/agent/tool-summary';
import { isFileEditTool } from '../core/agent/tools/tool-catalog';
import type { ChatItem, ChatItemChanges, ToolItem } from './chat-items';
import type { ChatStreamMessage } from './chat-protocol';
import { applyChanges } from './chat-reducer';
import { tokenUsageSchema, type TokenUsage } from './wire-common';
import { approvalSubject, visibleRule, visibleText } from '../core/agent/permissions/approval-text';

export interface ChatProjectorOptions {
  /** How much of a tool's output the card shows; the rest stays in the host. */
  outputPreviewChars?: number;
}

/**
 * Turns agent events into the chat's numbered stream (append / patch, never the whole
 * state) and keeps the state those messages build, so a resync is answered with exactly
 * what the webview would have had. Pure: no VS Code, no timers; the host posts what it returns.
 */
export class ChatProjector {
  /**
   * The state the stream builds, as the reducer would (chat-reducer.ts), but kept in place with
   * an index by id: the reducer copies and scans the whole list per message, and the model
   * picks how many cards a reply adds (up to 1,000 calls), so a long chat would cost each
   * reply in proportion to its length.
   */
  private items: ChatItem[] = [];
  private readonly positions = new Map<string, number>();
  private seq = 0;
  private nextId = 1;
  private streamingId: string | undefined;
  /** The prompt the user just sent, shown before UserPromptSubmit hooks finish. */
  private pendingUserId: string | undefined;
  /** Messages sent while the agent worked, oldest first, not yet given to the model. */
  private queuedIds: string[] = [];
  /** tool_use_id -> item id of its newest card. */
  private readonly toolItems = new Map<string, string>();
  private readonly usedIds = new Set<string>();
  private totals: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  private readonly previewChars: number;

  constructor(options: ChatProjectorOptions = {}) {
    this.previewChars = options.outputPreviewChars ?? 2000;
  }

  /** The whole transcript as a `reset`: the answer to `ready` and `resync`. */
  snapshot(): ChatStreamMessage {
    return { type: 'reset', seq: this.seq, state: { items: [...this.items] } };
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Tokens reported by `usage` events since the last clear, for the status message. */
  get usage(): TokenUsage {
    return { ...this.totals };
  }

  /** Starts an empty chat (New Chat, or before replaying a resumed session); seq keeps counting. */
  clear(): ChatStreamMessage {
    this.streamingId = undefined;
    this.pendingUserId = undefined;
    this.queuedIds = [];
    this.toolItems.clear();
    this.usedIds.clear();
    this.totals = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    return this.emit({ type: 'reset', seq: this.seq + 1, state: { items: [] } });
  }

  /** Shows the user's prompt at once; the `turn_started` that follows does not repeat it. */
  userPrompt(text: string): ChatStreamMessage[] {
    const id = this.newId('u');
    this.pendingUserId = id;
    return [this.append({ kind: 'user', id, text })];
  }

  /** Shows a message sent while the agent works, marked as waiting for the next step. */
  queuedPrompt(text: string): ChatStreamMessage[] {
    const id = this.newId('u');
    this.queuedIds.push(id);
    return [this.append({ kind: 'user', id, text, queued: true })];
  }

  /** The waiting messages became the next prompt: its `turn_started` does not repeat them. */
  adoptQueued(): ChatStreamMessage[] {
    const ids = this.queuedIds.splice(0);
    this.pendingUserId = ids.at(-1);
    return ids.map((id) => this.patch(id, { kind: 'user', queued: false }));
  }

  /** The turn was interrupted: the waiting messages were never sent (they go back to the composer). */
  withdrawQueued(): ChatStreamMessage[] {
    return this.queuedIds.splice(0).map((id) => this.patch(id, { kind: 'user', queued: false, withdrawn: true }));
  }

  project(event: AgentEvent): ChatStreamMessage[] {
    switch (event.type) {
      case 'turn_started': {
        if (event.wokenBy !== undefined) {
          const message = `Hook "${event.wokenBy}" woke the agent with what it reported (asyncRewake).`;
          return [this.append({ kind: 'notice', id: this.newId('n'), level: 'info', message, source: 'hook' })];
        }
        if (this.pendingUserId !== undefined) {
          this.pendingUserId = undefined;
          return [];
        }
        return [this.append({ kind: 'user', id: this.newId('u'), text: event.prompt })];
      }
      case 'prompt_blocked': {
        const out: ChatStreamMessage[] = [];
        if (this.pendingUserId !== undefined) out.push(this.patch(this.pendingUserId, { kind: 'user', blocked: true }));
        this.pendingUserId = undefined;
        out.push(this.append({ kind: 'prompt-blocked', id: this.newId('b'), reason: event.reason, hookName: event.hookName }));
        return out;
      }
      case 'steering_injected': {
        const id = this.queuedIds.shift();
        return id === undefined ? [] : [this.patch(id, { kind: 'user', queued: false })];
      }
      case 'steering_blocked': {
        const id = this.queuedIds.shift();
        const out = id === undefined ? [] : [this.patch(id, { kind: 'user', queued: false, blocked: true })];
        out.push(this.append({ kind: 'prompt-blocked', id: this.newId('b'), reason: event.reason, hookName: event.hookName }));
        return out;
      }
      case 'text_delta': {
        if (event.text === '') return [];
        if (this.streamingId !== undefined) return [this.patch(this.streamingId, { kind: 'assistant', appendText: event.text })];
        this.streamingId = this.newId('a');
        return [this.append({ kind: 'assistant', id: this.streamingId, text: event.text, streaming: true })];
      }
      case 'assistant_message':
        return this.finishAssistant(event.content);
      case 'tool_started': {
        const out = this.finishAssistant(undefined);
        const id = this.newId('t', event.id);
        this.toolItems.set(event.id, id);
        const card: ToolItem = {
          kind: 'tool',
          id,
          callId: event.id,
          name: event.name,
          summary: visibleText(summarizeToolCall(event.name, event.input)),
          status: 'running',
          hooks: [],
          diffAvailable: false,
        };
        out.push(this.append(card));
        return out;
      }
      case 'approval_requested':
        return this.patchTool(event.id, {
          kind: 'tool',
          status: 'awaiting-approval',
          approval: {
            askId: event.askId,
            subject: approvalSubject({
              toolName: event.toolName,
              input: event.input,
              summary: summarizeToolCall(event.toolName, event.input),
              linkedTarget: event.linkedTarget,
            }),
            reason: visibleText(event.reason),
            askedBy: visibleText(event.askedBy),
            choices: [...event.choices],
            rule: visibleRule(event.suggestedRule),
            proposedDiff: isFileEditTool(event.toolName),
          },
        });
      case 'approval_resolved':
        return this.patchTool(event.id, {
          kind: 'tool',
          status: 'running',
          approval: null,
          approvalOutcome: { decision: event.decision, by: event.by },
        });
      case 'tool_finished': {
        const truncated = event.output.length > this.previewChars;
        return this.patchTool(event.id, {
          kind: 'tool',
          status: event.outcome,
          summary: visibleText(summarizeToolCall(event.name, event.input)),
          outputPreview: truncated ? event.output.slice(0, this.previewChars) : event.output,
          outputTruncated: truncated,
          hooks: event.hooks.map((h) => ({ hookName: h.hookName, event: h.event, kind: h.kind, detail: h.detail })),
          durationMs: Math.max(0, Math.round(event.durationMs)),
          // An executed file edit changed a file, so the card can offer "Show diff".
          diffAvailable: event.outcome === 'executed' && isFileEditTool(event.name),
        });
      }
      case 'notice':
        return [this.append({ kind: 'notice', id: this.newId('n'), level: event.level, message: event.message, source: event.source })];
      case 'compacted':
        return [
          this.append({
            kind: 'notice',
            id: this.newId('n'),
            level: 'info',
            message: `Older turns were compacted: ${event.messagesBefore} messages became ${event.messagesAfter}.`,
            source: 'compaction',
          }),
        ];
      case 'usage':
        // A count that is not one would make every later status message fail the webview's check.
        if (!tokenUsageSchema.safeParse(event).success) return [];
        // Summed counts stay counts: the totals stop at the largest one a double holds exactly.
        this.totals = {
          promptTokens: cappedSum(this.totals.promptTokens, event.promptTokens),
          completionTokens: cappedSum(this.totals.completionTokens, event.completionTokens),
          totalTokens: cappedSum(this.totals.totalTokens, event.totalTokens),
        };
        return [];
      case 'turn_ended': {
        const out = this.finishAssistant(undefined);
        this.pendingUserId = undefined;
        out.push(this.append({ kind: 'turn-end', id: this.newId('e'), reason: event.reason, error: event.error }));
        return out;
      }
      case 'session_ended':
        return [
          this.append({
            kind: 'notice',
            id: this.newId('n'),
            level: 'info',
            message: `Session ended (${event.reason}).`,
            source: 'session',
          }),
        ];
      case 'session_started':
      case 'rewake_requested':
      case 'hook_started':
      case 'hook_response':
        // The Hook Manager's timeline shows hook runs; the chat shows their effect on tool cards.
        return [];
    }
  }

  /** Closes the streaming message; `content` (the final, possibly hook-modified text) wins over the deltas. */
  private finishAssistant(content: string | undefined): ChatStreamMessage[] {
    const id = this.streamingId;
    this.streamingId = undefined;
    if (id === undefined) {
      return content !== undefined && content.trim() !== ''
        ? [this.append({ kind: 'assistant', id: this.newId('a'), text: content, streaming: false })]
        : [];
    }
    const position = this.positions.get(id);
    const current = position === undefined ? undefined : this.items[position];
    const replaced = content !== undefined && current?.kind === 'assistant' && current.text !== content;
    return [this.patch(id, replaced ? { kind: 'assistant', streaming: false, text: content } : { kind: 'assistant', streaming: false })];
  }

  private patchTool(callId: string, changes: ChatItemChanges): ChatStreamMessage[] {
    const id = this.toolItems.get(callId);
    return id === undefined ? [] : [this.patch(id, changes)];
  }

  private append(item: ChatItem): ChatStreamMessage {
    return this.emit({ type: 'append', seq: this.seq + 1, item });
  }

  private patch(id: string, changes: ChatItemChanges): ChatStreamMessage {
    return this.emit({ type: 'patch', seq: this.seq + 1, id, changes });
  }

  private emit(msg: ChatStreamMessage): ChatStreamMessage {
    this.seq = msg.seq;
    if (msg.type === 'reset') {
      this.items = [...msg.state.items];
      this.positions.clear();
      this.items.forEach((item, index) => this.positions.set(item.id, index));
    } else if (msg.type === 'append') {
      if (!this.positions.has(msg.item.id)) {
        this.positions.set(msg.item.id, this.items.length);
        this.items.push(msg.item);
      }
    } else {
      const position = this.positions.get(msg.id);
      const updated = position === undefined ? undefined : applyChanges(this.items[position], msg.changes);
      if (position !== undefined && updated) this.items[position] = updated;
    }
    return msg;
  }

  /** `preferred` (a tool_use_id) when free, else a counter-based id. */
  private newId(prefix: string, preferred?: string): string {
    let id = preferred !== undefined && !this.usedIds.has(preferred) ? preferred : `${prefix}${this.nextId++}`;
    while (this.usedIds.has(id)) id = `${prefix}${this.nextId++}`;
    this.usedIds.add(id);
    return id;
  }
}

function cappedSum(a: number, b: number): number {
  return Math.min(a + b, Number.MAX_SAFE_INTEGER);
}
