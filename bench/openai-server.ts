import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { planStream, text, toolCalls } from '../test/support/model-server-replies';

/**
 * A scripted OpenAI chat completions API on 127.0.0.1 for the side-by-side benchmark, doing
 * per request what the Anthropic one does for Claude Code: parse the body, count the tool
 * results, stream one Bash `true` call (or the final text) in one go. The tests' model server
 * also validates each request against a schema and keeps every one of them, work that grows
 * with the conversation and, on a small machine, shows up in the client's step time.
 */

export interface OpenAiServer {
  /** Base URL for an OpenAI client. */
  url: string;
  /** performance.now() at each chat request, in order. */
  arrivals: number[];
  close(): Promise<void>;
}

interface ChatRequest {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: Array<{ role?: string }>;
}

function toolResults(body: ChatRequest): number {
  let count = 0;
  for (const message of body.messages ?? []) if (message?.role === 'tool') count++;
  return count;
}

function stream(res: ServerResponse, index: number, calls: number, body: ChatRequest): void {
  const reply = toolResults(body) < calls ? toolCalls([{ name: 'Bash', arguments: { command: 'true' } }]) : text('done');
  const plan = planStream(reply, index);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: `chatcmpl-bench-${index}`, object: 'chat.completion.chunk', created: 0, model: body.model, choices, ...extra })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const delta of plan.deltas) res.write(chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]));
  res.write(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: plan.finishReason }]));
  // As the Anthropic server reports usage with its reply.
  if (body.stream_options?.include_usage) res.write(chunk([], { usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } }));
  res.end('data: [DONE]\n\n');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function fail(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', 'x-should-retry': 'false' });
  res.end(JSON.stringify({ error: { message, type: 'bench_error' } }));
}

/**
 * Streamed replies only: a Bash `true` call until the conversation holds `calls` tool results,
 * then a final text. `onArrival(index)` runs as request `index` (from 0) arrives.
 */
export async function startOpenAiServer(calls: number, onArrival?: (index: number) => void): Promise<OpenAiServer> {
  const arrivals: number[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      if (req.method !== 'POST' || !(req.url ?? '').split('?')[0].endsWith('/chat/completions'))
        return fail(res, 404, `not scripted: ${req.method ?? ''} ${req.url ?? ''}`);
      const body = JSON.parse(raw) as ChatRequest;
      if (!body.stream) return fail(res, 400, 'the bench server only streams');
      const index = arrivals.push(performance.now()) - 1;
      onArrival?.(index);
      stream(res, index, calls, body);
    })().catch((error: unknown) => fail(res, 500, String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    arrivals,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
