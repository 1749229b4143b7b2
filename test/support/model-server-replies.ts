// Scripted replies for the test model server, and how each becomes OpenAI wire objects.

/** Token counts (total_tokens is their sum), or `wire`: the usage object exactly as sent, counts or not. */
export type ScriptedUsage = { promptTokens: number; completionTokens: number } | { wire: Record<string, unknown> };

export interface ScriptedToolCall {
  /** Without one, the server makes an id unique to the request and position. */
  id?: string;
  name: string;
  argumentsText: string;
}

interface StreamTiming {
  /** Pause before each chunk, so a client can watch (or cancel) a reply as it streams. */
  delayMs: number;
}

export interface TextReply extends StreamTiming {
  kind: 'text';
  content: string;
  chunks: number;
  usage?: ScriptedUsage;
}

export interface ToolCallsReply extends StreamTiming {
  kind: 'toolCalls';
  calls: ScriptedToolCall[];
  content: string;
  splitArguments: number;
  /** Send the calls' argument pieces round-robin instead of one call after the other. */
  interleave: boolean;
  usage?: ScriptedUsage;
}

export type StreamableReply = TextReply | ToolCallsReply;

export interface StatusReply {
  kind: 'status';
  code: number;
  body: unknown;
  retryAfterSeconds?: number;
  retryAfterMs?: number;
}

export interface CutStreamReply {
  kind: 'cutStream';
  afterChunks: number;
  reply: StreamableReply;
  /** destroy: the socket is torn down; end: the response ends cleanly without finishing. */
  mode: 'destroy' | 'end';
}

export interface StallReply {
  kind: 'stall';
  afterChunks: number;
  reply: StreamableReply;
}

export type ScriptedReply = StreamableReply | StatusReply | CutStreamReply | StallReply;

export function text(content: string, options: { chunks?: number; delayMs?: number; usage?: ScriptedUsage } = {}): TextReply {
  return { kind: 'text', content, chunks: options.chunks ?? 1, delayMs: options.delayMs ?? 0, usage: options.usage };
}

export function toolCalls(
  calls: Array<{ id?: string; name: string; arguments: Record<string, unknown> | string }>,
  options: { splitArguments?: number; content?: string; interleave?: boolean; delayMs?: number; usage?: ScriptedUsage } = {},
): ToolCallsReply {
  return {
    kind: 'toolCalls',
    calls: calls.map((call) => ({
      id: call.id,
      name: call.name,
      argumentsText: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    })),
    content: options.content ?? '',
    splitArguments: options.splitArguments ?? 1,
    interleave: options.interleave ?? false,
    delayMs: options.delayMs ?? 0,
    usage: options.usage,
  };
}

/** One tool call whose arguments text is sent verbatim (broken JSON, an array, ...). */
export function malformedToolCall(name: string, rawArguments: string): ToolCallsReply {
  return toolCalls([{ name, arguments: rawArguments }]);
}

export function status(code: number, body?: unknown, options: { retryAfter?: number; retryAfterMs?: number } = {}): StatusReply {
  return {
    kind: 'status',
    code,
    body: body ?? { error: { message: `scripted status ${code}`, type: 'scripted_error', code: String(code) } },
    retryAfterSeconds: options.retryAfter,
    retryAfterMs: options.retryAfterMs,
  };
}

export function cutStream(afterChunks: number, options: { reply?: StreamableReply; mode?: 'destroy' | 'end' } = {}): CutStreamReply {
  const reply = options.reply ?? text('this answer is cut off long before it can finish', { chunks: afterChunks + 4 });
  return { kind: 'cutStream', afterChunks, reply, mode: options.mode ?? 'destroy' };
}

/** Sends some chunks, then holds the connection open until the client goes away. */
export function stall(afterChunks: number, reply?: StreamableReply): StallReply {
  return { kind: 'stall', afterChunks, reply: reply ?? text('this answer stops and waits forever', { chunks: afterChunks + 4 }) };
}

type Delta = Record<string, unknown>;

export interface StreamPlan {
  deltas: Delta[];
  finishReason: 'stop' | 'tool_calls';
}

/** The assistant deltas of a streamed reply, in order; the finish chunk is separate. */
export function planStream(reply: StreamableReply, requestIndex: number): StreamPlan {
  const deltas: Delta[] = [{ role: 'assistant', content: '' }];
  if (reply.kind === 'text') {
    for (const piece of splitEvenly(reply.content, reply.chunks)) deltas.push({ content: piece });
    return { deltas, finishReason: 'stop' };
  }
  for (const piece of splitEvenly(reply.content, 1)) deltas.push({ content: piece });
  const perCall = reply.calls.map((call, index) => {
    const head: Delta = {
      tool_calls: [{ index, id: toolCallId(call, requestIndex, index), type: 'function', function: { name: call.name, arguments: '' } }],
    };
    const pieces = splitEvenly(call.argumentsText, reply.splitArguments).map((piece): Delta => ({
      tool_calls: [{ index, function: { arguments: piece } }],
    }));
    return [head, ...pieces];
  });
  if (reply.interleave) {
    const longest = Math.max(0, ...perCall.map((c) => c.length));
    for (let step = 0; step < longest; step += 1) {
      for (const call of perCall) if (step < call.length) deltas.push(call[step]);
    }
  } else {
    for (const call of perCall) deltas.push(...call);
  }
  return { deltas, finishReason: 'tool_calls' };
}

/** The `message` of a non-streamed chat.completion for this reply. */
export function completionMessage(
  reply: StreamableReply,
  requestIndex: number,
): { message: Record<string, unknown>; finishReason: 'stop' | 'tool_calls' } {
  if (reply.kind === 'text') return { message: { role: 'assistant', content: reply.content, refusal: null }, finishReason: 'stop' };
  return {
    message: {
      role: 'assistant',
      content: reply.content === '' ? null : reply.content,
      refusal: null,
      tool_calls: reply.calls.map((call, index) => ({
        id: toolCallId(call, requestIndex, index),
        type: 'function',
        function: { name: call.name, arguments: call.argumentsText },
      })),
    },
    finishReason: 'tool_calls',
  };
}

function toolCallId(call: ScriptedToolCall, requestIndex: number, position: number): string {
  return call.id ?? `call_${requestIndex}_${position}`;
}

export function replyOutputText(reply: StreamableReply): string {
  if (reply.kind === 'text') return reply.content;
  return reply.content + reply.calls.map((c) => c.name + c.argumentsText).join('');
}

/** Splits into `parts` pieces of near-equal length (fewer if the text is shorter); never splits a code point. */
function splitEvenly(value: string, parts: number): string[] {
  const points = Array.from(value);
  if (points.length === 0) return [];
  const count = Math.max(1, Math.min(parts, points.length));
  const pieces: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = Math.floor((i * points.length) / count);
    const end = Math.floor(((i + 1) * points.length) / count);
    pieces.push(points.slice(start, end).join(''));
  }
  return pieces;
}
