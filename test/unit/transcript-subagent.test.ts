import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/core/agent/llm/chat-model';
import { Transcript } from '../../src/core/agent/transcript';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-subagent-transcript-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const conversation = (...contents: string[]): ChatMessage[] => [
  { role: 'system', content: 'system prompt' },
  ...contents.map((content): ChatMessage => ({ role: 'user', content })),
];
const written = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { message: ChatMessage }).message.content);

describe("a subagent's transcript", () => {
  it("lives in a folder named after its session's, and starts empty when a resumed session numbers its subagents again", () => {
    const session = new Transcript(path.join(dir, 'abc.jsonl'));
    const first = session.subagent('agent-1');
    expect(first.file).toBe(path.join(dir, 'abc', 'subagents', 'agent-1.jsonl'));
    first.sync(conversation('earlier task'));
    const again = session.subagent('agent-1');
    expect(existsSync(again.file)).toBe(false);
    again.sync(conversation('later task'));
    expect(written(again.file)).toEqual(['later task']);
  });

  it('is never written through a link planted at its place, before or after it started, and takes no id that leaves its folder', () => {
    const session = new Transcript(path.join(dir, 'abc.jsonl'));
    const outside = path.join(dir, 'outside.txt');
    writeFileSync(outside, 'kept\n');
    mkdirSync(path.join(dir, 'abc', 'subagents'), { recursive: true });
    symlinkSync(outside, path.join(dir, 'abc', 'subagents', 'agent-1.jsonl'));
    // Planted before: the start removes the link itself.
    session.subagent('agent-1').sync(conversation('task'));
    expect(readFileSync(outside, 'utf8')).toBe('kept\n');
    // Planted after the start, before its first write: the write refuses it.
    const later = session.subagent('agent-2');
    symlinkSync(outside, later.file);
    expect(() => later.sync(conversation('task'))).toThrow(/symbolic link/);
    expect(readFileSync(outside, 'utf8')).toBe('kept\n');
    expect(() => session.subagent('../../escape')).toThrow(/invalid agent id/);
  });
});
