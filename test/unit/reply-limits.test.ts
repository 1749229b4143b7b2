import { describe, expect, it } from 'vitest';
import { fetchWithReplyLimits, MAX_REPLY_EVENT_BYTES, ReplyTooLargeError } from '../../src/core/agent/llm/reply-limits';

/** What the wrapped fetch hands on for a body that arrives in `pieces`. */
async function readThrough(pieces: string[]): Promise<string[]> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
  const fetch = fetchWithReplyLimits(async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
  const response = await fetch('http://127.0.0.1/v1/chat/completions');
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const chunks: string[] = [];
  for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(decoder.decode(read.value));
  return chunks;
}

const split = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

describe('fetchWithReplyLimits', () => {
  const events = 'data: {"a":1}\n\ndata: {"b":2}\r\n\r\ndata: {"c":3}\r\rdata: [DONE]\n\n';

  it.each([1, 3, 7, events.length])('hands the SDK whole events only, whatever reads (%i bytes) they arrive in', async (size) => {
    const chunks = await readThrough(split(events, size));
    expect(chunks.join('')).toBe(events);
    for (const chunk of chunks) expect(chunk).toMatch(/(\n\n|\r\n\r\n|\r\r)$/);
  });

  it('hands on a body without event ends (a JSON error) whole at its end', async () => {
    const json = '{"error":{"message":"no such model"}}';
    expect(await readThrough(split(json, 5))).toEqual([json]);
  });

  it('fails the read of an event past MAX_REPLY_EVENT_BYTES, though no single read is large', async () => {
    const piece = 'x'.repeat(64 * 1024);
    const pieces = ['data: "', ...Array.from({ length: MAX_REPLY_EVENT_BYTES / piece.length }, () => piece)];
    const error = await readThrough(pieces).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReplyTooLargeError);
    expect((error as Error).message).toBe('a stream event over 16 MiB');
  });
});
