/**
 * Serialized audit lines waiting to be written, encoded into 1 MiB Buffers as they come:
 * off the JS heap (a burst of appends would otherwise leave the GC scanning every line),
 * handed to the file as slices without another copy, and recycled once written (fresh
 * memory costs a page fault per 4 KiB).
 */

const CHUNK_BYTES = 1024 * 1024;
const MAX_SPARE_CHUNKS = 8;

interface Chunk {
  bytes: Buffer;
  used: number;
  /** Bytes before this offset have been taken. */
  taken: number;
  /** End offset of each line. */
  ends: number[];
  /** Index in `ends` of the first line not taken. */
  next: number;
}

export interface TakenLines {
  /** The lines, in order, as slices of the chunks. */
  slices: Buffer[];
  count: number;
  /** Chunks emptied by this take; recycle them once `slices` are written. */
  release: Buffer[];
}

export class PendingLines {
  private readonly chunks: Chunk[] = [];
  private readonly spare: Buffer[] = [];
  /** Lines queued. */
  count = 0;
  /** Bytes queued. */
  bytes = 0;
  /** Written before the next line (once). */
  prefix = '';

  /** Queues `json` plus a newline. */
  push(json: string): void {
    const prefix = this.prefix;
    let chunk = this.chunks[this.chunks.length - 1];
    // A UTF-16 unit takes at most 3 UTF-8 bytes; count exactly only when that might not fit.
    if (!chunk || chunk.bytes.length - chunk.used < json.length * 3 + prefix.length + 1) {
      const needed = Buffer.byteLength(json) + prefix.length + 1;
      if (!chunk || chunk.bytes.length - chunk.used < needed) {
        const bytes = needed <= CHUNK_BYTES ? (this.spare.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES)) : Buffer.allocUnsafe(needed);
        chunk = { bytes, used: 0, taken: 0, ends: [], next: 0 };
        this.chunks.push(chunk);
      }
    }
    const start = chunk.used;
    if (prefix) chunk.used += chunk.bytes.write(prefix, chunk.used);
    chunk.used += chunk.bytes.write(json, chunk.used);
    chunk.bytes[chunk.used++] = 0x0a;
    chunk.ends.push(chunk.used);
    this.count++;
    this.bytes += chunk.used - start;
    this.prefix = '';
  }

  /** Whole lines from the front: as many as fit in `maxBytes`, but at least one. */
  take(maxBytes: number): TakenLines {
    const slices: Buffer[] = [];
    const release: Buffer[] = [];
    let size = 0;
    let count = 0;
    while (this.chunks.length > 0) {
      const chunk = this.chunks[0];
      const base = size;
      let end = chunk.taken;
      while (chunk.next < chunk.ends.length && (count === 0 || base + chunk.ends[chunk.next] - chunk.taken <= maxBytes)) {
        end = chunk.ends[chunk.next++];
        count++;
      }
      if (end > chunk.taken) slices.push(chunk.bytes.subarray(chunk.taken, end));
      size = base + end - chunk.taken;
      chunk.taken = end;
      // The last chunk stays to receive further lines; an exhausted earlier one goes.
      if (chunk.next < chunk.ends.length || this.chunks.length === 1) break;
      this.chunks.shift();
      release.push(chunk.bytes);
    }
    this.count -= count;
    this.bytes -= size;
    return { slices, count, release };
  }

  recycle(buffers: Buffer[]): void {
    for (const bytes of buffers) if (bytes.length === CHUNK_BYTES && this.spare.length < MAX_SPARE_CHUNKS) this.spare.push(bytes);
  }
}
