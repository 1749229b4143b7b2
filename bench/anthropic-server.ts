import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted Anthropic Messages API on 127.0.0.1 for the side-by-side benchmark: every
 * request that offers tools gets one streamed Bash `true` tool call until the conversation
 * holds `calls` tool results, then a final text. Other requests (side requests a client
 * makes for titles or checks) get a short text. Arrival times of the tool-offering requests
 * are recorded: the gap between two is one tool call's cost, the client's whole round.
 */

interface MessagesRequest {
  stream?: boolean;
  tools?: unknown[];
  messages?: Array<{ role: string; content: unknown }>;
}

export interface AnthropicServer {
  url: string;
  /** performance.now() at each tool-offering request, in order. */
  arrivals: number[];
  /** Request paths the server did not expect, for the bench's diagnostics. */
  unexpected: string[];
  close(): Promise<void>;
}

function toolResults(body: MessagesRequest): number {
  let count = 0;
  for (const message of body.messages ?? []) {
    if (message.role !== 'user' || !Array.isArray(message.content)) continue;
    for (const block of message.content as Array<{ type?: string }>) if (block?.type === 'tool_result') count++;
  }
  return count;
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function sse(res: ServerResponse, blocks: Block[], model: string): void {
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const usage = { input_tokens: 100, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  send('message_start', {
    type: 'message_start',
    message: {
      id: `msg_${Date.now()}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  send('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 10 } });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `onArrival(index)` runs as tool-offering request `index` (from 0) arrives, before it is answered. */
export async function startAnthropicServer(calls: number, onArrival?: (index: number) => void): Promise<AnthropicServer> {
  const arrivals: number[] = [];
  const unexpected: string[] = [];
  let nextId = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '').split('?')[0];
      const raw = await readBody(req);
      if (req.method === 'POST' && path.endsWith('/messages/count_tokens')) return json(res, 200, { input_tokens: 100 });
      if (req.method !== 'POST' || !path.endsWith('/messages')) {
        unexpected.push(`${req.method ?? ''} ${path}`);
        return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'not scripted' } });
      }
      const body = JSON.parse(raw) as MessagesRequest & { model?: string };
      const model = body.model ?? 'scripted';
      let blocks: Block[] = [{ type: 'text', text: 'ok' }];
      if ((body.tools?.length ?? 0) > 0) {
        onArrival?.(arrivals.push(performance.now()) - 1);
        blocks =
          toolResults(body) < calls
            ? [{ type: 'tool_use', id: `toolu_${++nextId}`, name: 'Bash', input: { command: 'true' } }]
            : [{ type: 'text', text: 'done' }];
      }
      if (body.stream) return sse(res, blocks, model);
      const stopReason = blocks[0].type === 'tool_use' ? 'tool_use' : 'end_turn';
      json(res, 200, {
        id: `msg_${nextId}`,
        type: 'message',
        role: 'assistant',
        model,
        content: blocks,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 10 },
      });
    })().catch((error: unknown) => json(res, 500, { type: 'error', error: { type: 'api_error', message: String(error) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    unexpected,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
