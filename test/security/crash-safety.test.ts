import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { jsonResult, useTestbed, type Testbed } from '../fixtures/cli/cli-harness';
import { stall, text, toolCalls, type RecordedRequest } from '../support/model-server';
import { procStat } from '../../src/core/process/proc-stat';
import { waitUntilDead } from '../support/process-liveness';

// A crash loses at most the step in flight: the transcript is written as the conversation
// grows, `--continue` finds it after a SIGKILL, and two processes never write one session.

const testbed = useTestbed();
let bed: Testbed | undefined;
/** The CLI run a test signals; its testbed kills it if the test fails first. */
let running: ChildProcess | undefined;

/** The CLI's transcripts of the test workspace (one project folder under the temp home). */
function transcripts(home: string): { dir: string; ids: string[] } {
  const projects = path.join(home, '.hookpilot', 'projects');
  const project = existsSync(projects) ? readdirSync(projects)[0] : undefined;
  const dir = project ? path.join(projects, project, 'transcripts') : '';
  const ids =
    dir && existsSync(dir)
      ? readdirSync(dir)
          .filter((n) => n.endsWith('.jsonl'))
          .map((n) => n.slice(0, -'.jsonl'.length))
      : [];
  return { dir, ids };
}

type Message = { role: string; content?: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string }> };
const messagesOf = (request: RecordedRequest) => request.body.messages as Message[];
const lastUserText = (request: RecordedRequest) =>
  String(
    messagesOf(request)
      .filter((m) => m.role === 'user')
      .at(-1)?.content ?? '',
  );

describe('a crash loses no conversation', () => {
  it('SIGKILL after ~70 tool calls: --continue finds the session and the model gets every complete step back', async () => {
    bed = await testbed({}, (request, index) => {
      if (lastUserText(request) === 'carry on') return text('resumed');
      return toolCalls([{ id: `c${index}`, name: 'Bash', arguments: { command: `echo step ${index}` } }]);
    });
    const first = bed.run(['count forever', '--permission-mode', 'bypassPermissions', '--max-steps', '500'], {
      onSpawn: (c) => (running = c),
      timeoutMs: 120_000,
    });
    await vi.waitFor(() => expect(bed!.server.requests.length).toBeGreaterThanOrEqual(70), { timeout: 90_000, interval: 20 });
    const seen = bed.server.requests.length;
    running!.kill('SIGKILL');
    const killed = await first;
    expect(killed.signal).toBe('SIGKILL');
    expect(await waitUntilDead(running!.pid!, 5_000)).toBe(true);

    const { dir, ids } = transcripts(bed.home);
    expect(ids).toHaveLength(1);
    // The lock of the killed process is still there: stale, since its pid is gone.
    expect(
      readFileSync(path.join(dir, `${ids[0]}.jsonl.lock`), 'utf8')
        .trim()
        .split(' ')[0],
    ).toBe(String(running!.pid));

    const resumed = await bed.run(['carry on', '--continue', '--permission-mode', 'bypassPermissions', '--output-format', 'json'], {
      timeoutMs: 60_000,
    });
    expect(resumed.code).toBe(0);
    expect(jsonResult(resumed)).toMatchObject({ session_id: ids[0], result: 'resumed' });
    const sent = messagesOf(bed.server.requests.at(-1)!);
    expect(sent.find((m) => m.role === 'user')?.content).toBe('count forever');
    // Request N was sent after steps 0..N-2 had their results: every one of them is back.
    const results = new Map(sent.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, String(m.content)]));
    for (let i = 0; i < seen - 1; i++) expect(results.get(`c${i}`), `result of c${i}`).toContain(`step ${i}`);
    // And the model API gets a well-formed conversation: each call has exactly one answer.
    const calls = sent.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
    expect(calls.filter((id) => !results.has(id))).toEqual([]);
    expect(new Set(calls).size).toBe(calls.length);
  });

  it("a second resume of a session in use is refused with the owner's pid; after the first ends it may resume", async () => {
    bed = await testbed({}, (request) => (lastUserText(request) === 'hang' ? stall(1) : text(`ok: ${lastUserText(request)}`)));
    const created = await bed.run(['hello', '--output-format', 'json']);
    const sessionId = jsonResult(created).session_id;

    const first = bed.run(['hang', '--resume', sessionId], { onSpawn: (c) => (running = c), timeoutMs: 60_000 });
    await vi.waitFor(() => expect(bed!.server.requests.some((r) => lastUserText(r) === 'hang')).toBe(true), { timeout: 20_000 });
    const second = await bed.run(['interleave', '--resume', sessionId]);
    expect(second.code).toBe(1);
    expect(second.stderr.trim()).toBe(`hookpilot: session ${sessionId} is in use by process ${running!.pid}`);
    expect(bed.server.requests.some((r) => lastUserText(r) === 'interleave')).toBe(false);

    running!.kill('SIGINT');
    expect((await first).code).toBe(130);
    const third = await bed.run(['after', '--resume', sessionId, '--output-format', 'json']);
    expect(jsonResult(third)).toMatchObject({ session_id: sessionId, result: 'ok: after' });
  });

  it("a killed run's lock whose pid now belongs to a process started later is stale; one whose pid and start time match is not", async () => {
    bed = await testbed({}, (request) => text(`ok: ${lastUserText(request)}`));
    const sessionId = jsonResult(await bed.run(['hello', '--output-format', 'json'])).session_id;
    const lock = path.join(transcripts(bed.home).dir, `${sessionId}.jsonl.lock`);
    // A live process that started when the lock says is its owner; one that started at another
    // time got the pid of a killed owner (a reboot, a container restart).
    const other = spawn('sleep', ['600'], { stdio: 'ignore' });
    try {
      const started = procStat(other.pid!)!.started;
      writeFileSync(lock, `${other.pid} ${started}\n`);
      const refused = await bed.run(['interleave', '--resume', sessionId]);
      expect(refused.stderr.trim()).toBe(`hookpilot: session ${sessionId} is in use by process ${other.pid}`);

      writeFileSync(lock, `${other.pid} ${started - 1}\n`);
      const resumed = await bed.run(['again', '--resume', sessionId, '--output-format', 'json']);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(jsonResult(resumed)).toMatchObject({ session_id: sessionId, result: 'ok: again' });
    } finally {
      other.kill('SIGKILL');
    }
  });
});

