import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/core/audit/records';
import type { ChatMessage } from '../../src/core/agent/llm/chat-model';
import { ModelError } from '../../src/core/agent/llm/model-error';
import { Transcript } from '../../src/core/agent/transcript';
import { readAuditFile } from '../../src/core/audit/audit-reader';
import { decisionsOf, describeDifference, diffDecisions, outcomesOfTranscript } from '../../src/core/replay/decisions';
import { recordingFromAudit, recordingFromTranscript, RecordingError } from '../../src/core/replay/recording';
import { auditRecordsOf, keptRecord } from '../../src/core/replay/replay-records';
import { ReplayChatModel, ReplayExhaustedError } from '../../src/core/replay/replay-chat-model';
import { DEMO_RECORDING } from '../../src/core/replay/demo-recording';
import { loadReplaySource, MAX_RECORDING_BYTES } from '../../src/core/replay/replay-source';

const ROOT = '/home/dev/project';
let seq = 0;
const at = () => ({ seq: ++seq, ts: '2026-01-01T00:00:00.000Z', session_id: 's1' });
const event = (name: string, payload: Record<string, unknown>, dispatchId = `d${seq + 1}`): AuditRecord => ({
  ...at(),
  type: 'event',
  dispatch_id: dispatchId,
  event: name,
  payload: { hook_event_name: name, cwd: ROOT, ...payload },
});
/** The PreToolUse guard's run in dispatch pre1, with its status and decision. */
const guardRun = (status: 'success' | 'error' | 'blocking-error', decision: string): AuditRecord => ({
  ...at(),
  type: 'hook_run',
  dispatch_id: 'pre1',
  event: 'PreToolUse',
  hook_id: 'h',
  hook_name: 'guard',
  handler: 'command',
  source: 'hooksJson',
  status,
  decision,
  duration_ms: 1,
});
const reply = (content: string, calls: Array<{ id: string; name: string; arguments: unknown }> = []) =>
  event('AfterLLM', { step: 1, llm_response: { content, tool_calls: calls, finish_reason: calls.length ? 'tool_calls' : 'stop' } });

function session(): AuditRecord[] {
  seq = 0;
  return [
    event('SessionStart', { source: 'startup' }),
    event('UserPromptSubmit', { prompt: 'tidy up' }),
    event('TurnStart', { turn_index: 0, prompt: 'tidy up' }),
    reply('', [{ id: 'c1', name: 'Bash', arguments: { command: `rm -rf ${ROOT}/build` } }]),
    event('PreToolUse', { tool_name: 'Bash', tool_input: { command: `rm -rf ${ROOT}/build` }, tool_use_id: 'c1' }, 'pre1'),
    { ...at(), type: 'permission', tool_name: 'Bash', tool_use_id: 'c1', decision: 'allow', by: 'rule', source: 'rule Bash' },
    reply('', [{ id: 'c2', name: 'Write', arguments: '{"file_path": "a.txt", "content": ' }]),
    reply('Done.'),
    event('TurnEnd', { turn_index: 0, reason: 'completed' }),
    event('UserPromptSubmit', { prompt: 'and again' }),
    event('TurnStart', { turn_index: 1, prompt: 'and again' }),
    reply('Nothing left.'),
    event('TurnEnd', { turn_index: 1, reason: 'completed' }),
  ];
}

const signal = new AbortController().signal;

