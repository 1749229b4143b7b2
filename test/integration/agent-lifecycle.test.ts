import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentSession } from '../../src/core/agent/agent-session';
import { OpenAIChatModel } from '../../src/core/agent/llm/openai-chat-model';
import { denyingApprover } from '../../src/core/agent/permissions/permission-settings';
import { INTERRUPTED_CALL, Transcript } from '../../src/core/agent/transcript';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent, toolMessageSent } from '../support/agent-harness';
import { isProcessAlive, waitUntilDead } from '../support/process-liveness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

const logHook = (file: string) => `#!/usr/bin/env node
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
require('fs').appendFileSync(${JSON.stringify(file)}, JSON.stringify(input) + '\\n');
`;
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const bypass = { permissions: () => ({ mode: 'bypassPermissions' as const, allow: [], deny: [], ask: [], additionalDirectories: [] }) };

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('agent lifecycle events', () => {
  it('Task subagents: SubagentStart/Stop fire, and the subagent inherits only the tool-call hooks (not Stop)', async () => {
    const cfg = hooksJson({
      SubagentStart: [{ hooks: [{ type: 'command', command: 'node hooks/log.js' }] }],
      SubagentStop: [{ hooks: [{ type: 'command', command: 'node hooks/log.js' }] }],
      PreToolUse: [{ hooks: [{ type: 'command', command: 'node hooks/log.js' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'node hooks/log.js' }] }],
    });
    h = await startAgent(
      { 'hooks/log.js': logHook('events.log'), '.vscode/hooks.json': cfg },
      [
        toolCalls([
          { id: 'task1', name: 'Task', arguments: { description: 'count files', prompt: 'How many files?', subagent_type: 'Explore' } },
        ]),
        toolCalls([{ id: 'sub1', name: 'Glob', arguments: { pattern: '**/*' } }]),
        text('There are 2 files.'),
        text('The subagent says 2 files.'),
      ],
      { session: bypass },
    );
    const outcome = await h.session.prompt('count');
    expect(outcome.reason).toBe('completed');
    const events = lines(h.workspace.file('events.log'));
    expect(events.map((e) => e.hook_event_name)).toEqual(['PreToolUse', 'SubagentStart', 'PreToolUse', 'SubagentStop', 'Stop']);
    const subPre = events[2];
    expect(subPre).toMatchObject({ tool_name: 'Glob', agent_id: 'agent-1', agent_type: 'Explore' });
    expect(events[3]).toMatchObject({ agent_type: 'Explore', last_assistant_message: 'There are 2 files.' });
    expect(toolMessageSent(h.server, 'task1')).toBe('There are 2 files.');
  });

  it("a listener of the session's events that throws does not end the turn: the tool runs and the turn completes", async () => {
    h = await startAgent({}, [toolCalls([{ name: 'Bash', arguments: { command: 'echo ran > ran.txt' } }]), text('done')], {
      session: { permissions: () => ({ mode: 'bypassPermissions', allow: [], deny: [], ask: [], additionalDirectories: [] }) },
    });
    const failures = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const listener = h.session.onEvent(() => {
      throw new Error('a view failed');
    });
    try {
      const result = await h.session.prompt('go');
      expect(result.reason).toBe('completed');
      expect(existsSync(h.workspace.file('ran.txt'))).toBe(true);
      expect(failures).toHaveBeenCalledWith('hookpilot: an event listener failed:', new Error('a view failed'));
    } finally {
      listener.dispose();
      failures.mockRestore();
    }
  });

  it('TurnEnd fires once a turn is over, however it ended, with its counts', async () => {
    const cfg = hooksJson({
      TurnEnd: [{ hooks: [{ type: 'command', command: 'node hooks/log.js' }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'node hooks/log.js' }] }],
    });
    const files = { 'hooks/log.js': logHook('events.log'), '.vscode/hooks.json': cfg };
    const glob = (id: string) => toolCalls([{ id, name: 'Glob', arguments: { pattern: '*' } }]);

    h = await startAgent(files, [glob('g1'), text('Two files.')], { session: bypass });
    expect((await h.session.prompt('count')).reason).toBe('completed');
    await h.engine.dispatcher.drain(5_000);
    const completed = lines(h.workspace.file('events.log'));
    expect(completed.map((e) => e.hook_event_name)).toEqual(['Stop', 'TurnEnd']);
    expect(completed[1]).toMatchObject({
      turn_index: 0,
      reason: 'completed',
      steps: 2,
      tool_calls: 1,
      last_assistant_message: 'Two files.',
    });
    await h.close();

    h = await startAgent(files, [glob('g1'), glob('g2')], { session: { ...bypass, maxSteps: 1 } });
    expect((await h.session.prompt('count')).reason).toBe('max_steps');
    await h.engine.dispatcher.drain(5_000);
    const outOfSteps = lines(h.workspace.file('events.log'));
    expect(outOfSteps.map((e) => e.hook_event_name)).toEqual(['TurnEnd']);
    expect(outOfSteps[0]).toMatchObject({ turn_index: 0, reason: 'max_steps', steps: 1, tool_calls: 1 });
  });

  it('compaction: past the budget PreCompact and PostCompact fire around a model-written summary', async () => {
    const cfg = hooksJson({
      PreCompact: [{ hooks: [{ type: 'command', command: 'node hooks/log.js' }] }],
      PostCompact: [{ hooks: [{ type: 'command', command: 'node hooks/log.js' }] }],
    });
    const big = 'x'.repeat(3000);
    let agentRequests = 0;
    h = await startAgent(
      { 'hooks/log.js': logHook('compact.log'), '.vscode/hooks.json': cfg },
      (req) => {
        const sys = String((req.body.messages as Array<{ content?: unknown }>)[0].content);
        if (sys.startsWith('You compact')) return text('SUMMARY: the user asked for echoes.');
        agentRequests++;
        return agentRequests <= 6
          ? toolCalls([{ id: `e${agentRequests}`, name: 'Bash', arguments: { command: `echo ${big}` } }])
          : text('done');
      },
      { session: { ...bypass, contextBudgetTokens: 4000 } },
    );
    const outcome = await h.session.prompt('echo a lot');
    await h.engine.dispatcher.drain(5000);
    expect(outcome.reason).toBe('completed');
    const events = lines(h.workspace.file('compact.log'));
    expect(events[0]).toMatchObject({ hook_event_name: 'PreCompact', trigger: 'auto' });
    expect(events.find((e) => e.hook_event_name === 'PostCompact')).toMatchObject({
      compact_summary: 'SUMMARY: the user asked for echoes.',
    });
    const after = h.server.requests[h.server.requests.length - 1];
    expect(JSON.stringify(after.body.messages)).toContain('SUMMARY: the user asked for echoes.');
    expect(h.events.some((e) => e.type === 'compacted')).toBe(true);

    // The transcript keeps the history, marks the boundary, and a resume gets exactly the compacted conversation.
    const transcriptFile = Transcript.pathFor(path.join(h.workspace.dir, '.agent-test-storage', 'transcripts'), h.session.id);
    expect(readFileSync(transcriptFile, 'utf8')).toContain('"subtype":"compact_boundary"');
    const resumed = Transcript.load(transcriptFile);
    expect(resumed.map((m) => m.role)).toEqual([...after.body.messages.slice(1).map((m) => m.role), 'assistant']);
    expect(String(resumed[0].content)).toContain('SUMMARY: the user asked for echoes.');
  });

  it('a manual compaction (/compact) fires PreCompact with trigger "manual" and the instructions; a hook may block it', async () => {
    const cfg = hooksJson({ PreCompact: [{ matcher: 'manual', hooks: [{ type: 'command', command: 'node hooks/log.js' }] }] });
    const summaries: string[] = [];
    h = await startAgent(
      { 'hooks/log.js': logHook('compact.log'), '.vscode/hooks.json': cfg },
      (req) => {
        const messages = req.body.messages as Array<{ content?: unknown }>;
        if (String(messages[0].content).startsWith('You compact')) {
          summaries.push(String(messages[1].content));
          return text('SUMMARY: five answers.');
        }
        return text(`answer ${req.index}`);
      },
      { session: bypass },
    );
    for (let i = 0; i < 5; i++) await h.session.prompt(`question ${i}`);
    expect(await h.session.compact('keep the answers')).toBe(true);
    await h.engine.dispatcher.drain(5000);
    expect(lines(h.workspace.file('compact.log'))[0]).toMatchObject({
      hook_event_name: 'PreCompact',
      trigger: 'manual',
      custom_instructions: 'keep the answers',
    });
    expect(summaries[0]).toMatch(/^Focus: keep the answers/);
  });

  it('TodoGuard keeps the agent going while todos are unfinished, before Stop hooks', async () => {
    h = await startAgent({}, [
      toolCalls([{ id: 't1', name: 'TodoWrite', arguments: { todos: [{ content: 'Write tests', status: 'in_progress' }] } }]),
      text('Done!'),
      toolCalls([{ id: 't2', name: 'TodoWrite', arguments: { todos: [{ content: 'Write tests', status: 'completed' }] } }]),
      text('Really done.'),
    ]);
    const outcome = await h.session.prompt('plan');
    expect(outcome).toMatchObject({ reason: 'completed', result: 'Really done.' });
    expect(JSON.stringify(h.server.requests[2].body.messages)).toContain('[TodoGuard] You still have unfinished todos');
  });

  it('cancellation reaches a running tool: the process tree dies and the turn ends cancelled', async () => {
    h = await startAgent({}, [toolCalls([{ id: 's1', name: 'Bash', arguments: { command: 'sleep 30 & echo $! > pid.txt; wait' } }])], {
      session: bypass,
    });
    const controller = new AbortController();
    const running = h.session.prompt('sleep', controller.signal);
    const pidFile = h.workspace.file('pid.txt');
    await vi.waitFor(() => expect(readFileSync(pidFile, 'utf8').trim()).toMatch(/^\d+$/), { timeout: 10_000 });
    controller.abort();
    // The sleep had 30 s to go: a turn that waited for it would hit the test's timeout.
    const outcome = await running;
    expect(outcome.reason).toBe('cancelled');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(await waitUntilDead(pid, 3000)).toBe(true);
  });

  it('BeforeLLM can rewrite the request and AfterLLM can abort the turn', async () => {
    const before = `#!/usr/bin/env node
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const messages = input.llm_request.messages.concat([{ role: 'user', content: 'Answer in French.' }]);
process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'BeforeLLM', llmRequest: { messages } } }));`;
    const after = `#!/usr/bin/env node
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
if (input.llm_response.content.includes('password')) process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'AfterLLM', abort: 'turn' }, reason: 'response leaked a password' }));`;
    const cfg = hooksJson({
      BeforeLLM: [{ hooks: [{ type: 'command', command: 'node hooks/before.js' }] }],
      AfterLLM: [{ hooks: [{ type: 'command', command: 'node hooks/after.js' }] }],
    });
    h = await startAgent({ 'hooks/before.js': before, 'hooks/after.js': after, '.vscode/hooks.json': cfg }, [
      text('Bonjour'),
      text('the password is hunter2'),
    ]);
    expect(await h.session.prompt('hi')).toMatchObject({ reason: 'completed', result: 'Bonjour' });
    expect(JSON.stringify(h.server.requests[0].body.messages)).toContain('Answer in French.');
    const aborted = await h.session.prompt('secret?');
    expect(aborted.reason).toBe('aborted');
    expect(aborted.error).toContain('response leaked a password');
  });

  it('async command hooks do not hold up the tool; their context arrives on a later request', async () => {
    // The hook finishes only once the test lets it: no race between its sleep and the model's.
    const slow = `#!/bin/sh
while [ ! -f release ]; do sleep 0.05; done
echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"background lint: 2 warnings"}}'
`;
    const cfg = hooksJson({ PostToolUse: [{ hooks: [{ type: 'command', command: './hooks/slow.sh', async: true, name: 'bg-lint' }] }] });
    h = await startAgent({ 'hooks/slow.sh': slow, '.vscode/hooks.json': cfg }, async (_req, index) => {
      if (index === 0) return toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*' } }]);
      if (index === 1) {
        // The tool's result reached the model while its hook is still waiting for the release file.
        const harness = h;
        if (!harness) throw new Error('the model was asked before startAgent returned');
        const finished = new Promise<void>((resolve) => {
          const listener = harness.engine.dispatcher.onDidRunHook((run) => {
            if (run.hook.name !== 'bg-lint') return;
            listener.dispose();
            resolve();
          });
        });
        writeFileSync(harness.workspace.file('release'), '');
        await finished;
        return toolCalls([{ id: 'g2', name: 'Glob', arguments: { pattern: '*' } }]);
      }
      return text('ok');
    });
    await h.session.prompt('look twice');
    expect(toolMessageSent(h.server, 'g1')).toBeDefined();
    expect(JSON.stringify(h.server.requests[1].body.messages)).not.toContain('background lint');
    expect(JSON.stringify(h.server.requests[2].body.messages)).toContain('[Hook: bg-lint | PostToolUse] background lint: 2 warnings');
  });

  it('an edit of the hooks config needs a person even in bypassPermissions mode', async () => {
    let asked = '';
    h = await startAgent(
      { '.vscode/hooks.json': hooksJson({}) },
      [toolCalls([{ id: 'w1', name: 'Write', arguments: { file_path: '.vscode/hooks.json', content: '{}' } }]), text('ok')],
      {
        session: bypass,
        approver: { request: async (req) => ((asked = req.reason), { choice: 'deny', by: 'user' }) },
      },
    );
    const outcome = await h.session.prompt('disable the hooks');
    expect(outcome.toolCalls[0].outcome).toBe('denied');
    expect(asked).toContain('configures hooks');
  });

  it("an approver's answer wider than offered is narrowed: Always allow on a hooks config edit allows that write once and saves no rule", async () => {
    const saved: string[] = [];
    const offered: string[][] = [];
    h = await startAgent(
      { '.vscode/hooks.json': hooksJson({}) },
      [
        toolCalls([{ id: 'w1', name: 'Write', arguments: { file_path: '.vscode/hooks.json', content: '{"hooks":{}}' } }]),
        toolCalls([{ id: 'w2', name: 'Write', arguments: { file_path: '.vscode/hooks.json', content: '{}' } }]),
        text('ok'),
      ],
      {
        session: { ...bypass, persistAllowRule: async (rule) => void saved.push(rule) },
        approver: { request: async () => ({ choice: 'allow-always', by: 'a host that ignores what is offered' }) },
      },
    );
    h.session.onEvent((event) => {
      if (event.type === 'approval_requested') offered.push([...event.choices]);
    });
    const outcome = await h.session.prompt('rewrite the hooks config');
    expect(outcome.toolCalls.map((c) => c.outcome)).toEqual(['executed', 'executed']);
    expect(offered).toEqual([
      ['allow-once', 'deny-session', 'deny'],
      ['allow-once', 'deny-session', 'deny'],
    ]);
    expect(saved).toEqual([]);
    const { records } = await h.engine.audit.read(h.session.id);
    expect(
      records.filter((r) => r.type === 'permission' && r.answer !== undefined).map((r) => r.type === 'permission' && r.answer),
    ).toEqual(['once', 'once']);
  });

  it('a subagent tool call passes the same permission gates: PermissionRequest, PermissionDenied and PostToolUseFailure hooks, with is_subagent and agent_id', async () => {
    const cfg = hooksJson({
      PermissionRequest: [{ hooks: [{ type: 'command', command: 'node hooks/ask.js', name: 'no-curl' }] }],
      PermissionDenied: [{ hooks: [{ type: 'command', command: 'node hooks/log.js' }] }],
      PostToolUseFailure: [{ hooks: [{ type: 'command', command: 'node hooks/log.js' }] }],
    });
    const ask = `#!/usr/bin/env node
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
require('fs').appendFileSync('events.log', JSON.stringify(input) + '\\n');
process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'no curl from subagents' } } }));
`;
    h = await startAgent({ 'hooks/log.js': logHook('events.log'), 'hooks/ask.js': ask, '.vscode/hooks.json': cfg }, [
      toolCalls([{ id: 'task1', name: 'Task', arguments: { description: 'fetch', prompt: 'Fetch it', subagent_type: 'Explore' } }]),
      toolCalls([
        { id: 'sub1', name: 'Bash', arguments: { command: 'curl http://127.0.0.1:9/x' } },
        { id: 'sub2', name: 'Read', arguments: { file_path: 'missing.txt' } },
      ]),
      text('Could not fetch.'),
      text('done'),
    ]);
    await h.session.prompt('fetch');
    await h.engine.dispatcher.drain(5_000);
    const events = lines(h.workspace.file('events.log'));
    const byEvent = (name: string) => events.find((e) => e.hook_event_name === name);
    const subagent = { agent_id: 'agent-1', agent_type: 'Explore' };
    expect(byEvent('PermissionRequest')).toMatchObject({ tool_name: 'Bash', tool_use_id: 'sub1', is_subagent: true, ...subagent });
    expect(byEvent('PermissionDenied')).toMatchObject({ tool_name: 'Bash', tool_use_id: 'sub1', source: 'Hook', ...subagent });
    expect(byEvent('PostToolUseFailure')).toMatchObject({ tool_name: 'Read', tool_use_id: 'sub2', ...subagent });
    const { records } = await h.engine.audit.read(h.session.id);
    expect(records.filter((r) => r.type === 'permission' && r.tool_use_id === 'sub1')).toMatchObject([
      { decision: 'ask', agent_id: 'agent-1' },
      { decision: 'deny', by: 'hook', source: 'hook no-curl', agent_id: 'agent-1' },
    ]);
  });

  it('an async hook still running when the session ends is killed with its process group and recorded as cancelled', async () => {
    const slow = `#!/bin/sh
echo $$ > async.pid
sleep 30
`;
    const cfg = hooksJson({ PostToolUse: [{ hooks: [{ type: 'command', command: './hooks/slow.sh', async: true, name: 'bg-sleep' }] }] });
    h = await startAgent({ 'hooks/slow.sh': slow, '.vscode/hooks.json': cfg }, [
      toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*' } }]),
      text('ok'),
    ]);
    await h.session.prompt('look');
    const pidFile = h.workspace.file('async.pid');
    await vi.waitFor(() => expect(readFileSync(pidFile, 'utf8').trim()).toMatch(/^\d+$/), { timeout: 10_000 });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isProcessAlive(pid)).toBe(true);
    await h.session.end();
    expect(await waitUntilDead(pid, 5_000)).toBe(true);
    const { records } = await h.engine.audit.read(h.session.id);
    const runs = records.filter((r) => r.type === 'hook_run' && r.hook_name === 'bg-sleep');
    // One record, written when the run ended: not a success in 0 ms at launch.
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'cancelled', async: true, error: 'cancelled: the session ended' });
    expect(runs[0].type === 'hook_run' && runs[0].duration_ms).toBeGreaterThan(0);
  });

  it('a process a Bash call detached (setsid) runs on while the session does, and is killed when it ends', async () => {
    h = await startAgent(
      {},
      [
        toolCalls([
          {
            id: 'b1',
            name: 'Bash',
            arguments: { command: `setsid sh -c 'echo $$ > bg.pid; exec sleep 30' & until [ -s bg.pid ]; do sleep 0.01; done` },
          },
        ]),
        text('started'),
      ],
      { session: bypass },
    );
    await h.session.prompt('start it');
    const pid = Number(readFileSync(h.workspace.file('bg.pid'), 'utf8'));
    try {
      expect(isProcessAlive(pid)).toBe(true);
      await h.session.end();
      expect(await waitUntilDead(pid, 5_000)).toBe(true);
    } finally {
      if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('the transcript exists from SessionStart on, and holds the assistant message while its tool call runs', async () => {
    const check = `#!/usr/bin/env node
const fs = require('fs');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const text = fs.existsSync(input.transcript_path) ? fs.readFileSync(input.transcript_path, 'utf8') : null;
fs.appendFileSync('seen.log', JSON.stringify({ event: input.hook_event_name, exists: text !== null, hasCall: text !== null && text.includes('"w1"'), hasPrompt: text !== null && text.includes('write it') }) + '\\n');
`;
    const cfg = hooksJson({
      SessionStart: [{ hooks: [{ type: 'command', command: 'node hooks/check.js' }] }],
      PreToolUse: [{ hooks: [{ type: 'command', command: 'node hooks/check.js' }] }],
    });
    h = await startAgent({ 'hooks/check.js': check, '.vscode/hooks.json': cfg }, [
      toolCalls([{ id: 'w1', name: 'Glob', arguments: { pattern: '*' } }]),
      text('ok'),
    ]);
    await h.session.prompt('write it');
    expect(lines(h.workspace.file('seen.log'))).toEqual([
      { event: 'SessionStart', exists: true, hasCall: false, hasPrompt: false },
      { event: 'PreToolUse', exists: true, hasCall: true, hasPrompt: true },
    ]);
  });

  it('a resumed transcript whose last tool call never got its result (a crash) is answered, so the model API accepts it', async () => {
    const storage = (dir: string) => path.join(dir, '.agent-test-storage', 'transcripts');
    h = await startAgent({}, [text('fine')]);
    const dir = storage(h.workspace.dir);
    mkdirSync(dir, { recursive: true });
    const sessionId = 'crashed-session';
    const entry = (message: unknown) => JSON.stringify({ type: 'x', timestamp: 't', message });
    writeFileSync(
      Transcript.pathFor(dir, sessionId),
      [
        entry({ role: 'user', content: 'run it' }),
        entry({
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'lost1', type: 'function', function: { name: 'Bash', arguments: '{"command":"make"}' } }],
        }),
        '{"type":"tool","timest',
      ].join('\n'),
    );
    const resumed = new AgentSession({
      sessionId,
      workspaceRoot: h.workspace.dir,
      model: new OpenAIChatModel({ baseURL: h.server.url, maxRetries: 0 }),
      modelName: 'scripted-model',
      dispatcher: h.engine.dispatcher,
      approver: denyingApprover,
      permissions: () => ({ mode: 'default', allow: [], deny: [], ask: [], additionalDirectories: [] }),
      transcriptDir: dir,
    });
    await resumed.start('resume');
    expect((await resumed.prompt('and?')).reason).toBe('completed');
    await resumed.end();
    const sent = h.server.requests[0].body.messages as Array<{ role: string; tool_call_id?: string; content?: unknown }>;
    expect(sent.find((m) => m.role === 'tool' && m.tool_call_id === 'lost1')?.content).toBe(INTERRUPTED_CALL);
  });

  it("one session, one writer: a second session object on the same id is refused until the first ends; a dead owner's lock is taken over", async () => {
    h = await startAgent({}, []);
    const dir = path.join(h.workspace.dir, '.agent-test-storage', 'transcripts');
    const open = (sessionId: string) =>
      new AgentSession({
        sessionId,
        workspaceRoot: h!.workspace.dir,
        model: new OpenAIChatModel({ baseURL: h!.server.url, maxRetries: 0 }),
        modelName: 'scripted-model',
        dispatcher: h!.engine.dispatcher,
        approver: denyingApprover,
        permissions: () => ({ mode: 'default', allow: [], deny: [], ask: [], additionalDirectories: [] }),
        transcriptDir: dir,
      });
    const refused = open(h.session.id);
    await expect(refused.start('resume')).rejects.toThrow(`session ${h.session.id} is in use by process ${process.pid}`);
    // Nor can it write the transcript anyway.
    await expect(refused.prompt('sneak in')).rejects.toThrow('has not started');
    expect(readFileSync(Transcript.pathFor(dir, h.session.id), 'utf8')).not.toContain('sneak in');
    // Ending it fires no SessionEnd for the session it never started.
    await refused.end();
    const sessionEnds = async () =>
      (await h!.engine.audit.read(h!.session.id)).records.filter((r) => r.type === 'event' && r.event === 'SessionEnd');
    expect(await sessionEnds()).toEqual([]);
    await h.session.end();
    expect(await sessionEnds()).toHaveLength(1);
    const again = open(h.session.id);
    await again.start('resume');
    await again.end();

    // A lock left by a process that no longer exists (SIGKILL) is stale.
    writeFileSync(`${Transcript.pathFor(dir, 'orphaned')}.lock`, '2147483646\n');
    const orphan = open('orphaned');
    await orphan.start('startup');
    expect(
      readFileSync(`${Transcript.pathFor(dir, 'orphaned')}.lock`, 'utf8')
        .trim()
        .split(' ')[0],
    ).toBe(String(process.pid));
    await orphan.end();
    expect(existsSync(`${Transcript.pathFor(dir, 'orphaned')}.lock`)).toBe(false);
  });
});