describe('resuming after a compaction cut off by a crash', () => {
  it('a boundary written without the compacted conversation after it does not empty the resumed conversation', async () => {
    bed = await testbed({}, (request) => text(`ok: ${lastUserText(request)}`));
    const first = jsonResult(await bed.run(['first', '--output-format', 'json']));
    // What a crash between the boundary and the compacted conversation left.
    appendFileSync(
      path.join(transcripts(bed.home).dir, `${first.session_id}.jsonl`),
      JSON.stringify({ type: 'system', subtype: 'compact_boundary', timestamp: 'x' }) + '\n',
    );
    const resumed = await bed.run(['second', '--resume', first.session_id, '--output-format', 'json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const sent = messagesOf(bed.server.requests.at(-1)!)
      .filter((m) => m.role !== 'system' && !String(m.content).startsWith('<system-reminder>'))
      .map((m) => [m.role, m.content]);
    expect(sent).toEqual([
      ['user', 'first'],
      ['assistant', 'ok: first'],
      ['user', 'second'],
    ]);
  });
});

describe('resuming after a torn transcript line', () => {
  it('the next message starts on a line of its own; the torn line is reported, the messages around it are resumed', async () => {
    bed = await testbed({}, (request) => text(`ok: ${lastUserText(request)}`));
    const first = jsonResult(await bed.run(['first', '--output-format', 'json']));
    const { dir } = transcripts(bed.home);
    // A crash in the middle of an append.
    appendFileSync(
      path.join(dir, `${first.session_id}.jsonl`),
      '{"type":"user","timestamp":"x","message":{"role":"user","content":"cut by a cr',
    );
    const second = await bed.run(['SECOND PROMPT', '--resume', first.session_id, '--output-format', 'json']);
    expect(second.stderr).toContain('hookpilot: warning: transcript line 3 is no valid record; skipped on resume');
    const n = bed.server.requests.length;
    const third = await bed.run(['third', '--resume', first.session_id, '--output-format', 'json']);
    expect(jsonResult(third).is_error).toBe(false);
    const resumed = JSON.stringify(bed.server.requests[n].body.messages);
    expect(resumed).toContain('SECOND PROMPT');
    expect(resumed).toContain('ok: SECOND PROMPT');
  });
});

describe('--continue picks only a real session', () => {
  it('a newer transcript that is a link, or whose name is no valid session id, is passed over for the latest real session', async () => {
    bed = await testbed({}, (request) => text(`ok: ${lastUserText(request)}`));
    const first = jsonResult(await bed.run(['one', '--output-format', 'json']));
    const { dir } = transcripts(bed.home);
    const later = new Date(Date.now() + 60_000);
    const elsewhere = path.join(bed.home, 'elsewhere.jsonl');
    writeFileSync(elsewhere, '');
    utimesSync(elsewhere, later, later);
    symlinkSync(elsewhere, path.join(dir, 'linked.jsonl'));
    const pastLink = await bed.run(['--continue', '--output-format', 'json', 'two']);
    expect(jsonResult(pastLink).session_id).toBe(first.session_id);

    writeFileSync(path.join(dir, 'bad id.jsonl'), '');
    utimesSync(path.join(dir, 'bad id.jsonl'), later, later);
    const pastBadName = await bed.run(['--continue', '--output-format', 'json', 'three']);
    expect(pastBadName.code, pastBadName.stderr).toBe(0);
    expect(jsonResult(pastBadName).session_id).toBe(first.session_id);
  });
});
