import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** Most bytes of one message from a server, and of messages waiting to be written to a stdio server: 16 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * Most levels of objects and arrays in a tool's result: far more than content parts and any
 * structured result need, far fewer than would overflow the stack where the host writes a
 * result out (hooks' stdin, the audit log, the model's request).
 */
export const MAX_RESULT_DEPTH = 128;

export function sizeText(bytes: number): string {
  const mib = 1024 * 1024;
  return bytes >= mib && bytes % mib === 0 ? `${bytes / mib} MiB` : `${bytes} bytes`;
}

/** HTTP statuses whose response has no body (and cannot be given one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * `fetch` for the SDK's HTTP and SSE transports, whose response bodies are counted as they are
 * read: an SSE stream's event (the bytes up to its blank line) or any other body over
 * `maxMessageBytes` errors the stream, and `onOverLimit` is told, so a server cannot grow our
 * memory with one endless message. A long-lived SSE stream of many small events is fine.
 */
export function limitedFetch(maxMessageBytes: number, onOverLimit: (reason: string) => void, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (!response.body || NULL_BODY_STATUSES.has(response.status)) return response;
    const sse = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
    const counter = sse ? sseEventCounter() : bodyCounter();
    const reason = sse
      ? `the server sent an SSE event over ${sizeText(maxMessageBytes)}`
      : `the server sent a response over ${sizeText(maxMessageBytes)}`;
    let told = false;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (counter(chunk) > maxMessageBytes) {
            if (!told) onOverLimit(reason);
            told = true;
            controller.error(new Error(reason));
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    const limited = new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
    // What the SDK and EventSource read of a response besides its body and headers.
    for (const key of ['url', 'redirected', 'type'] as const) Object.defineProperty(limited, key, { value: response[key] });
    return limited;
  };
}

/** The bytes of a body so far. */
function bodyCounter(): (chunk: Uint8Array) => number {
  let total = 0;
  return (chunk) => (total += chunk.byteLength);
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * The most bytes any SSE event reached in a chunk (one begun in an earlier chunk counts whole): an event ends at
 * a blank line (line ends are LF, CR or CRLF).
 */
function sseEventCounter(): (chunk: Uint8Array) => number {
  let event = 0;
  let lineLength = 0;
  let afterCr = false;
  return (chunk) => {
    let most = event;
    for (const byte of chunk) {
      if (byte === LF && afterCr) {
        afterCr = false;
        continue;
      }
      afterCr = byte === CR;
      if (byte === LF || byte === CR) {
        if (lineLength === 0) event = 0;
        lineLength = 0;
      } else {
        lineLength++;
        event++;
        if (event > most) most = event;
      }
    }
    return most;
  };
}
