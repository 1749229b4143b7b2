import type { Readable } from 'node:stream';
import { Disposable, type RAL } from 'vscode-jsonrpc/node';

const MAX_HEADER_BYTES = 1024;
/**
 * The largest message a server may send. vscode-jsonrpc buffers a whole body before parsing
 * it, so a huge Content-Length would otherwise grow the host's memory without bound.
 */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;
const SNIPPET_CHARS = 120;
const CR = 13;
const LF = 10;
const COLON = 58;

function isTokenByte(b: number): boolean {
  return (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b === 45;
}

function isValueByte(b: number): boolean {
  return (b >= 32 && b <= 126) || b === 9;
}

/** What is wrong with a server's stdout; `oversize` when it is a frame over MAX_FRAME_BYTES. */
export interface FrameViolation {
  description: string;
  oversize: boolean;
}

/**
 * Checks a server's stdout against the base-protocol framing (`Content-Length: N` headers,
 * an empty line, N bytes of body, N at most MAX_FRAME_BYTES) before vscode-jsonrpc reads it.
 * vscode-jsonrpc would wait forever for the end of a "header" that is really a banner or a
 * debug print, so the requests would only time out; this turns such output into an
 * immediate, explained fault. Bodies are only counted, never copied.
 */
export class FrameGuard {
  private inBody = false;
  private bodyRemaining = 0;
  private header = '';
  private lineHasColon = false;
  private afterCR = false;
  private violation: string | undefined;
  private oversize = false;

  /**
   * Scans `chunk`. `validLength` is how many leading bytes may go on to the reader: all of
   * them, or up to the start of the header block in which the first violation was found.
   */
  check(chunk: Uint8Array): { validLength: number; violation?: string; oversize?: true } {
    if (this.violation !== undefined) return { validLength: 0, ...this.reported() };
    let headerStart = 0;
    let i = 0;
    while (i < chunk.length) {
      if (this.inBody) {
        const take = Math.min(this.bodyRemaining, chunk.length - i);
        this.bodyRemaining -= take;
        i += take;
        if (this.bodyRemaining === 0) this.inBody = false;
        continue;
      }
      if (this.header === '') headerStart = i;
      const problem = this.headerByte(chunk[i]);
      if (problem !== undefined) {
        this.violation = this.oversize ? problem : `${problem}: ${JSON.stringify(this.snippet(chunk, i))}`;
        return { validLength: headerStart, ...this.reported() };
      }
      i++;
    }
    return { validLength: chunk.length };
  }

  private reported(): { violation?: string; oversize?: true } {
    return this.oversize ? { violation: this.violation, oversize: true } : { violation: this.violation };
  }

  private headerByte(b: number): string | undefined {
    this.header += String.fromCharCode(b);
    if (this.header.length > MAX_HEADER_BYTES) return 'header block too long';
    if (this.afterCR) {
      if (b !== LF) return 'carriage return without line feed in header';
      this.afterCR = false;
      return this.endOfLine();
    }
    if (b === CR) {
      this.afterCR = true;
      return undefined;
    }
    if (b === LF) return 'line feed without carriage return in header';
    if (this.lineHasColon) return isValueByte(b) ? undefined : 'control character in header value';
    if (b === COLON) {
      if (this.header.endsWith('\n:') || this.header === ':') return 'empty header name';
      this.lineHasColon = true;
      return undefined;
    }
    return isTokenByte(b) ? undefined : 'not a message header';
  }

  private endOfLine(): string | undefined {
    const lineIsEmpty = this.header === '\r\n' || this.header.endsWith('\r\n\r\n');
    if (!lineIsEmpty) {
      if (!this.lineHasColon) return 'header line without a colon';
      this.lineHasColon = false;
      return undefined;
    }
    // vscode-jsonrpc takes the last of several: the guard would count another body than it reads.
    if ((this.header.match(/(?:^|\n)content-length:/gi) ?? []).length > 1) return 'more than one Content-Length header';
    const match = /(?:^|\n)content-length:[ \t]*(\d+)[ \t]*\r\n/i.exec(this.header);
    if (!match) return 'message header without Content-Length';
    const length = Number(match[1]);
    if (length > MAX_FRAME_BYTES) {
      this.oversize = true;
      return `a message of ${match[1]} bytes, over the ${MAX_FRAME_BYTES}-byte limit`;
    }
    this.bodyRemaining = length;
    this.header = '';
    this.inBody = this.bodyRemaining > 0;
    return undefined;
  }

  /** The offending text: the header block so far (ASCII up to the bad byte), then the chunk from that byte on as UTF-8. */
  private snippet(chunk: Uint8Array, at: number): string {
    const rest = Buffer.from(chunk.subarray(at, at + SNIPPET_CHARS * 4)).toString('utf8');
    return (this.header.slice(0, -1) + rest).slice(0, SNIPPET_CHARS);
  }
}

/**
 * A vscode-jsonrpc readable over a child's stdout that passes data on only while it is well
 * framed; the first violation goes to `onViolation` and everything after it is dropped.
 */
export function guardedReadable(stdout: Readable, onViolation: (violation: FrameViolation) => void): RAL.ReadableStream {
  const guard = new FrameGuard();
  let reported = false;
  // Node's listener type is `(...args: any[]) => void`; `unknown[]` keeps this file any-free.
  const subscribe = <A extends unknown[]>(event: string, listener: (...args: A) => void): Disposable => {
    const untyped = listener as (...args: unknown[]) => void;
    stdout.on(event, untyped);
    return Disposable.create(() => stdout.off(event, untyped));
  };
  return {
    onData: (listener) =>
      subscribe('data', (chunk: Buffer) => {
        const { validLength, violation, oversize } = guard.check(chunk);
        if (validLength > 0) listener(validLength === chunk.length ? chunk : chunk.subarray(0, validLength));
        if (violation !== undefined && !reported) {
          reported = true;
          onViolation({ description: violation, oversize: oversize === true });
        }
      }),
    onClose: (listener) => subscribe('close', listener),
    onError: (listener) => subscribe('error', listener),
    onEnd: (listener) => subscribe('end', listener),
  };
}