describe('recordingFromAudit', () => {
  it('groups the AfterLLM replies by prompt, keeping malformed tool arguments as the model sent them', () => {
    const recording = recordingFromAudit(session());
    expect(recording).toMatchObject({ kind: 'audit', sessionId: 's1', workspaceRoot: ROOT, notes: [] });
    expect(recording.turns.map((t) => [t.prompt, t.responses.length])).toEqual([
      ['tidy up', 3],
      ['and again', 1],
    ]);
    const [first, second] = recording.turns[0].responses;
    expect(first.toolCalls[0]).toEqual({ id: 'c1', name: 'Bash', argumentsText: JSON.stringify({ command: `rm -rf ${ROOT}/build` }) });
    expect(second.toolCalls[0]).toEqual({ id: 'c2', name: 'Write', argumentsText: '{"file_path": "a.txt", "content": ' });
  });

  it('a torn line, a missing beginning, a malformed reply or no prompt is a clear error', () => {
    expect(() => recordingFromAudit(session(), [{ line: 7, error: 'torn last line (12 bytes) skipped' }])).toThrow(
      new RecordingError('the audit log is damaged at line 7 (torn last line (12 bytes) skipped)'),
    );
    expect(() => recordingFromAudit(session().slice(3))).toThrow(/starts at record 4: its beginning is missing/);
    const malformed = session();
    malformed[3] = {
      ...malformed[3],
      payload: { hook_event_name: 'AfterLLM', llm_response: { content: 3, tool_calls: [] } },
    } as AuditRecord;
    expect(() => recordingFromAudit(malformed)).toThrow(/record 4: the recorded model reply is malformed \(llm_response.content: /);
    expect(() => recordingFromAudit(session().slice(0, 1))).toThrow(/no prompt: nothing to replay/);
    expect(() => recordingFromAudit([])).toThrow(/no records/);
  });

  it('a log cut while a turn ran is replayed with a note; a message sent mid-turn is noted, not taken for a prompt', () => {
    const records = session().slice(0, 5);
    expect(recordingFromAudit(records).notes).toEqual(['turn 1 has no TurnEnd: the log ends while it ran']);
    const steering = session();
    steering.splice(4, 0, event('UserPromptSubmit', { prompt: 'also the docs' }));
    const recording = recordingFromAudit(steering);
    expect(recording.turns.map((t) => t.prompt)).toEqual(['tidy up', 'and again']);
    expect(recording.notes[0]).toMatch(/a message sent while turn 1 ran is not replayed/);
  });

  it("a compaction's summary (AfterLLM at step 0) is no reply of its turn: a replay does not compact", () => {
    const records = session();
    records.splice(6, 0, event('AfterLLM', { step: 0, llm_response: { content: 'SUMMARY', tool_calls: [], finish_reason: 'stop' } }));
    const recording = recordingFromAudit(records);
    expect(recording.turns[0].responses.map((r) => r.content)).not.toContain('SUMMARY');
    expect(recording.turns[0].responses).toHaveLength(3);
  });
});

describe('recordingFromTranscript', () => {
  const line = (message: unknown) => JSON.stringify({ type: 'x', timestamp: 't', message });
  const text = [
    line({ role: 'user', content: 'fix it' }),
    line({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } }],
    }),
    line({ role: 'tool', tool_call_id: 'c1', content: 'Permission denied (default mode): commands need approval' }),
    line({ role: 'user', content: 'Stop hook feedback: run the tests' }),
    line({ role: 'assistant', content: 'Done.' }),
  ].join('\n');

  it('takes typed prompts as turns (Stop hook feedback stays in its turn) and reads outcomes from tool messages', () => {
    const recording = recordingFromTranscript(`${text}\n`, 's2');
    expect(recording.turns).toHaveLength(1);
    expect(recording.turns[0].responses.map((r) => [r.content, r.toolCalls.length])).toEqual([
      ['', 1],
      ['Done.', 0],
    ]);
  });

  it('a torn last line or a foreign line is a clear error', () => {
    expect(() => recordingFromTranscript(`${text}\n{"type":"assi`, 's2')).toThrow(
      /line 6 is not JSON: the transcript was cut while it was written/,
    );
    expect(() => recordingFromTranscript(`{"hello": 1}\n${text}`, 's2')).toThrow(/line 1 is not a transcript entry/);
    expect(() => recordingFromTranscript(line({ role: 'assistant', content: 'hi' }), 's2')).toThrow(
      /an assistant message before any prompt/,
    );
  });

  it('outcomesOfTranscript tells two calls of one reply under one id apart, as the agent loop now names them', () => {
    const call = (command: string) => ({
      id: 'dup',
      type: 'function' as const,
      function: { name: 'Bash', arguments: JSON.stringify({ command }) },
    });
    const reply = (ids: string[]): ChatMessage => ({
      role: 'assistant',
      content: '',
      tool_calls: ids.map((id, i) => ({ ...call(`c${i}`), id })),
    });
    const result = (id: string, content: string): ChatMessage => ({ role: 'tool', tool_call_id: id, content });
    // A recording from before ids were made unique, and its replay, which runs them as dup and dup_2.
    const recorded = [reply(['dup', 'dup']), result('dup', 'ok'), result('dup', 'Permission denied: no')];
    const replayed = [reply(['dup', 'dup_2']), result('dup', 'ok'), result('dup_2', 'Permission denied: no')];
    const outcomes = (messages: ChatMessage[]) => outcomesOfTranscript(messages).map((d) => [d.key, d.subject, d.decision]);
    expect(outcomes(recorded)).toEqual([
      ['tool dup', 'Bash(c0)', 'executed'],
      ['tool dup_2', 'Bash(c1)', 'denied'],
    ]);
    expect(diffDecisions(outcomesOfTranscript(recorded), outcomesOfTranscript(replayed))).toEqual([]);
  });

  it('outcomesOfTranscript reads each call back', () => {
    const messages = text.split('\n').map((l) => (JSON.parse(l) as { message: never }).message);
    expect(outcomesOfTranscript(messages)).toEqual([{ key: 'tool c1', step: 1, event: 'tool', subject: 'Bash(ls)', decision: 'denied' }]);
  });
});

