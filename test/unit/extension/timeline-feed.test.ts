import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src/core/audit/audit-log';
import type { AuditRecord } from '../../../src/core/audit/records';
import { DEFAULT_MAX_RECORD_BYTES } from '../../../src/core/audit/audit-writer';
import { MAX_TIMELINE_RECORDS, type HostToManager } from '../../../src/shared/manager-protocol';
import { TimelineFeed } from '../../../src/extension/timeline-feed';
import { watchRetainedHeap } from '../../support/retained-heap';

let dir: string;
let audit: AuditLog;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-feed-'));
  audit = new AuditLog({ dir: path.join(dir, 'audit') });
});

afterEach(async () => {
  await audit.close();
  rmSync(dir, { recursive: true, force: true });
});

const TOOLS = [{ type: 'function', function: { name: 'Bash', parameters: { type: 'object' } } }];

/** Three model requests of one conversation, as the agent sends them: the same message objects, appended to. */
function logConversation(sessionId: string): Array<Record<string, unknown>> {
  const writer = audit.writerFor(sessionId);
  const messages: Array<Record<string, unknown>> = [
    { role: 'system', content: 'You are Hookpilot.' },
    { role: 'user', content: 'run the tests' },
  ];
  const requests: Array<Record<string, unknown>> = [];
  for (let step = 1; step <= 3; step++) {
    const request = { model: 'gpt-x', messages: [...messages], tools: TOOLS };
    requests.push(structuredClone(request));
    writer.append({
      type: 'event',
      session_id: sessionId,
      dispatch_id: `d${step}`,
      event: 'BeforeLLM',
      payload: { hook_event_name: 'BeforeLLM', session_id: sessionId, step, llm_request: request },
    });
    messages.push({ role: 'assistant', content: `step ${step}: calling Bash` }, { role: 'tool', content: `output of step ${step}` });
  }
  return requests;
}

function feedFor(): { feed: TimelineFeed; posted: HostToManager[] } {
  const posted: HostToManager[] = [];
  const feed = new TimelineFeed(
    audit,
    path.join(dir, 'transcripts'),
    () => undefined,
    (message) => posted.push(message),
  );
  return { feed, posted };
}

