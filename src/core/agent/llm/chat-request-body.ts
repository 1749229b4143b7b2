/**
 * The bytes of a chat completions request, exactly `JSON.stringify(params)`, built from each
 * message's own JSON. A session resends its whole conversation every step; serializing it
 * whole each time (and encoding the string again) made a step's cost grow with the session.
 * Messages are appended and never changed in place (a redacted copy is a new object), so each
 * is serialized once and its bytes reused while the message lives, and a request that starts
 * with the last one's messages copies that one's bytes instead of joining them again.
 */
export class ChatRequestBody {
  private readonly messageBytes = new WeakMap<object, Buffer>();
  /** The last request's head (`{"model":…,"messages":[` and its messages): the next one extends it when it starts with them. */
  private last: { model: string; messages: readonly object[]; head: Buffer } | undefined;

  encode(params: { model: string; messages: readonly object[] }): Buffer {
    const [first, second] = Object.keys(params);
    if (first !== 'model' || second !== 'messages' || typeof params.model !== 'string') return own(Buffer.from(JSON.stringify(params)));
    const { model, messages, ...rest } = params;
    const reused = this.reusable(model, messages);
    const parts: Buffer[] = [reused > 0 ? this.last!.head : Buffer.from(`{"model":${JSON.stringify(model)},"messages":[`)];
    for (let index = reused; index < messages.length; index++) {
      if (index > 0) parts.push(COMMA);
      parts.push(this.bytesOf(messages[index]));
    }
    const head = Buffer.concat(parts);
    this.last = { model, messages: [...messages], head };
    // The other fields in their order, as JSON.stringify(params) would write them after messages.
    const tail = JSON.stringify(rest);
    return own(Buffer.concat([head, Buffer.from(tail === '{}' ? ']}' : `],${tail.slice(1)}`)]));
  }

  private bytesOf(message: object): Buffer {
    let bytes = this.messageBytes.get(message);
    if (bytes === undefined) this.messageBytes.set(message, (bytes = Buffer.from(JSON.stringify(message))));
    return bytes;
  }

  /** How many leading messages the last head already holds: all of its messages, or none. */
  private reusable(model: string, messages: readonly object[]): number {
    const last = this.last;
    if (!last || last.model !== model || last.messages.length > messages.length) return 0;
    for (let index = 0; index < last.messages.length; index++) if (last.messages[index] !== messages[index]) return 0;
    return last.messages.length;
  }
}

const COMMA = Buffer.from(',');

/**
 * The bytes in memory of their own: a small Buffer is a slice of a shared pool, and a `fetch`
 * that sent its whole `.buffer` would send whatever else the pool holds.
 */
function own(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const copy = Buffer.alloc(bytes.byteLength);
  bytes.copy(copy);
  return copy;
}