describe('ReplayChatModel', () => {
  it('answers each turn from its recorded replies, maps the recorded workspace to the copy, streams the text', async () => {
    const recording = recordingFromAudit(session());
    const model = new ReplayChatModel(recording.turns, { from: ROOT, to: '/tmp/copy "x"' });
    model.beginTurn(0);
    const first = await model.complete({ model: 'm', messages: [] }, { signal });
    expect(first.toolCalls[0].arguments).toEqual({ command: 'rm -rf /tmp/copy "x"/build' });
    expect(first.toolCalls[0].argumentsText).toBe(JSON.stringify({ command: 'rm -rf /tmp/copy "x"/build' }));
    await model.complete({ model: 'm', messages: [] }, { signal });
    const deltas: string[] = [];
    expect(await model.complete({ model: 'm', messages: [] }, { signal, onTextDelta: (d) => deltas.push(d) })).toMatchObject({
      content: 'Done.',
      toolCalls: [],
    });
    expect(deltas).toEqual(['Done.']);
    expect(model.unusedReplies).toBe(0);
  });

  it('a path that only starts like the recorded root is left alone', async () => {
    const model = new ReplayChatModel(
      [{ prompt: 'p', responses: [{ content: `${ROOT}2/x and /x${ROOT}/y and ${ROOT}`, toolCalls: [], finishReason: 'stop' }] }],
      { from: ROOT, to: '/c' },
    );
    model.beginTurn(0);
    expect((await model.complete({ model: 'm', messages: [] }, { signal })).content).toBe(`${ROOT}2/x and /x${ROOT}/y and /c`);
  });

  it('asking for more replies than recorded, before a turn, or after cancellation is a ModelError', async () => {
    const model = new ReplayChatModel(recordingFromAudit(session()).turns, { to: '/c' });
    await expect(model.complete({ model: 'm', messages: [] }, { signal })).rejects.toThrow(/asked before a recorded turn began/);
    model.beginTurn(1);
    await model.complete({ model: 'm', messages: [] }, { signal });
    const exhausted = model.complete({ model: 'm', messages: [] }, { signal });
    await expect(exhausted).rejects.toBeInstanceOf(ReplayExhaustedError);
    await expect(exhausted).rejects.toThrow(
      'replay: turn 2 asked the model for reply 2, and the recording has only 1: the run went further than the recorded one',
    );
    model.beginTurn(0);
    const aborted = new AbortController();
    aborted.abort();
    await expect(model.complete({ model: 'm', messages: [] }, { signal: aborted.signal })).rejects.toBeInstanceOf(ModelError);
    expect(() => model.beginTurn(2)).toThrow(/no recorded turn 3/);
  });
});

