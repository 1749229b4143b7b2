import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ModelResponse, ToolCallRequest } from './chat-model';
import { MAX_REPLY_TOOL_CALLS, ReplyTooLargeError } from './reply-limits';
import { usageFromWire, type CheckedUsage } from './token-usage';
import { parseToolArguments } from './tool-arguments';

interface PartialToolCall {
  index: number | undefined;
  id: string;
  name: string;
  argumentsText: string;
}

type ToolCallDelta = NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number];

/**
 * Builds one assistant message from streamed chunks. Tool calls arrive split across chunks
 * and are keyed by `index`; several calls may interleave. The last `usage` sent counts, when
 * it holds counts (token-usage.ts); one that does not is left out, and `warn` says so.
 */
export class StreamAssembler {
  private content = '';
  private readonly calls: PartialToolCall[] = [];
  /** The latest call at each index: a server may reuse an index for a later call. */
  private readonly callAtIndex = new Map<number, PartialToolCall>();
  private finish: string | null = null;
  private usage: CheckedUsage | undefined;
  private chunkCount = 0;

  constructor(private readonly warn: (message: string) => void = () => undefined) {}

  /** Returns the text added by this chunk ('' when none). */
  add(chunk: ChatCompletionChunk): string {
    this.chunkCount += 1;
    if (chunk.usage) this.usage = usageFromWire(chunk.usage);
    // Only one choice is requested; other indexes would be a different message.
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) return '';
    let text = '';
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string') text += delta.content;
    if (typeof delta.refusal === 'string') text += delta.refusal;
    this.content += text;
    for (const call of delta.tool_calls ?? []) this.addToolCallDelta(call);
    if (choice.finish_reason) this.finish = choice.finish_reason;
    return text;
  }

  get receivedChunks(): number {
    return this.chunkCount;
  }

  get finished(): boolean {
    return this.finish !== null;
  }

  result(): ModelResponse {
    const toolCalls = this.calls.map((call, position) => toToolCallRequest(call, position));
    const response: ModelResponse = { content: this.content, toolCalls, finishReason: this.finish };
    if (this.usage?.ok) response.usage = this.usage.usage;
    else if (this.usage) this.warn(`a reply's token usage is not counted (${this.usage.problem})`);
    return response;
  }

  private addToolCallDelta(delta: ToolCallDelta): void {
    const target = this.findCall(delta);
    if (delta.id && !target.id) target.id = delta.id;
    const name = delta.function?.name;
    // Most servers send the name once; some repeat it in every chunk, a few split it.
    if (name && target.name !== name) target.name += name;
    if (delta.function?.arguments) target.argumentsText += delta.function.arguments;
  }

  private findCall(delta: ToolCallDelta): PartialToolCall {
    const index = typeof delta.index === 'number' ? delta.index : undefined;
    const last = this.calls.at(-1);
    let existing: PartialToolCall | undefined;
    if (index !== undefined) {
      existing = this.callAtIndex.get(index);
    } else if (last && (!delta.id || delta.id === last.id)) {
      // Servers that omit `index` send each call's pieces in order.
      existing = last;
    }
    // A new id at a known index means the server reused the index for another call.
    if (existing && !(delta.id && existing.id && delta.id !== existing.id)) return existing;
    if (this.calls.length >= MAX_REPLY_TOOL_CALLS) {
      throw new ReplyTooLargeError(`more than ${MAX_REPLY_TOOL_CALLS} tool calls in one reply`);
    }
    const created: PartialToolCall = { index, id: '', name: '', argumentsText: '' };
    this.calls.push(created);
    if (index !== undefined) this.callAtIndex.set(index, created);
    return created;
  }
}

function toToolCallRequest(call: PartialToolCall, position: number): ToolCallRequest {
  const request: ToolCallRequest = {
    // Some local servers send no id; the loop needs one to pair the tool result.
    id: call.id || `call_${position}`,
    name: call.name,
    argumentsText: call.argumentsText,
  };
  const parsed = parseToolArguments(call.argumentsText);
  if (parsed.ok) request.arguments = parsed.value;
  else request.argumentsError = parsed.error;
  return request;
}