describe('TimelineFeed', () => {
  it('answers timelineDetail with the model request rebuilt in full, where the reset carries the delta', async () => {
    const requests = logConversation('s1');
    const { feed, posted } = feedFor();
    await feed.select('s1');
    const reset = posted.find((m): m is Extract<HostToManager, { type: 'timelineReset' }> => m.type === 'timelineReset');
    const third = reset?.records[2] as Extract<AuditRecord, { type: 'event' }>;
    const logged = (third.payload as { llm_request: Record<string, unknown> }).llm_request;
    // As logged: only the messages added since the previous request, and the tools named by hash.
    expect(logged.messages).toBeUndefined();
    expect(logged.messages_delta).toMatchObject({ base_count: 4, total: 6 });

    await feed.detail('s1', third.seq);
    const answer = posted.at(-1);
    if (answer?.type !== 'timelineRecord') throw new Error(`expected timelineRecord, got ${answer?.type}`);
    expect(answer.sessionId).toBe('s1');
    expect(answer.record.seq).toBe(third.seq);
    const full = (answer.record as Extract<AuditRecord, { type: 'event' }>).payload as { llm_request: Record<string, unknown> };
    expect(full.llm_request.messages).toEqual(requests[2].messages);
    expect(full.llm_request.tools).toEqual(TOOLS);
    expect(full.llm_request).not.toHaveProperty('messages_delta');
    feed.dispose();
  });

  it('serves only the session it shows, and nothing for a record that is not in the log', async () => {
    logConversation('s1');
    logConversation('s2');
    const { feed, posted } = feedFor();
    await feed.select('s1');
    await feed.detail('s2', 1);
    await feed.detail('s1', 999);
    await feed.detail('s1', 1);
    expect(
      posted.filter((m) => m.type === 'timelineRecord').map((m) => m.type === 'timelineRecord' && [m.sessionId, m.record.seq]),
    ).toEqual([['s1', 1]]);
    feed.dispose();
  });

  it('lists a session of big tool outputs with long strings cut, within a byte cap, and serves a cut record whole', async () => {
    const writer = audit.writerFor('big');
    const output = 'x'.repeat(200 * 1024);
    for (let i = 0; i < 100; i++) {
      writer.append({
        type: 'event',
        session_id: 'big',
        dispatch_id: `d${i}`,
        event: 'PostToolUse',
        payload: {
          hook_event_name: 'PostToolUse',
          tool_name: 'Bash',
          tool_input: { command: `cat big-${i}.log` },
          tool_response: { stdout: output },
        },
      });
    }
    await writer.flush();
    const { feed, posted } = feedFor();
    await feed.select('big');
    const reset = posted.find((m): m is Extract<HostToManager, { type: 'timelineReset' }> => m.type === 'timelineReset')!;
    expect(Buffer.byteLength(JSON.stringify(reset))).toBeLessThan(1024 * 1024);
    expect(reset.records).toHaveLength(100);
    expect(reset.shortened).toEqual(reset.records.map((r) => r.seq));
    const last = reset.records.at(-1) as Extract<AuditRecord, { type: 'event' }>;
    expect(last.payload).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'cat big-99.log' } });

    await feed.detail('big', last.seq);
    const answer = posted.at(-1);
    if (answer?.type !== 'timelineRecord') throw new Error(`expected timelineRecord, got ${answer?.type}`);
    expect((answer.record as Extract<AuditRecord, { type: 'event' }>).payload).toMatchObject({ tool_response: { stdout: output } });
    feed.dispose();
  });

  it('keeps a reset within its byte cap by dropping the oldest records', async () => {
    const writer = audit.writerFor('many');
    for (let i = 0; i < 6_000; i++) {
      writer.append({
        type: 'event',
        session_id: 'many',
        dispatch_id: `d${i}`,
        event: 'Notification',
        payload: { message: `${i} ${'y'.repeat(2_000)}` },
      });
    }
    await writer.flush();
    const { feed, posted } = feedFor();
    await feed.select('many');
    const reset = posted.find((m): m is Extract<HostToManager, { type: 'timelineReset' }> => m.type === 'timelineReset')!;
    expect(Buffer.byteLength(JSON.stringify(reset))).toBeLessThanOrEqual(8 * 1024 * 1024 + 64 * 1024);
    expect(reset.records.length).toBeLessThan(6_000);
    expect(reset.records.at(-1)?.seq).toBe(6_000);
    expect(reset.records.map((r) => r.seq)).toEqual(reset.records.map((_, i) => 6_001 - reset.records.length + i));
    feed.dispose();
  });

  it('keeps the newest MAX_TIMELINE_RECORDS records of a longer session, in order', async () => {
    const writer = audit.writerFor('long');
    for (let i = 0; i < MAX_TIMELINE_RECORDS + 50; i++) {
      writer.append({ type: 'note', session_id: 'long', level: 'info', message: `note ${i}` });
    }
    await writer.flush();
    const { feed, posted } = feedFor();
    await feed.select('long');
    const reset = posted.find((m): m is Extract<HostToManager, { type: 'timelineReset' }> => m.type === 'timelineReset')!;
    expect(reset.records.map((r) => r.seq)).toEqual(reset.records.map((_, i) => 51 + i));
    expect(reset.records).toHaveLength(MAX_TIMELINE_RECORDS);
    expect(reset.shortened).toEqual([]);
    feed.dispose();
  });

  it('opens and details a 256 MiB log without holding its records: the heap grows by what the list shows', async () => {
    // Records of the size the writer allows (1 MiB), as a Bash call printing 1 MiB logs them.
    const file = path.join(dir, 'audit', 'huge.jsonl');
    mkdirSync(path.dirname(file), { recursive: true });
    const fd = openSync(file, 'w');
    const stdout = 'x'.repeat(DEFAULT_MAX_RECORD_BYTES - 4096);
    for (let seq = 1; seq <= 256; seq++) {
      const record = {
        seq,
        ts: new Date(1_700_000_000_000 + seq).toISOString(),
        session_id: 'huge',
        type: 'event',
        dispatch_id: `d${seq}`,
        event: 'PostToolUse',
        payload: { tool_name: 'Bash', tool_input: { command: `step ${seq}` }, tool_response: { stdout: `${seq} ${stdout}` } },
      };
      writeSync(fd, `${JSON.stringify(record)}\n`);
    }
    closeSync(fd);

    const { feed, posted } = feedFor();
    const growthMiB = watchRetainedHeap(audit);
    await feed.select('huge');
    await feed.detail('huge', 3);

    const reset = posted.find((m): m is Extract<HostToManager, { type: 'timelineReset' }> => m.type === 'timelineReset')!;
    expect(reset.records.map((r) => r.seq)).toEqual(reset.records.map((_, i) => i + 1));
    expect(reset.records).toHaveLength(256);
    const answer = posted.at(-1);
    if (answer?.type !== 'timelineRecord') throw new Error(`expected timelineRecord, got ${answer?.type}`);
    expect((answer.record as Extract<AuditRecord, { type: 'event' }>).payload).toMatchObject({ tool_response: { stdout: `3 ${stdout}` } });
    console.log(`timeline feed: retained heap grew by ${growthMiB().toFixed(0)} MiB for a 256 MiB log`);
    // Holding the records would take the log's 256 MiB; the list's cut records take a few.
    expect(growthMiB()).toBeLessThan(32);
    feed.dispose();
  });
});