describe('decisions', () => {
  it('a tool call is compared by its policy decision; a new deny by a hook reads as one line', () => {
    const recorded = decisionsOf(session());
    expect(recorded.find((d) => d.key === 'tool c1')).toEqual({
      key: 'tool c1',
      step: 1,
      event: 'PreToolUse',
      subject: 'Bash(rm -rf build)',
      decision: 'allow',
      by: 'rule Bash',
    });
    const now = session();
    now.splice(5, 1, guardRun('blocking-error', 'block'));
    now.push({ ...at(), type: 'dispatch', dispatch_id: 'pre1', event: 'PreToolUse', decision: 'deny', hooks_run: 1, duration_ms: 1 });
    now.push({ ...at(), type: 'permission', tool_name: 'Bash', tool_use_id: 'c1', decision: 'deny', by: 'hook', source: 'hook guard' });
    const differences = diffDecisions(recorded, decisionsOf(now));
    expect(differences.map(describeDifference)).toEqual([
      'step 1 PreToolUse Bash(rm -rf build): recorded allow by rule Bash, now deny by hook guard',
    ]);
    expect(diffDecisions(recorded, decisionsOf(session()))).toEqual([]);
  });

  it('a call id a model reuses in a later step is matched by its occurrence', () => {
    const reused = () => {
      const records = session();
      records.push(event('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'c1' }, 'pre2'));
      records.push({
        ...at(),
        type: 'permission',
        tool_name: 'Bash',
        tool_use_id: 'c1',
        decision: 'deny',
        by: 'rule',
        source: 'rule Bash(ls)',
      });
      return decisionsOf(records).filter((d) => d.key.startsWith('tool c1'));
    };
    expect(reused().map((d) => [d.key, d.subject, d.decision])).toEqual([
      ['tool c1', 'Bash(rm -rf build)', 'allow'],
      ['tool c1 #2', 'Bash(ls)', 'deny'],
    ]);
  });

  it('a hook that fails now is a difference even when the dispatch decides the same (a guard failing open)', () => {
    const withGuard = (status: 'success' | 'error') => {
      const records = session();
      records.splice(5, 0, guardRun(status, status === 'error' ? 'error' : 'none'));
      return decisionsOf(records);
    };
    expect(diffDecisions(withGuard('success'), withGuard('error')).map(describeDifference)).toEqual([
      'step 1 PreToolUse Bash(rm -rf build) hook guard: recorded success, now error',
    ]);
    expect(diffDecisions(withGuard('success'), withGuard('success'))).toEqual([]);
  });

  it('an ask is the decision, whoever answered it; a call only one run reached is a difference', () => {
    const asked = (answerBy: 'person' | 'timeout') => {
      const records = session();
      records.splice(5, 1, {
        ...at(),
        type: 'permission',
        tool_name: 'Bash',
        tool_use_id: 'c1',
        decision: 'ask',
        by: 'mode',
        source: 'default mode',
      });
      records.splice(6, 0, {
        ...at(),
        type: 'permission',
        tool_name: 'Bash',
        tool_use_id: 'c1',
        decision: answerBy === 'person' ? 'allow' : 'deny',
        by: answerBy,
        source: 'user',
      });
      return decisionsOf(records);
    };
    expect(diffDecisions(asked('person'), asked('timeout'))).toEqual([]);
    expect(diffDecisions(asked('person'), []).map(describeDifference)).toEqual([
      'step 1 PreToolUse Bash(rm -rf build): recorded ask by default mode, now not reached',
    ]);
  });
});

describe("the demo workspace's recorded session", () => {
  it('loads as an audit recording of one turn whose steps show each demo hook, with the .env value redacted', async () => {
    const demo = path.resolve(__dirname, '../../examples/demo-workspace');
    const source = await loadReplaySource(path.join(demo, DEMO_RECORDING));
    expect(source.recording.kind).toBe('audit');
    expect(source.recording.turns).toHaveLength(1);
    const calls = source.recording.turns[0].responses.flatMap((r) => r.toolCalls.map((c) => c.id));
    expect(calls).toEqual(['call_read', 'call_rm', 'call_env', 'call_write', 'call_grep']);
    const decisions = Object.fromEntries(
      source.recorded.filter((d) => d.key.startsWith('tool ')).map((d) => [d.key, `${d.decision} by ${d.by ?? ''}`]),
    );
    // Both the command guard and the rpc policy deny rm -rf, in parallel: both are named, in order.
    expect(decisions).toMatchObject({
      'tool call_rm': 'deny by hook guard, hook policy',
      'tool call_env': 'deny by hook guard',
      'tool call_write': 'ask by default mode',
    });
    const secret = readFileSync(path.join(demo, '.env'), 'utf8').match(/DEMO_API_TOKEN=(\S+)/)?.[1] ?? 'missing';
    expect(readFileSync(path.join(demo, DEMO_RECORDING), 'utf8')).not.toContain(secret);
  });
});

describe('loadReplaySource', () => {
  it('refuses a recording too large to read, before reading it (a repository could ship one)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-recording-'));
    try {
      const file = path.join(dir, 'huge.jsonl');
      writeFileSync(file, '');
      // Sparse: no disk is used.
      truncateSync(file, MAX_RECORDING_BYTES + 1);
      await expect(loadReplaySource(file)).rejects.toThrow(
        new RecordingError(
          `the recording is ${MAX_RECORDING_BYTES + 1} bytes, over the ${MAX_RECORDING_BYTES} a replay reads: replay a shorter session`,
        ),
      );
      await expect(loadReplaySource(path.join(dir, 'missing.jsonl'))).rejects.toThrow(/cannot read .*missing\.jsonl/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a value nested deeper than the stack goes is a RecordingError naming its record, not a bare stack overflow', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-recording-'));
    try {
      const deep = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000);
      const line = (seq: number, name: string, payload: string) =>
        `{"seq":${seq},"ts":"t","session_id":"s","type":"event","dispatch_id":"d${seq}","event":"${name}","payload":${payload}}`;
      const start = `${line(1, 'SessionStart', '{"cwd":"/x"}')}\n${line(2, 'UserPromptSubmit', '{"prompt":"hi"}')}\n`;
      const reply = `{"llm_response":{"content":"","tool_calls":[{"id":"c","name":"Bash","arguments":${deep}}],"finish_reason":"tool_calls"}}`;
      const input = `{"tool_name":"Bash","tool_use_id":"c","tool_input":${deep}}`;
      for (const [name, payload] of [
        ['AfterLLM', reply],
        ['PreToolUse', input],
      ]) {
        const file = path.join(dir, `${name}.jsonl`);
        writeFileSync(file, `${start}${line(3, name, payload)}\n`);
        await expect(loadReplaySource(file)).rejects.toThrow(
          new RecordingError('record 3 cannot be read (Maximum call stack size exceeded): a value in it is nested too deeply or too large'),
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a FIFO and a link to /dev/zero promptly, with a clear error, instead of blocking or reading forever', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-recording-'));
    const fifo = path.join(dir, DEMO_RECORDING);
    mkdirSync(path.dirname(fifo), { recursive: true });
    execFileSync('mkfifo', [fifo]);
    // Without the fix the read of the FIFO blocks the thread: this writer then unblocks it, so the test fails instead of hanging.
    const writer = spawn('sh', ['-c', 'printf x > "$1"', 'sh', fifo], { stdio: 'ignore' });
    try {
      const notRegular = `cannot read ${fifo}: it is not a regular file (a FIFO, a device or a folder)`;
      await expect(loadReplaySource(fifo)).rejects.toThrow(new RecordingError(notRegular));
      const zero = path.join(dir, 'zero.jsonl');
      symlinkSync('/dev/zero', zero);
      const link = `cannot read ${zero}: it is a symbolic link (not followed)`;
      await expect(loadReplaySource(zero)).rejects.toThrow(new RecordingError(link));
    } finally {
      writer.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);

  it('parses the text it read as the file readers do: audit records (torn lines too) and the transcript after compaction', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-recording-'));
    try {
      const lines = session().map((r) => JSON.stringify(r));
      // Whole, CRLF with a torn last line, a last line that is not JSON, and an invalid record.
      const audits = [
        `${lines.join('\n')}\n`,
        `${lines.join('\r\n')}\r\n\n{"seq": 9, "ty`,
        `${lines[0]}\nnot json\n\n`,
        `${lines[0]}\n{"seq":2}\n`,
      ];
      for (const [i, text] of audits.entries()) {
        writeFileSync(path.join(dir, `a${i}.jsonl`), text);
        const { records, problems } = await readAuditFile(path.join(dir, `a${i}.jsonl`));
        expect(auditRecordsOf(text.split('\n'))).toEqual({ records: records.map(keptRecord), problems });
      }
      const entry = (message: unknown) => JSON.stringify({ type: 'message', message });
      const call = { id: 'c1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } };
      const transcript = [
        entry({ role: 'user', content: 'before' }),
        JSON.stringify({ type: 'system', subtype: 'compact_boundary' }),
        entry({ role: 'user', content: 'after' }),
        entry({ role: 'assistant', content: '', tool_calls: [call] }),
        entry({ role: 'user', content: 'next' }),
        '',
      ].join('\n');
      writeFileSync(path.join(dir, 't.jsonl'), transcript);
      const messages = Transcript.parse(transcript);
      expect(messages).toEqual(Transcript.load(path.join(dir, 't.jsonl')));
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
