import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A chat completions server on 127.0.0.1 that streams whatever bytes a test writes, at the
// size the test chooses: the scripted model server only speaks well-formed, modest streams.

export interface RawStreamRequest {
  /** 0 for the first chat request, 1 for the next, ... */
  index: number;
  body: { messages: Array<{ role: string; content?: unknown }> };
}

export interface RawStreamServer {
  /** Base URL for an OpenAI client, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  requests: RawStreamRequest[];
  /** Response body bytes the server managed to write, all requests together. */
  bytesWritten(): number;
  close(): Promise<void>;
}

export type RawStreamHandler = (request: RawStreamRequest, stream: RawStream) => Promise<void>;

/** One streamed response; `write` waits for the socket to drain and is false once the client left. */
export interface RawStream {
  write(data: string): Promise<boolean>;
  end(data?: string): void;
}

export async function startRawStreamServer(handler: RawStreamHandler): Promise<RawStreamServer> {
  const requests: RawStreamRequest[] = [];
  let written = 0;
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const request: RawStreamRequest = {
        index: requests.length,
        body: JSON.parse(Buffer.concat(parts).toString('utf8')) as RawStreamRequest['body'],
      };
      requests.push(request);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const stream: RawStream = {
        write: async (data) => {
          if (res.destroyed || res.writableEnded) return false;
          written += Buffer.byteLength(data);
          return res.write(data) || drained(res);
        },
        end: (data) => res.end(data),
      };
      handler(request, stream).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    bytesWritten: () => written,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function drained(res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

export const sseEvent = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;

/** One chat.completion.chunk event of choice 0. */
export const chunkEvent = (delta: Record<string, unknown>, finishReason: string | null = null) =>
  sseEvent({
    id: 'chatcmpl-raw',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'raw-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });

/** A piece of tool call `index`; `id` and `name` come with its first piece. */
export const toolCallEvent = (index: number, piece: { id?: string; name?: string; arguments: string }) =>
  chunkEvent({
    tool_calls: [
      {
        index,
        ...(piece.id ? { id: piece.id, type: 'function' } : {}),
        function: { ...(piece.name ? { name: piece.name } : {}), arguments: piece.arguments },
      },
    ],
  });

/** A whole text answer. */
export async function answerText(stream: RawStream, text: string): Promise<void> {
  await stream.write(chunkEvent({ role: 'assistant', content: text }));
  stream.end(`${chunkEvent({}, 'stop')}data: [DONE]\n\n`);
}
