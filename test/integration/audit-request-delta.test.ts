import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAuditFile } from '../../src/core/audit/audit-reader';
import { AuditWriter } from '../../src/core/audit/audit-writer';
import { ModelRequestExpander } from '../../src/core/audit/model-request-delta';
import type { AuditEntry, AuditRecord } from '../../src/core/audit/records';
import { Redactor } from '../../src/core/audit/redactor';

/** The records in log order, each request rebuilt by one expander, as a timeline reader feeds it. */
function expandModelRequests(records: readonly AuditRecord[]): AuditRecord[] {
  const expander = new ModelRequestExpander();
  return records.map((record) => expander.expand(record));
}

let dir: string;
let writer: AuditWriter;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-delta-'));
  writer = new AuditWriter({ dir, sessionId: 's1', redactor: new Redactor({ secretValues: ['sk-live-0123456789abcdef'] }) });
});

afterEach(async () => {
  await writer.close();
  rmSync(dir, { recursive: true, force: true });
});

const TOOLS = [
  { type: 'function', function: { name: 'Bash', description: 'Runs a shell command. '.repeat(40), parameters: { type: 'object' } } },
];

function beforeLlm(step: number, messages: unknown[], tools: unknown = TOOLS): AuditEntry {
  // A snapshot of the request as the hooks saw it; the session's array keeps growing.
  return {
    type: 'event',
    session_id: 's1',
    dispatch_id: `d${step}`,
    event: 'BeforeLLM',
    payload: { session_id: 's1', step, llm_request: { model: 'm', messages, tools } },
  };
}

/** One agent step: the request, then the assistant's Bash call and its result joining the conversation. */
function step(messages: unknown[], n: number, tools: unknown = TOOLS): unknown[] {
  const request = [...messages];
  writer.append(beforeLlm(n, messages, tools));
  writer.append({
    type: 'dispatch',
    session_id: 's1',
    dispatch_id: `d${n}`,
    event: 'BeforeLLM',
    decision: 'none',
    hooks_run: 0,
    duration_ms: 0.1,
  });
  messages.push({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: `c${n}`, type: 'function', function: { name: 'Bash', arguments: '{"command":"true"}' } }],
  });
  messages.push({ role: 'tool', tool_call_id: `c${n}`, content: '(no output)' });
  return request;
}

const fileBytes = () => statSync(join(dir, 's1.jsonl')).size;

