/**
 * The bytes of a chat completions request, exactly `JSON.stringify(params)`, built from each
 * message's own JSON. A session resends its whole conversation every step; serializing it
 * whole each time (and encoding the string again) made a step's cost grow with the session.
 * Messages are appended and never changed in place (a redacted copy is a new object), so each
 * is serialized once and its bytes reused while the message lives.
 */
export class ChatRequestBody {
  private readonly messageBytes = new WeakMap<object, Buffer>();

  encode(params: { model: string; messages: readonly object[] }): Buffer {
    const [first, second] = Object.keys(params);
    if (first !== 'model' || second !== 'messages' || typeof params.model !== 'string') return own(Buffer.from(JSON.stringify(params)));
    const { model, messages, ...rest } = params;
    const parts: Buffer[] = [Buffer.from(`{"model":${JSON.stringify(model)},"messages":[`)];
    messages.forEach((message, index) => {
      let bytes = this.messageBytes.get(message);
      if (bytes === undefined) this.messageBytes.set(message, (bytes = Buffer.from(JSON.stringify(message))));
      if (index > 0) parts.push(COMMA);
      parts.push(bytes);
    });
    // The other fields in their order, as JSON.stringify(params) would write them after messages.
    const tail = JSON.stringify(rest);
    parts.push(Buffer.from(tail === '{}' ? ']}' : `],${tail.slice(1)}`));
    return own(Buffer.concat(parts));
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
