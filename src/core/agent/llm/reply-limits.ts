/**
 * A model's reply is untrusted input whose size is the server's choice. Past these limits the
 * host stops reading it and the turn ends with an error (documented in docs/hooks.md).
 */
const MiB = 1024 * 1024;
/** Response body bytes of one request: a long answer streams ~300 bytes of JSON per token. */
export const MAX_REPLY_BYTES = 64 * MiB;
/** Bytes of one stream event (since the last blank line): the SDK holds and parses it whole. */
export const MAX_REPLY_EVENT_BYTES = 16 * MiB;
/** Tool calls in one reply. */
export const MAX_REPLY_TOOL_CALLS = 1000;

/** A reply over one of the limits; its message says which. */
export class ReplyTooLargeError extends Error {
  override readonly name = 'ReplyTooLargeError';
}

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * Wraps `fetch` so a response body past MAX_REPLY_BYTES, or with an event past
 * MAX_REPLY_EVENT_BYTES, fails the read with ReplyTooLargeError and cancels the request.
 */
export function fetchWithReplyLimits(fetch_?: Fetch): Fetch {
  return async (input, init) => {
    const response = await (fetch_ ?? globalThis.fetch)(input, init);
    if (!response.body) return response;
    const { status, statusText, headers } = response;
    return new Response(response.body.pipeThrough(boundedEvents()), { status, statusText, headers });
  };
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Counts the body and passes it on in whole events: the SDK rescans its whole pending buffer
 * for an event's end on every read, so a large event arriving in many small reads would cost
 * it time quadratic in the event's size; given whole events it scans each byte once.
 */
function boundedEvents(): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  let sinceEventEnd = 0;
  let held: Uint8Array[] = [];
  // The last three bytes seen, newest first: event ends (\n\n, \r\r, \r\n\r\n) span reads.
  let b1 = 0;
  let b2 = 0;
  let b3 = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.length;
      if (total > MAX_REPLY_BYTES) throw new ReplyTooLargeError(`a reply over ${MAX_REPLY_BYTES / MiB} MiB`);
      let eventsEnd = -1;
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i];
        if ((byte === LF && (b1 === LF || (b1 === CR && b2 === LF && b3 === CR))) || (byte === CR && b1 === CR)) {
          eventsEnd = i + 1;
          sinceEventEnd = 0;
        } else if (++sinceEventEnd > MAX_REPLY_EVENT_BYTES) {
          throw new ReplyTooLargeError(`a stream event over ${MAX_REPLY_EVENT_BYTES / MiB} MiB`);
        }
        b3 = b2;
        b2 = b1;
        b1 = byte;
      }
      if (eventsEnd === -1) {
        held.push(chunk);
        return;
      }
      controller.enqueue(Buffer.concat([...held, chunk.subarray(0, eventsEnd)]));
      held = eventsEnd < chunk.length ? [chunk.subarray(eventsEnd)] : [];
    },
    flush(controller) {
      if (held.length > 0) controller.enqueue(Buffer.concat(held));
    },
  });
}
