import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  completionMessage,
  planStream,
  replyOutputText,
  type ScriptedReply,
  type ScriptedUsage,
  type StreamableReply,
} from './model-server-replies';

export { cutStream, malformedToolCall, stall, status, text, toolCalls } from './model-server-replies';
export type { ScriptedReply } from './model-server-replies';

const messageSchema = z.looseObject({
  role: z.string(),
  content: z.unknown().optional(),
  tool_call_id: z.string().optional(),
  tool_calls: z
    .array(z.looseObject({ id: z.string(), type: z.string(), function: z.looseObject({ name: z.string(), arguments: z.string() }) }))
    .optional(),
});

const chatRequestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(messageSchema),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  tools: z
    .array(
      z.looseObject({
        type: z.string(),
        function: z.looseObject({ name: z.string(), description: z.string().optional(), parameters: z.unknown().optional() }).optional(),
      }),
    )
    .optional(),
  temperature: z.number().nullish(),
  max_tokens: z.number().nullish(),
});

export type ChatRequestBody = z.infer<typeof chatRequestSchema>;

/** One POST /v1/chat/completions as the server saw it. */
export interface RecordedRequest {
  /** 0 for the first chat request, 1 for the next, ... */
  index: number;
  /** Lower-cased header names; `authorization` is never kept, only whether it was sent. */
  headers: Record<string, string>;
  authorization: 'present' | 'absent';
  body: ChatRequestBody;
  /** Set when the client went away before the reply was complete. */
  clientClosedEarly: boolean;
}

export type ModelScript =
  | ScriptedReply[]
  /** Returning undefined means the script is exhausted. */
  | ((request: RecordedRequest, index: number) => ScriptedReply | undefined | Promise<ScriptedReply | undefined>);

export interface ModelServer {
  /** Base URL for an OpenAI client, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export const SCRIPTED_MODEL_ID = 'scripted-model';

/** Responses the script itself tore down, so they are not counted as the client leaving. */
const scriptedCuts = new WeakSet<ServerResponse>();

/** An OpenAI-compatible chat completions server that answers from a script, on 127.0.0.1. */
export async function startModelServer(script: ModelScript, options: { port?: number } = {}): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(`model server failed: ${String(error)}`, 'server_error'));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, { object: 'list', data: [{ id: SCRIPTED_MODEL_ID, object: 'model', created: 0, owned_by: 'model-server' }] });
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      sendJson(res, 404, errorBody(`no route for ${req.method} ${path}`, 'not_found'));
      return;
    }
    const parsed = chatRequestSchema.safeParse(parseJson(await readBody(req)));
    if (!parsed.success) {
      sendJson(res, 400, errorBody(`invalid chat completion request: ${parsed.error.message}`, 'invalid_request_error'));
      return;
    }
    const record: RecordedRequest = {
      index: requests.length,
      headers: recordHeaders(req),
      authorization: req.headers.authorization ? 'present' : 'absent',
      body: parsed.data,
      clientClosedEarly: false,
    };
    requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished && !scriptedCuts.has(res)) record.clientClosedEarly = true;
    });
    const reply = await nextReply(record);
    if (reply === undefined) {
      const detail = Array.isArray(script)
        ? `${script.length} replies were scripted and this is request ${record.index + 1}`
        : `the script has no reply for request ${record.index + 1}`;
      const message = `model-server script exhausted: ${detail}`;
      // The client should not retry a test that ran past its script.
      sendJson(res, 500, errorBody(message, 'script_exhausted'), { 'x-should-retry': 'false' });
      return;
    }
    await serve(reply, record, res);
  }

  async function nextReply(record: RecordedRequest): Promise<ScriptedReply | undefined> {
    if (typeof script === 'function') return script(record, record.index);
    return script[record.index];
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function serve(reply: ScriptedReply, record: RecordedRequest, res: ServerResponse): Promise<void> {
  switch (reply.kind) {
    case 'status': {
      const headers: Record<string, string> = {};
      if (reply.retryAfterSeconds !== undefined) headers['retry-after'] = String(reply.retryAfterSeconds);
      if (reply.retryAfterMs !== undefined) headers['retry-after-ms'] = String(reply.retryAfterMs);
      sendJson(res, reply.code, reply.body, headers);
      return;
    }
    case 'text':
    case 'toolCalls':
      if (record.body.stream) await streamReply(reply, record, res, { stopAfter: undefined });
      else sendJson(res, 200, completionObject(reply, record));
      return;
    case 'cutStream':
      await streamReply(reply.reply, record, res, { stopAfter: reply.afterChunks });
      if (reply.mode === 'destroy') {
        scriptedCuts.add(res);
        res.destroy();
      } else res.end();
      return;
    case 'stall':
      // Left open on purpose: the client's timeout or abort (or close()) ends it.
      await streamReply(reply.reply, record, res, { stopAfter: reply.afterChunks });
      return;
  }
}

interface StreamLimits {
  /** Send only this many delta chunks, then return without finishing the response. */
  stopAfter: number | undefined;
}

async function streamReply(reply: StreamableReply, record: RecordedRequest, res: ServerResponse, limits: StreamLimits): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const id = `chatcmpl-scripted-${record.index}`;
  const created = Math.floor(Date.now() / 1000);
  const model = record.body.model;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices,
    ...extra,
  });
  const plan = planStream(reply, record.index);
  const deltas = limits.stopAfter === undefined ? plan.deltas : plan.deltas.slice(0, limits.stopAfter);

  for (const delta of deltas) {
    if (reply.delayMs > 0) await sleep(reply.delayMs);
    if (res.destroyed) return;
    // Flushed one by one so a cut or stall that follows really comes after these chunks.
    await write(res, sse(chunk([{ index: 0, delta, logprobs: null, finish_reason: null }])));
  }
  if (limits.stopAfter !== undefined) return;
  res.write(sse(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: plan.finishReason }])));
  if (record.body.stream_options?.include_usage) res.write(sse(chunk([], { usage: usageObject(reply, record) })));
  res.end('data: [DONE]\n\n');
}

function completionObject(reply: StreamableReply, record: RecordedRequest): Record<string, unknown> {
  const { message, finishReason } = completionMessage(reply, record.index);
  return {
    id: `chatcmpl-scripted-${record.index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: record.body.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage: usageObject(reply, record),
  };
}

/** Scripted numbers when given, else a rough estimate (4 characters a token). */
function usageObject(reply: StreamableReply, record: RecordedRequest): Record<string, unknown> {
  const usage: ScriptedUsage = reply.usage ?? {
    promptTokens: Math.ceil(JSON.stringify(record.body.messages).length / 4),
    completionTokens: Math.max(1, Math.ceil(replyOutputText(reply).length / 4)),
  };
  if ('wire' in usage) return usage.wire;
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

function recordHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'authorization' || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function errorBody(message: string, type: string): Record<string, unknown> {
  return { error: { message, type, param: null, code: type } };
}

function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(code, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function sse(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

function write(res: ServerResponse, data: string): Promise<void> {
  return new Promise((resolve) => {
    res.write(data, () => resolve());
  });
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
