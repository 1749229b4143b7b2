import { createHash } from 'node:crypto';
import type { AuditEntry, AuditRecord } from './records';

/**
 * A BeforeLLM `event` record carries the model request, and the request carries the whole
 * conversation: logged as is, a session's log would grow with the square of its length. The
 * writer logs the messages added since the previous request instead (`messages_delta`), with
 * the count and a hash of the messages it builds on, and the tool definitions once (later
 * requests name them by hash). `ModelRequestExpander` rebuilds the full requests for display.
 */

type Fields = Record<string, unknown>;

export interface MessagesDelta {
  /** How many messages of the previous request this one starts with. */
  base_count: number;
  /** Chained SHA-256 of those messages as logged (empty for none). */
  base_sha256: string;
  added: unknown[];
  total: number;
}

const MODEL_REQUEST_EVENT = 'BeforeLLM';

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/** The chain hash after one more message: the hash of the previous hash and the message's JSON. */
function chain(previous: string, messageJson: string): string {
  return createHash('sha256').update(previous).update('\n').update(messageJson).digest('hex');
}

function toolsHash(tools: unknown): { sha256: string; bytes: number } {
  const json = JSON.stringify(tools);
  return { sha256: createHash('sha256').update(json).digest('hex'), bytes: Buffer.byteLength(json) };
}

function llmRequestOf(payload: unknown): Fields | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const request = (payload as Fields).llm_request;
  if (typeof request !== 'object' || request === null || !Array.isArray((request as Fields).messages)) return undefined;
  return request as Fields;
}

interface Thread {
  /**
   * Each logged message object's chain hash (through it): an unchanged message is the same
   * object with the same history before it. Weak, so a log kept open holds no conversation.
   */
  logged: WeakMap<object, string>;
  /** hashes[i]: the chain hash of the first i messages as logged. */
  hashes: string[];
  tools?: unknown;
  toolsSha256?: string;
}

/** One writer's memory of the requests it logged, per agent (a subagent has its own thread). */
export class ModelRequestDeltas {
  private readonly threads = new Map<string, Thread>();
  /** Set by `compact`, completed by `record` once the entry is redacted. */
  private pending: { thread: Thread; base: number; added: readonly unknown[] } | undefined;

  /** The entry with its request's messages replaced by a delta; other entries as they are. */
  compact(entry: AuditEntry): AuditEntry {
    this.pending = undefined;
    if (entry.type !== 'event' || entry.event !== MODEL_REQUEST_EVENT) return entry;
    const request = llmRequestOf(entry.payload);
    if (!request) return entry;
    const messages = request.messages as readonly unknown[];
    const key = String((entry.payload as Fields).agent_id ?? '');
    const thread = this.threads.get(key) ?? { logged: new WeakMap(), hashes: [''] };
    this.threads.set(key, thread);
    // The messages of a conversation are appended, never changed in place: the same object
    // at the same index is the same message. Compaction or a rewrite starts a new base.
    let base = 0;
    const limit = Math.min(thread.hashes.length - 1, messages.length);
    while (base < limit && isObject(messages[base]) && thread.logged.get(messages[base] as object) === thread.hashes[base + 1]) base++;
    const { messages: _all, tools, ...rest } = request;
    const delta: MessagesDelta = {
      base_count: base,
      base_sha256: thread.hashes[base],
      added: messages.slice(base),
      total: messages.length,
    };
    const out: Fields = { ...rest, messages_delta: delta };
    if (tools !== undefined) {
      if (tools !== thread.tools) {
        thread.tools = tools;
        const hash = toolsHash(tools);
        out.tools = tools;
        out.tools_sha256 = hash.sha256;
        if (hash.sha256 === thread.toolsSha256) Object.assign(out, { tools: undefined, tools_bytes: hash.bytes });
        thread.toolsSha256 = hash.sha256;
      } else {
        out.tools_sha256 = thread.toolsSha256;
      }
    }
    this.pending = { thread, base, added: delta.added };
    return { ...entry, payload: { ...(entry.payload as Fields), llm_request: out } };
  }

  /** Chains the added messages as they were logged (redacted), for the next request's base. */
  record(body: Fields): void {
    const pending = this.pending;
    this.pending = undefined;
    if (!pending) return;
    const request = (body.payload as Fields | undefined)?.llm_request as Fields | undefined;
    const delta = request?.messages_delta as MessagesDelta | undefined;
    const { thread, base, added } = pending;
    thread.hashes.length = base + 1;
    for (const message of delta?.added ?? []) thread.hashes.push(chain(thread.hashes[thread.hashes.length - 1], JSON.stringify(message)));
    added.forEach((message, i) => {
      if (isObject(message)) thread.logged.set(message, thread.hashes[base + i + 1]);
    });
  }

  /** Forgets everything: the next request is logged in full (its record had to be shortened). */
  reset(): void {
    this.threads.clear();
    this.pending = undefined;
  }
}

/**
 * Rebuilds each BeforeLLM request in full (`llm_request.messages` and `tools`) from the
 * earlier requests of the same session, fed to it one record at a time in log order: a reader
 * keeps the conversation so far, never the records. A request whose base it was not fed (the
 * log was cut, or started mid-session) keeps its delta and gets `messages_incomplete: true`.
 */
export class ModelRequestExpander {
  private readonly threads = new Map<string, { messages: unknown[]; hashes: string[] }>();
  private readonly toolsByHash = new Map<string, unknown>();

  /** The record with its request rebuilt; any other record as it is. */
  expand(record: AuditRecord): AuditRecord {
    if (record.type !== 'event' || record.event !== MODEL_REQUEST_EVENT) return record;
    const payload = record.payload as Fields;
    const request = payload?.llm_request as Fields | undefined;
    const delta = request?.messages_delta as MessagesDelta | undefined;
    if (!request || !delta || !Array.isArray(delta.added)) return record;
    const key = `${record.session_id}\n${String(payload.agent_id ?? '')}`;
    const known = this.threads.get(key) ?? { messages: [], hashes: [''] };
    const { messages_delta: _delta, tools_sha256: toolsSha256, tools_bytes: _bytes, ...rest } = request;
    if (request.tools !== undefined && typeof toolsSha256 === 'string') this.toolsByHash.set(toolsSha256, request.tools);
    const tools = request.tools ?? (typeof toolsSha256 === 'string' ? this.toolsByHash.get(toolsSha256) : undefined);
    if (delta.base_count > known.messages.length || known.hashes[delta.base_count] !== delta.base_sha256) {
      this.threads.delete(key);
      return { ...record, payload: { ...payload, llm_request: { ...request, messages_incomplete: true } } };
    }
    const messages = [...known.messages.slice(0, delta.base_count), ...delta.added];
    const hashes = known.hashes.slice(0, delta.base_count + 1);
    for (const message of delta.added) hashes.push(chain(hashes[hashes.length - 1], JSON.stringify(message)));
    this.threads.set(key, { messages, hashes });
    const full: Fields = { ...rest, messages };
    if (tools !== undefined) full.tools = tools;
    return { ...record, payload: { ...payload, llm_request: full } };
  }
}
