import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/core/agent/llm/chat-model';
import { MAX_REPLY_BYTES } from '../../src/core/agent/llm/reply-limits';
import { Transcript } from '../../src/core/agent/transcript';
import { Redactor } from '../../src/core/audit/redactor';
import { RecordingError, recordingFromTranscript } from '../../src/core/replay/recording';
import { loadReplaySource } from '../../src/core/replay/replay-source';
import { samplePayload } from '../../src/shared/sample-payload';
import { startTestbed, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text } from '../support/model-server';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hp-session-files-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Every tool message of `messages` answers a call of an assistant message before it (what the model API requires). */
function orphanToolMessages(messages: readonly ChatMessage[]): string[] {
  const called = new Set<string>();
  const orphans: string[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') for (const call of m.tool_calls ?? []) called.add(call.id);
    if (m.role === 'tool' && !called.has(m.tool_call_id)) orphans.push(m.tool_call_id);
  }
  return orphans;
}

describe('a model reply the transcript writes longer than a resume reads', () => {
  it('the resumed conversation keeps no tool message whose call it lost', () => {
    const dir = tempDir();
    // As AgentSession writes it: each message redacted for the model first.
    const redactor = new Redactor();
    const transcript = new Transcript(Transcript.pathFor(dir, 's1'), (value) => redactor.redactForModel(value));
    transcript.open('s1');
    // ~14.5 MiB of reply text (well under MAX_REPLY_BYTES, the cap on a whole reply body): each
    // `://a:b@` (7 chars) is redacted to `://a:[REDACTED:url_credentials]@` (32), so the line written is ~66 MiB.
    const content = '://a:b@'.repeat(Math.ceil((14.5 * 1024 * 1024) / 7));
    expect(content.length).toBeLessThan(MAX_REPLY_BYTES / 4);
    transcript.sync([
      { role: 'system', content: '' },
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"a"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'file text' },
      { role: 'assistant', content: 'done' },
    ]);
    transcript.close();

    const skipped: number[] = [];
    const restored = Transcript.restore(transcript.file, (n) => skipped.push(n));
    // The assistant line is skipped (over what a resume reads): a tool message for c1 kept
    // without its call would make every request of the resumed session one the API refuses.
    expect(orphanToolMessages(restored.messages)).toEqual([]);
  }, 120_000);
});

describe('a recording a workspace ships, with malformed tool calls', () => {
  const user = JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' } });
  const cases: Array<[string, unknown]> = [
    ['tool_calls that is not a list', 'zzz'],
    ['a call without a function', [{ type: 'function', id: 'a' }]],
  ];
  for (const [name, toolCalls] of cases) {
    it(`${name} is a RecordingError naming the line, not a TypeError`, async () => {
      const file = path.join(tempDir(), 'rec.jsonl');
      writeFileSync(
        file,
        `${user}\n${JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: 'x', tool_calls: toolCalls } })}\n`,
      );
      await expect(loadReplaySource(file)).rejects.toBeInstanceOf(RecordingError);
    });
  }
});

describe("the Test Hook command's sample payload", () => {
  it('names a transcript_path outside the workspace a cloned repository can fill', () => {
    const workspace = tempDir();
    // As the Test Hook command builds it.
    const payload = samplePayload('Stop', 'Bash', { cwd: workspace, sessionId: 'test-fire' });
    expect(payload.transcript_path.startsWith(workspace + path.sep)).toBe(false);
  });
});

describe('hookpilot run --resume of a transcript that is not a regular file', () => {
  const bundle = useCliBundle();
  let bed: Testbed | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });

  async function firstSession(): Promise<{ sessionId: string; transcript: string }> {
    bed = await startTestbed(bundle.bundle, {}, [text('First.'), text('Second.')]);
    const first = await bed.run(['first', '--output-format', 'json']);
    expect(first.code).toBe(0);
    const sessionId = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    const projects = path.join(bed.home, '.hookpilot', 'projects');
    const transcript = path.join(projects, readdirSync(projects)[0], 'transcripts', `${sessionId}.jsonl`);
    expect(existsSync(transcript)).toBe(true);
    return { sessionId, transcript };
  }

  it('a link is refused (as --continue refuses it), not appended through', async () => {
    const { sessionId, transcript } = await firstSession();
    const elsewhere = path.join(bed!.home, 'elsewhere.txt');
    writeFileSync(elsewhere, 'not a transcript\n');
    unlinkSync(transcript);
    symlinkSync(elsewhere, transcript);
    const r = await bed!.run(['second', '--resume', sessionId]);
    expect(readFileSync(elsewhere, 'utf8')).toBe('not a transcript\n');
    expect(r.code).not.toBe(0);
  }, 60_000);

  it('a FIFO is refused with an error, the CLI does not hang on it', async () => {
    const { sessionId, transcript } = await firstSession();
    unlinkSync(transcript);
    execFileSync('mkfifo', [transcript]);
    // Opening a FIFO to read would block the CLI's thread for ever.
    const r = await bed!.run(['second', '--resume', sessionId], { timeoutMs: 15_000 });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/not a regular file/);
  }, 60_000);

  it('a FIFO at the session lock is refused with an error, the CLI does not hang on it', async () => {
    const { sessionId, transcript } = await firstSession();
    execFileSync('mkfifo', [`${transcript}.lock`]);
    // The lock is read before the transcript: it must end the run with an error, not block its thread.
    const r = await bed!.run(['second', '--resume', sessionId], { timeoutMs: 15_000 });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/not a regular file/);
  }, 60_000);
});

describe('a transcript with a session deny rule as a recording', () => {
  it('is read ("Deny for this session" is a rule, not a message of the conversation)', () => {
    const lines = [
      JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' } }),
      JSON.stringify({ type: 'system', subtype: 'session_deny', rule: 'Bash(rm *)', timestamp: new Date().toISOString() }),
      JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: 'ok' } }),
    ].join('\n');
    expect(() => recordingFromTranscript(lines, 's1')).not.toThrow();
  });
});