describe('model requests in the audit log', () => {
  it('grows by the same number of bytes per step at step 1,000 as at step 50', async () => {
    const messages: unknown[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'run true a thousand times' },
    ];
    const sizeAfter: number[] = [0];
    for (let n = 1; n <= 1000; n++) {
      step(messages, n);
      await writer.flush();
      sizeAfter.push(fileBytes());
    }
    const perStep = (from: number, to: number) => (sizeAfter[to] - sizeAfter[from]) / (to - from);
    const early = perStep(40, 50);
    const late = perStep(990, 1000);
    expect(Math.abs(late - early) / early).toBeLessThan(0.2);
  });

  it('rebuilds every request in full, tools included, from the deltas', async () => {
    const messages: unknown[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'go' },
    ];
    const sent = [1, 2, 3, 4, 5].map((n) => step(messages, n));
    await writer.flush();
    const { records } = await readAuditFile(writer.path);
    const raw = records.filter((r) => r.type === 'event');
    // Only the first request carries the tool definitions; the later ones name them by hash.
    expect(raw.map((r) => (r.payload as { llm_request: { tools?: unknown } }).llm_request.tools !== undefined)).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(
      raw.map((r) => (r.payload as { llm_request: { messages_delta: { added: unknown[] } } }).llm_request.messages_delta.added.length),
    ).toEqual([2, 2, 2, 2, 2]);
    const expanded = expandModelRequests(records).filter((r) => r.type === 'event');
    expect(expanded.map((r) => (r.payload as { llm_request: unknown }).llm_request)).toEqual(
      sent.map((m) => ({ model: 'm', messages: m, tools: TOOLS })),
    );
  });

  it('starts from scratch after compaction replaced the conversation', async () => {
    let messages: unknown[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'go' },
    ];
    const sent = [step(messages, 1), step(messages, 2)];
    messages = [messages[0], { role: 'user', content: 'summary of earlier work' }];
    sent.push(step(messages, 3), step(messages, 4));
    await writer.flush();
    const { records } = await readAuditFile(writer.path);
    const bases = records.flatMap((r) =>
      r.type === 'event'
        ? [(r.payload as { llm_request: { messages_delta: { base_count: number } } }).llm_request.messages_delta.base_count]
        : [],
    );
    // The system message is the same object: it stays in the base.
    expect(bases).toEqual([0, 2, 1, 2]);
    const expanded = expandModelRequests(records).filter((r) => r.type === 'event');
    expect(expanded.map((r) => (r.payload as { llm_request: { messages: unknown } }).llm_request.messages)).toEqual(sent);
  });

  it('redacts a secret in the added messages, and the rebuilt request shows it redacted', async () => {
    const messages: unknown[] = [{ role: 'user', content: 'my key is sk-live-0123456789abcdef' }];
    step(messages, 1);
    step(messages, 2);
    await writer.flush();
    const { records } = await readAuditFile(writer.path);
    expect(JSON.stringify(records)).not.toContain('sk-live-0123456789abcdef');
    const last = expandModelRequests(records)
      .filter((r) => r.type === 'event')
      .at(-1);
    const rebuilt = (last?.payload as { llm_request: { messages: Array<{ content: string }> } }).llm_request.messages;
    expect(rebuilt).toHaveLength(3);
    expect(rebuilt[0].content).not.toContain('sk-live-0123456789abcdef');
  });

  it('marks a request whose earlier messages are not in the records as incomplete, never shows a wrong history', async () => {
    const messages: unknown[] = [{ role: 'user', content: 'go' }];
    for (let n = 1; n <= 3; n++) step(messages, n);
    await writer.flush();
    const { records } = await readAuditFile(writer.path);
    const cut = records.filter((r) => !(r.type === 'event' && (r.payload as { step: number }).step === 1));
    const expanded = expandModelRequests(cut).filter((r) => r.type === 'event');
    for (const r of expanded) {
      const request = (r.payload as { llm_request: Record<string, unknown> }).llm_request;
      expect(request.messages_incomplete).toBe(true);
      expect(request.messages).toBeUndefined();
    }
  });

  it('does not take a changed message as the same one when it was tampered with on disk', async () => {
    const messages: unknown[] = [{ role: 'user', content: 'go' }];
    step(messages, 1);
    step(messages, 2);
    await writer.flush();
    const { records } = await readAuditFile(writer.path);
    const first = records.find((r) => r.type === 'event');
    const request = (first?.payload as { llm_request: { messages_delta: { added: Array<{ content: string }> } } }).llm_request;
    request.messages_delta.added[0].content = 'something else';
    const second = expandModelRequests(records).filter((r) => r.type === 'event')[1];
    expect((second.payload as { llm_request: Record<string, unknown> }).llm_request.messages_incomplete).toBe(true);
  });

  it('never takes an earlier message back at its old place for the history it had', async () => {
    const a = { role: 'system', content: 'sys' };
    const b = { role: 'user', content: 'first question' };
    const sent = [step([a, b], 1)];
    // Compaction put a summary where b was; a rewrite later brings b back at that index.
    sent.push(step([a, { role: 'user', content: 'summary' }], 2), step([a, b], 3));
    await writer.flush();
    const { records } = await readAuditFile(writer.path);
    const expanded = expandModelRequests(records).filter((r) => r.type === 'event');
    expect(expanded.map((r) => (r.payload as { llm_request: { messages: unknown } }).llm_request.messages)).toEqual(sent);
  });
});
