import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/core/agent/llm/chat-model';
import { MAX_REPLY_BYTES } from '../../src/core/agent/llm/reply-limits';
import { Transcript } from '../../src/core/agent/transcript';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-transcript-'));
  file = path.join(dir, 'session.jsonl');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const user = (content: string): ChatMessage => ({ role: 'user', content });
const line = (message: ChatMessage) => JSON.stringify({ type: message.role, timestamp: 't', message }) + '\n';
const deny = (rule: string) => JSON.stringify({ type: 'system', subtype: 'session_deny', rule, timestamp: 't' }) + '\n';
const boundary = (keptMessages?: number) =>
  JSON.stringify({ type: 'system', subtype: 'compact_boundary', keptMessages, timestamp: 't' }) + '\n';
const contents = (messages: ChatMessage[]) => messages.map((m) => m.content);

describe('restoring a session from its transcript', () => {
  it('reads it line by line: a line too long to hold is skipped as no valid record, the rest comes back', () => {
    // Lines across many read chunks, then a record over the longest a session writes (a model's reply).
    const before = Array.from({ length: 3000 }, (_, i) => line(user(`early ${i} ${'x'.repeat(1000)}`))).join('');
    writeFileSync(file, deny('Bash(rm *)') + before + boundary(1) + line(user('summary')) + deny('Bash(curl *)'));
    appendFileSync(file, line(user('y'.repeat(MAX_REPLY_BYTES))));
    appendFileSync(file, line(user('after the long line')));
    const skipped: number[] = [];
    const restored = Transcript.restore(file, (n) => skipped.push(n));
    expect(skipped).toEqual([3005]);
    expect(contents(restored.messages)).toEqual(['summary', 'after the long line']);
    expect(restored.denyRules).toEqual(['Bash(rm *)', 'Bash(curl *)']);
  }, 60_000);

  it('a transcript that exists but cannot be read fails the resume, naming it, rather than resuming empty without its deny rules', () => {
    mkdirSync(file);
    expect(() => Transcript.restore(file)).toThrow(`cannot read the transcript ${file}: EISDIR`);
    // A session not written yet has nothing to restore.
    expect(Transcript.restore(path.join(dir, 'new.jsonl'))).toEqual({ messages: [], denyRules: [] });
  });
});

describe('a compaction cut off by a crash', () => {
  it('a boundary with none of its messages after it keeps the conversation before it', () => {
    writeFileSync(file, line(user('first')) + deny('Bash(rm *)') + boundary());
    expect(contents(Transcript.load(file))).toEqual(['first']);
    expect(Transcript.restore(file).denyRules).toEqual(['Bash(rm *)']);
  });

  it('a boundary followed by only part of its messages is torn: what a resumed process wrote after it follows the conversation before it', () => {
    writeFileSync(file, line(user('first')) + boundary(3) + line(user('summary')) + '{"type":"user","timestamp":"t","mess\n');
    expect(contents(Transcript.load(file))).toEqual(['first']);
    appendFileSync(file, line(user('second')));
    expect(contents(Transcript.load(file))).toEqual(['first', 'second']);
  });

  it('a failure while writing the compacted conversation leaves the transcript as it was', () => {
    let failing = false;
    const transcript = new Transcript(file, (value) => {
      if (failing) throw new Error('redaction failed');
      return value;
    });
    transcript.sync([{ role: 'system', content: '' }, user('first'), user('second')]);
    failing = true;
    expect(() => transcript.compacted([{ role: 'system', content: '' }, user('summary')])).toThrow('redaction failed');
    expect(readFileSync(file, 'utf8')).not.toContain('compact_boundary');
    expect(contents(Transcript.load(file))).toEqual(['first', 'second']);
    failing = false;
    transcript.compacted([{ role: 'system', content: '' }, user('summary'), user('second')]);
    expect(contents(Transcript.load(file))).toEqual(['summary', 'second']);
  });
});
