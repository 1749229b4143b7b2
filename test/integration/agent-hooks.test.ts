import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent, toolMessageSent } from '../support/agent-harness';
import { malformedToolCall, text, toolCalls } from '../support/model-server';
import { actions } from '../../src/core/hooks/agent-hook';
import { hooksJson } from '../support/workspace';

// Hook scripts are real executables reading Claude Code's JSON on stdin.
const nodeHook = (body: string) => `#!/usr/bin/env node
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const fs = require('fs');
${body}
`;

const guard = nodeHook(`
if (/rm\\s+-rf/.test(input.tool_input.command || '')) { process.stderr.write('rm -rf is not allowed here'); process.exit(2); }
`);

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const bash = (command: string, id = 'call_1') => toolCalls([{ id, name: 'Bash', arguments: { command } }]);

describe('agent loop with real hook scripts', () => {
  it('a PreToolUse guard (exit 2) blocks rm -rf: the file survives and the model gets the reason', async () => {
    h = await startAgent(
      {
        'keep.txt': 'precious',
        'hooks/guard.js': guard,
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js' }] }],
        }),
      },
      [bash('rm -rf keep.txt'), text('I could not delete it.')],
    );
    const outcome = await h.session.prompt('delete keep.txt');
    expect(existsSync(h.workspace.file('keep.txt'))).toBe(true);
    expect(outcome.toolCalls[0]).toMatchObject({ outcome: 'blocked' });
    expect(toolMessageSent(h.server, 'call_1')).toContain('rm -rf is not allowed here');
    const card = h.events.find((e) => e.type === 'tool_finished');
    expect(card && card.type === 'tool_finished' && card.hooks.some((a) => a.kind === 'blocked' && a.hookName === 'guard.js')).toBe(true);
  });

  it('PostToolUse additionalContext reaches the model next to the tool result', async () => {
    const ctx = nodeHook(
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'formatter ran: 0 changes' } }));`,
    );
    h = await startAgent(
      {
        'hooks/ctx.js': ctx,
        '.vscode/hooks.json': hooksJson({
          PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/ctx.js', name: 'formatter' }] }],
        }),
      },
      [bash('echo hello'), text('done')],
      { session: { permissions: () => ({ mode: 'bypassPermissions', allow: [], deny: [], ask: [], additionalDirectories: [] }) } },
    );
    await h.session.prompt('say hello');
    const sent = toolMessageSent(h.server, 'call_1');
    expect(sent).toContain('hello');
    expect(sent).toContain('[Hook: formatter | PostToolUse] formatter ran: 0 changes');
  });

  it('updatedInput replaces the whole input before the tool runs', async () => {
    const rewrite = nodeHook(
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'echo rewritten > out.txt' } } }));`,
    );
    h = await startAgent(
      {
        'hooks/rw.js': rewrite,
        '.vscode/hooks.json': hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/rw.js' }] }] }),
      },
      [bash('echo original > out.txt'), text('ok')],
    );
    const outcome = await h.session.prompt('write');
    expect(readFileSync(h.workspace.file('out.txt'), 'utf8').trim()).toBe('rewritten');
    expect(outcome.toolCalls[0].input).toEqual({ command: 'echo rewritten > out.txt' });
  });

  it('in default mode Bash needs approval: with nobody to ask it is denied and PermissionDenied fires', async () => {
    const record = nodeHook(`fs.appendFileSync('denied.log', input.tool_name + ':' + input.source + '\\n');`);
    h = await startAgent(
      {
        'hooks/rec.js': record,
        '.vscode/hooks.json': hooksJson({ PermissionDenied: [{ hooks: [{ type: 'command', command: 'node hooks/rec.js' }] }] }),
      },
      [bash('touch made.txt'), text('denied')],
    );
    const outcome = await h.session.prompt('touch');
    await h.engine.dispatcher.drain(5000);
    expect(outcome.toolCalls[0].outcome).toBe('denied');
    expect(existsSync(h.workspace.file('made.txt'))).toBe(false);
    expect(readFileSync(h.workspace.file('denied.log'), 'utf8')).toBe('Bash:User\n');
    const records = await h.engine.audit.read(h.session.id);
    const permissions = records.records.filter((r) => r.type === 'permission');
    expect(permissions).toMatchObject([
      { tool_name: 'Bash', tool_use_id: 'call_1', decision: 'ask', by: 'mode', level: 'P8', source: 'default mode' },
      { tool_name: 'Bash', tool_use_id: 'call_1', decision: 'deny', by: 'person', source: 'no-terminal', answer: 'deny' },
    ]);
  });

  it('an unanswered approval times out: denied, and PermissionDenied fires with source Timeout', async () => {
    const record = nodeHook(`fs.appendFileSync('denied.log', input.source + '\\n');`);
    h = await startAgent(
      {
        'hooks/rec.js': record,
        '.vscode/hooks.json': hooksJson({ PermissionDenied: [{ hooks: [{ type: 'command', command: 'node hooks/rec.js' }] }] }),
      },
      [bash('touch late.txt'), text('timed out')],
      { approver: { request: () => new Promise(() => undefined) }, session: { approvalTimeoutMs: 200 } },
    );
    const outcome = await h.session.prompt('touch');
    await h.engine.dispatcher.drain(5000);
    expect(outcome.toolCalls[0].outcome).toBe('denied');
    expect(existsSync(h.workspace.file('late.txt'))).toBe(false);
    expect(readFileSync(h.workspace.file('denied.log'), 'utf8')).toBe('Timeout\n');
  });

  it('a PermissionDenied hook answering retry: true tells the model it may retry; the retry is checked again', async () => {
    const retry = nodeHook(
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionDenied', retry: input.tool_input.command === 'touch first.txt' } }));`,
    );
    h = await startAgent(
      {
        'hooks/retry.js': retry,
        '.vscode/hooks.json': hooksJson({ PermissionDenied: [{ hooks: [{ type: 'command', command: 'node hooks/retry.js' }] }] }),
      },
      [bash('touch first.txt', 'c1'), bash('touch second.txt', 'c2'), text('gave up')],
    );
    const outcome = await h.session.prompt('touch twice');
    expect(outcome.toolCalls.map((c) => c.outcome)).toEqual(['denied', 'denied']);
    expect(existsSync(h.workspace.file('first.txt'))).toBe(false);
    expect(existsSync(h.workspace.file('second.txt'))).toBe(false);
    expect(toolMessageSent(h.server, 'c1')).toMatch(/Permission denied[\s\S]*A PermissionDenied hook says you may retry this tool call/);
    expect(toolMessageSent(h.server, 'c2')).toMatch(/Permission denied/);
    expect(toolMessageSent(h.server, 'c2')).not.toMatch(/may retry/);
  });

  it('a PostToolUseFailure hook can replace the error text the model sees', async () => {
    const explain = nodeHook(
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUseFailure', updatedToolOutput: 'FRIENDLY: ' + input.tool_input.file_path + ' does not exist yet' } }));`,
    );
    h = await startAgent(
      {
        'hooks/explain.js': explain,
        '.vscode/hooks.json': hooksJson({
          PostToolUseFailure: [{ matcher: 'Read', hooks: [{ type: 'command', command: 'node hooks/explain.js' }] }],
        }),
      },
      [toolCalls([{ id: 'r1', name: 'Read', arguments: { file_path: 'missing.txt' } }]), text('ok')],
    );
    const outcome = await h.session.prompt('read it');
    expect(outcome.toolCalls[0].outcome).toBe('failed');
    expect(toolMessageSent(h.server, 'r1')).toMatch(/^FRIENDLY: \/\S*missing\.txt does not exist yet$/);
  });

  it('a PermissionRequest hook can allow what the mode would ask a person about, and its context reaches the model', async () => {
    const approve = nodeHook(
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' }, additionalContext: 'APPROVED-BY-POLICY-7' } }));`,
    );
    h = await startAgent(
      {
        'hooks/ok.js': approve,
        '.vscode/hooks.json': hooksJson({
          PermissionRequest: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/ok.js' }] }],
        }),
      },
      [bash('touch made.txt'), text('made')],
    );
    const outcome = await h.session.prompt('touch');
    expect(outcome.toolCalls[0].outcome).toBe('executed');
    expect(existsSync(h.workspace.file('made.txt'))).toBe(true);
    expect(toolMessageSent(h.server, 'call_1')).toContain('APPROVED-BY-POLICY-7');
  });

  it('a PermissionRequest rewrite is checked again: a deny rule still denies it, an invalid one fails, a fine one runs', async () => {
    const rewrite = nodeHook(`
const to = { 'touch a.txt': 'rm -f keep.txt', 'touch b.txt': 42, 'touch c.txt': 'touch rewritten.txt' }[input.tool_input.command];
process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedInput: { command: to } } } }));`);
    h = await startAgent(
      {
        'keep.txt': 'precious',
        'hooks/rewrite.js': rewrite,
        '.vscode/hooks.json': hooksJson({
          PermissionRequest: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/rewrite.js' }] }],
        }),
      },
      [bash('touch a.txt', 'c1'), bash('touch b.txt', 'c2'), bash('touch c.txt', 'c3'), text('done')],
      { session: { permissions: () => ({ mode: 'default', allow: [], deny: ['Bash(rm *)'], ask: [], additionalDirectories: [] }) } },
    );
    const outcome = await h.session.prompt('touch three files');
    expect(outcome.toolCalls.map((c) => c.outcome)).toEqual(['denied', 'failed', 'executed']);
    expect(readFileSync(h.workspace.file('keep.txt'), 'utf8')).toBe('precious');
    expect(toolMessageSent(h.server, 'c1')).toMatch(/Permission denied .*the input a PermissionRequest hook rewrote/);
    expect(toolMessageSent(h.server, 'c2')).toMatch(/rewrote the input of Bash into something invalid/);
    expect(existsSync(h.workspace.file('rewritten.txt'))).toBe(true);
    expect(existsSync(h.workspace.file('c.txt'))).toBe(false);
  });

  it('the approver answers asks: allow once runs the call, deny does not', async () => {
    const answers = ['allow-once', 'deny'] as const;
    let asked = 0;
    h = await startAgent({}, [bash('touch a.txt', 'c1'), bash('touch b.txt', 'c2'), text('done')], {
      approver: { request: async () => ({ choice: answers[asked++], by: 'user' }) },
    });
    await h.session.prompt('touch two files');
    expect(existsSync(h.workspace.file('a.txt'))).toBe(true);
    expect(existsSync(h.workspace.file('b.txt'))).toBe(false);
    expect(toolMessageSent(h.server, 'c2')).toMatch(/Permission denied/);
  });

  it('a hook allow never overrides a deny rule (system deny)', async () => {
    const allowAll = nodeHook(
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } }));`,
    );
    h = await startAgent(
      {
        'hooks/allow.js': allowAll,
        '.vscode/hooks.json': hooksJson({ PreToolUse: [{ hooks: [{ type: 'command', command: 'node hooks/allow.js' }] }] }),
      },
      [bash('touch x.txt'), text('no')],
      {
        session: {
          permissions: () => ({ mode: 'bypassPermissions', allow: [], deny: ['Bash(touch *)'], ask: [], additionalDirectories: [] }),
        },
      },
    );
    const outcome = await h.session.prompt('touch');
    expect(outcome.toolCalls[0].outcome).toBe('denied');
    expect(existsSync(h.workspace.file('x.txt'))).toBe(false);
  });

  it('UserPromptSubmit: exit 2 blocks the prompt before any model call; plain stdout becomes context', async () => {
    const gate = nodeHook(
      `if (input.prompt.includes('secret')) { process.stderr.write('prompts may not mention secrets'); process.exit(2); } process.stdout.write('Current branch: main');`,
    );
    h = await startAgent(
      {
        'hooks/ups.js': gate,
        '.vscode/hooks.json': hooksJson({ UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node hooks/ups.js' }] }] }),
      },
      [text('fine')],
    );
    const blocked = await h.session.prompt('tell me the secret');
    expect(blocked.reason).toBe('blocked');
    expect(h.server.requests).toHaveLength(0);
    expect(h.events.find((e) => e.type === 'prompt_blocked')).toMatchObject({ reason: 'prompts may not mention secrets' });
    await h.session.prompt('hello');
    const sent = JSON.stringify(h.server.requests[0].body.messages);
    expect(sent).toContain('Current branch: main');
    expect(sent).not.toContain('tell me the secret');
  });

  it('Stop: decision block makes the agent continue with the reason; stop_hook_active is set the next time', async () => {
    const stop = nodeHook(
      `fs.appendFileSync('stop.log', String(input.stop_hook_active) + '\\n'); if (!input.stop_hook_active) process.stdout.write(JSON.stringify({ decision: 'block', reason: 'run the tests first' }));`,
    );
    h = await startAgent(
      {
        'hooks/stop.js': stop,
        '.vscode/hooks.json': hooksJson({ Stop: [{ hooks: [{ type: 'command', command: 'node hooks/stop.js' }] }] }),
      },
      [text('done'), text('tests pass, done')],
    );
    const outcome = await h.session.prompt('work');
    expect(outcome).toMatchObject({ reason: 'completed', result: 'tests pass, done' });
    expect(readFileSync(h.workspace.file('stop.log'), 'utf8')).toBe('false\ntrue\n');
    expect(JSON.stringify(h.server.requests[1].body.messages)).toContain('Stop hook feedback: run the tests first');
  });

  it('Stop: a hook that always blocks is overridden at the cap', async () => {
    const stop = nodeHook(`process.stdout.write(JSON.stringify({ decision: 'block', reason: 'again' }));`);
    h = await startAgent(
      {
        'hooks/stop.js': stop,
        '.vscode/hooks.json': hooksJson({ Stop: [{ hooks: [{ type: 'command', command: 'node hooks/stop.js' }] }] }),
      },
      [text('1'), text('2'), text('3')],
      {
        session: { stopHookCap: 2 },
      },
    );
    const outcome = await h.session.prompt('work');
    expect(outcome.reason).toBe('completed');
    expect(h.server.requests).toHaveLength(3);
    expect(h.events.some((e) => e.type === 'notice' && e.message.includes('cap 2'))).toBe(true);
  });

  it('continue: false from PostToolUse stops the session with its stopReason', async () => {
    const halt = nodeHook(`process.stdout.write(JSON.stringify({ continue: false, stopReason: 'budget exhausted' }));`);
    h = await startAgent(
      {
        'hooks/halt.js': halt,
        '.vscode/hooks.json': hooksJson({ PostToolUse: [{ hooks: [{ type: 'command', command: 'node hooks/halt.js' }] }] }),
      },
      [toolCalls([{ id: 'r1', name: 'Glob', arguments: { pattern: '*' } }]), text('never')],
    );
    const outcome = await h.session.prompt('look');
    expect(outcome.reason).toBe('stopped');
    expect(outcome.stopSession).toMatchObject({ reason: 'budget exhausted' });
    expect(h.server.requests).toHaveLength(1);
  });

  it('continue: false on the first of three calls: the others are not run, each still gets its tool message, ToolSkipped fires, and the chat goes on', async () => {
    const halt = nodeHook(`process.stdout.write(JSON.stringify({ continue: false, stopReason: 'out of budget' }));`);
    const skipped = nodeHook(`fs.appendFileSync('skipped.log', input.tool_use_id + ' ' + input.tool_name + ': ' + input.reason + '\\n');`);
    h = await startAgent(
      {
        'hooks/halt.js': halt,
        'hooks/skipped.js': skipped,
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/halt.js' }] }],
          tool_exec_skipped: [{ hooks: [{ type: 'command', command: 'node hooks/skipped.js' }] }],
        }),
      },
      [
        toolCalls([
          { id: 'c1', name: 'Bash', arguments: { command: 'echo one > one.txt' } },
          { id: 'c2', name: 'Write', arguments: { file_path: 'two.txt', content: 'two' } },
          { id: 'c3', name: 'Glob', arguments: { pattern: '*' } },
        ]),
        text('Here again.'),
      ],
    );
    const outcome = await h.session.prompt('do three things');
    expect(outcome.reason).toBe('stopped');
    expect(outcome.toolCalls.map((c) => [c.id, c.outcome])).toEqual([
      ['c1', 'blocked'],
      ['c2', 'skipped'],
      ['c3', 'skipped'],
    ]);
    expect(existsSync(h.workspace.file('one.txt')) || existsSync(h.workspace.file('two.txt'))).toBe(false);
    const log = h.workspace.file('skipped.log');
    // ToolSkipped hooks observe: they run in the background.
    await vi.waitFor(() => expect(existsSync(log) && readFileSync(log, 'utf8').split('\n').length).toBeGreaterThan(2), {
      timeout: 5_000,
      interval: 25,
    });
    expect(readFileSync(log, 'utf8').split('\n').filter(Boolean).sort()).toEqual([
      'c2 Write: hook "halt.js" stopped the turn before this call ran (out of budget).',
      'c3 Glob: hook "halt.js" stopped the turn before this call ran (out of budget).',
    ]);
    expect(h.events.filter((e) => e.type === 'tool_finished').map((e) => e.type === 'tool_finished' && e.outcome)).toEqual([
      'blocked',
      'skipped',
      'skipped',
    ]);
    const { records } = await h.engine.audit.read(h.session.id);
    expect(records.filter((r) => r.type === 'permission')).toMatchObject([
      { tool_use_id: 'c1', decision: 'deny', by: 'hook', source: 'hook halt.js', reason: 'out of budget' },
    ]);

    // The next prompt sends a conversation an OpenAI-compatible server accepts: every call has its answer.
    expect((await h.session.prompt('and now?')).reason).toBe('completed');
    const messages = h.server.requests[1].body.messages as Array<{
      role: string;
      tool_call_id?: string;
      tool_calls?: Array<{ id: string }>;
    }>;
    const asked = messages.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
    const answered = messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(asked).toEqual(['c1', 'c2', 'c3']);
    expect(answered).toEqual(['c1', 'c2', 'c3']);
    expect(toolMessageSent(h.server, 'c3')).toContain('Not run: hook "halt.js" stopped the turn');
  });

  it('a Warning: the user sees it, the model gets it as context, and truncateOutput shortens the output the model sees (in-process and command hooks)', async () => {
    const shorten = nodeHook(
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', truncateOutput: true } }));`,
    );
    const bigOutput = "node -e \"process.stdout.write('H'.repeat(1500) + 'M'.repeat(3000) + 'T'.repeat(500))\"";
    h = await startAgent(
      {
        'hooks/shorten.js': shorten,
        '.vscode/hooks.json': hooksJson({
          PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/shorten.js' }] }],
        }),
      },
      [
        toolCalls([{ id: 'w1', name: 'Bash', arguments: { command: bigOutput } }]),
        toolCalls([{ id: 'w2', name: 'Glob', arguments: { pattern: '*' } }]),
        text('done'),
      ],
      { session: { permissions: () => ({ mode: 'bypassPermissions', allow: [], deny: [], ask: [], additionalDirectories: [] }) } },
    );
    h.engine.addInProcessHook({
      name: 'glob-watch',
      postToolUse: (p) => (p.tool_name === 'Glob' ? actions.warning('the listing may be stale') : undefined),
    });
    await h.session.prompt('print a lot, then list');

    const shortened = toolMessageSent(h.server, 'w1') ?? '';
    expect(shortened).toMatch(/^H{1500}\n\[… 3000 characters left out at the request of hook "shorten\.js" …\]\nT{500}/);
    expect(shortened).not.toContain('M');
    expect(toolMessageSent(h.server, 'w2')).toContain('[Hook: glob-watch | PostToolUse] Warning: the listing may be stale');
    const card = h.events.find((e) => e.type === 'tool_finished' && e.id === 'w2');
    expect(card?.type === 'tool_finished' && card.hooks.some((a) => a.kind === 'warning' && a.detail === 'the listing may be stale')).toBe(
      true,
    );
  });

  it('malformed tool arguments are explained to the model and the session goes on', async () => {
    h = await startAgent({}, [malformedToolCall('Bash', '{"command": "ls'), text('retrying is pointless')]);
    const outcome = await h.session.prompt('list');
    expect(outcome.reason).toBe('completed');
    expect(outcome.toolCalls[0].outcome).toBe('failed');
    expect(JSON.stringify(h.server.requests[1].body.messages)).toContain('not valid JSON');
  });

  it('two calls of one reply under one id are told apart: each keeps its own outcome and result, AfterLLM hooks included', async () => {
    const afterLlm = nodeHook(
      `fs.appendFileSync('after-ids.jsonl', JSON.stringify(input.llm_response.tool_calls.map((c) => c.id)) + '\\n');`,
    );
    h = await startAgent(
      {
        'keep.txt': 'precious',
        'hooks/guard.js': guard,
        'hooks/after.js': afterLlm,
        '.vscode/hooks.json': hooksJson({
          AfterLLM: [{ hooks: [{ type: 'command', command: 'node hooks/after.js' }] }],
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js' }] }],
        }),
      },
      [
        toolCalls([
          { id: 'dup', name: 'Bash', arguments: { command: 'echo fine' } },
          { id: 'dup', name: 'Bash', arguments: { command: 'rm -rf keep.txt' } },
        ]),
        text('done'),
      ],
      { session: { permissions: () => ({ mode: 'bypassPermissions', allow: [], deny: [], ask: [], additionalDirectories: [] }) } },
    );
    const outcome = await h.session.prompt('go');
    expect(outcome.toolCalls.map((c) => [c.id, c.outcome])).toEqual([
      ['dup', 'executed'],
      ['dup_2', 'blocked'],
    ]);
    expect(existsSync(h.workspace.file('keep.txt'))).toBe(true);
    const sent = h.server.requests[1].body.messages;
    const assistant = sent.find((m) => m.role === 'assistant' && m.tool_calls);
    expect(assistant?.tool_calls?.map((c) => c.id)).toEqual(['dup', 'dup_2']);
    expect(toolMessageSent(h.server, 'dup')).toContain('fine');
    expect(toolMessageSent(h.server, 'dup_2')).toContain('rm -rf is not allowed here');
    expect(JSON.parse(readFileSync(h.workspace.file('after-ids.jsonl'), 'utf8').split('\n')[0])).toEqual(['dup', 'dup_2']);
  });

  it('SessionStart plain stdout is context at the start of the conversation', async () => {
    const start = nodeHook(`process.stdout.write('Project uses pnpm; source ' + input.source);`);
    h = await startAgent(
      {
        'hooks/start.js': start,
        '.vscode/hooks.json': hooksJson({
          SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'node hooks/start.js' }] }],
        }),
      },
      [text('ok')],
    );
    await h.session.prompt('hi');
    expect(JSON.stringify(h.server.requests[0].body.messages)).toContain('Project uses pnpm; source startup');
  });

  it('untrusted workspace: hooks from .vscode/hooks.json do not run', async () => {
    h = await startAgent(
      {
        'keep.txt': 'x',
        'hooks/guard.js': guard,
        '.vscode/hooks.json': hooksJson({ PreToolUse: [{ hooks: [{ type: 'command', command: 'node hooks/guard.js' }] }] }),
      },
      [bash('echo rm -rf nothing'), text('ok')],
      {
        trusted: false,
        session: { permissions: () => ({ mode: 'bypassPermissions', allow: [], deny: [], ask: [], additionalDirectories: [] }) },
      },
    );
    const outcome = await h.session.prompt('go');
    expect(outcome.toolCalls[0].outcome).toBe('executed');
    expect(outcome.toolCalls[0].hooks).toEqual([]);
  });

  it('an unreachable model ends the turn with a clear error and fires Error; the session survives', async () => {
    const rec = nodeHook(`fs.appendFileSync('errors.log', input.error_type + '\\n');`);
    h = await startAgent(
      { 'hooks/err.js': rec, '.vscode/hooks.json': hooksJson({ Error: [{ hooks: [{ type: 'command', command: 'node hooks/err.js' }] }] }) },
      [text('x')],
    );
    await h.server.close();
    const outcome = await h.session.prompt('hi');
    await h.engine.dispatcher.drain(5000);
    expect(outcome.reason).toBe('error');
    expect(outcome.error).toMatch(/cannot reach the model/);
    expect(readFileSync(h.workspace.file('errors.log'), 'utf8')).toBe('model\n');
  });

  it('an abort decision from a PreToolUse hook ends the turn: the tool does not run and the calls after it are skipped', async () => {
    const abort = nodeHook(
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', abort: 'turn' }, reason: 'budget guard' }));`,
    );
    h = await startAgent(
      {
        'hooks/abort.js': abort,
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/abort.js', name: 'budget' }] }],
        }),
      },
      [
        toolCalls([
          { id: 'a1', name: 'Bash', arguments: { command: 'touch aborted.txt' } },
          { id: 'a2', name: 'Write', arguments: { file_path: 'later.txt', content: 'x' } },
        ]),
        text('never'),
      ],
      { session: { permissions: () => ({ mode: 'bypassPermissions', allow: [], deny: [], ask: [], additionalDirectories: [] }) } },
    );
    const outcome = await h.session.prompt('go');
    expect(outcome.reason).toBe('aborted');
    expect(outcome.error).toContain('hook "budget" aborted the turn');
    expect(outcome.stopSession).toBeUndefined();
    expect(outcome.toolCalls.map((c) => [c.id, c.outcome])).toEqual([
      ['a1', 'blocked'],
      ['a2', 'skipped'],
    ]);
    expect(existsSync(h.workspace.file('aborted.txt')) || existsSync(h.workspace.file('later.txt'))).toBe(false);
    expect(h.server.requests).toHaveLength(1);
  });

  it('a hard_abort from PostToolUse ends the turn and the session after the call', async () => {
    const abort = nodeHook(
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', abort: 'hard' } }));`,
    );
    h = await startAgent(
      {
        'hooks/abort.js': abort,
        '.vscode/hooks.json': hooksJson({
          PostToolUse: [{ hooks: [{ type: 'command', command: 'node hooks/abort.js', name: 'kill-switch' }] }],
        }),
      },
      [toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*' } }]), text('never')],
    );
    const outcome = await h.session.prompt('look');
    expect(outcome).toMatchObject({ reason: 'aborted', stopSession: { hookName: 'kill-switch' } });
    expect(h.server.requests).toHaveLength(1);
  });

  it('every permission decision is audited with who decided: rule, hook, person (with the answer), session rule, mode', async () => {
    const guard = nodeHook(
      `if ((input.tool_input.command || '').includes('forbidden')) { process.stderr.write('not that'); process.exit(2); }`,
    );
    h = await startAgent(
      {
        'hooks/guard.js': guard,
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js', name: 'guard' }] }],
        }),
      },
      [
        toolCalls([{ id: 'r1', name: 'Bash', arguments: { command: 'git status' } }]),
        toolCalls([{ id: 'h1', name: 'Bash', arguments: { command: 'echo forbidden' } }]),
        toolCalls([{ id: 'p1', name: 'Bash', arguments: { command: 'touch a.txt' } }]),
        toolCalls([{ id: 's1', name: 'Bash', arguments: { command: 'touch a.txt' } }]),
        toolCalls([{ id: 'm1', name: 'Glob', arguments: { pattern: '*' } }]),
        text('done'),
      ],
      {
        approver: { request: async () => ({ choice: 'allow-session', by: 'user' }) },
        session: { permissions: () => ({ mode: 'default', allow: ['Bash(git *)'], deny: [], ask: [], additionalDirectories: [] }) },
      },
    );
    await h.session.prompt('work');
    const { records } = await h.engine.audit.read(h.session.id);
    const permissions = records.flatMap((r) =>
      r.type === 'permission'
        ? [{ id: r.tool_use_id, decision: r.decision, by: r.by, source: r.source, level: r.level, answer: r.answer }]
        : [],
    );
    expect(permissions).toEqual([
      { id: 'r1', decision: 'allow', by: 'rule', source: 'rule Bash(git *)', level: 'P7', answer: undefined },
      { id: 'h1', decision: 'deny', by: 'hook', source: 'hook guard', level: 'P3', answer: undefined },
      { id: 'p1', decision: 'ask', by: 'mode', source: 'default mode', level: 'P8', answer: undefined },
      { id: 'p1', decision: 'allow', by: 'person', source: 'user', level: undefined, answer: 'session' },
      { id: 's1', decision: 'allow', by: 'session-rule', source: 'session rule Bash(touch a.txt)', level: 'P7', answer: undefined },
      { id: 'm1', decision: 'allow', by: 'mode', source: 'read-only tool', level: 'P8', answer: undefined },
    ]);
  });

  it('approve_tool hooks see every call that would run, also those a rule or the mode allows; a deny from one blocks it', async () => {
    const approver = nodeHook(`
fs.appendFileSync('approvals.log', input.tool_use_id + ' ' + input.current_decision + '\\n');
if ((input.tool_input.command || '').includes('deploy')) process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'no deploys today' } } }));
else process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } }));`);
    const claudeStyle = nodeHook(`fs.appendFileSync('claude.log', input.tool_use_id + '\\n');`);
    h = await startAgent(
      {
        'hooks/approver.js': approver,
        'hooks/claude.js': claudeStyle,
        '.vscode/hooks.json': hooksJson({
          approve_tool: [{ hooks: [{ type: 'command', command: 'node hooks/approver.js', name: 'change-freeze' }] }],
          PermissionRequest: [{ hooks: [{ type: 'command', command: 'node hooks/claude.js' }] }],
        }),
      },
      [
        toolCalls([{ id: 'ok1', name: 'Bash', arguments: { command: 'echo fine' } }]),
        toolCalls([{ id: 'dep1', name: 'Bash', arguments: { command: 'echo deploy' } }]),
        toolCalls([{ id: 'rd1', name: 'Glob', arguments: { pattern: '*' } }]),
        text('done'),
      ],
      { session: { permissions: () => ({ mode: 'default', allow: ['Bash(echo *)'], deny: [], ask: [], additionalDirectories: [] }) } },
    );
    const outcome = await h.session.prompt('ship it');
    expect(outcome.toolCalls.map((c) => [c.id, c.outcome])).toEqual([
      ['ok1', 'executed'],
      ['dep1', 'denied'],
      ['rd1', 'executed'],
    ]);
    expect(toolMessageSent(h.server, 'ok1')).toContain('fine');
    expect(toolMessageSent(h.server, 'dep1')).toContain('Permission denied (hook change-freeze): no deploys today');
    expect(readFileSync(h.workspace.file('approvals.log'), 'utf8')).toBe('ok1 allow\ndep1 allow\nrd1 allow\n');
    // A hook under Claude Code's own name keeps Claude Code's meaning: it runs only when a person would be asked.
    expect(existsSync(h.workspace.file('claude.log'))).toBe(false);
    const { records } = await h.engine.audit.read(h.session.id);
    expect(records.filter((r) => r.type === 'permission' && r.tool_use_id === 'dep1')).toMatchObject([
      { decision: 'allow', by: 'rule' },
      { decision: 'deny', by: 'hook', source: 'hook change-freeze', reason: 'no deploys today' },
    ]);
  });

  it('an approve_tool hook that fails denies the call: a broken guard is never an allow', async () => {
    h = await startAgent(
      {
        'hooks/broken.js': nodeHook(`throw new Error('guard crashed');`),
        '.vscode/hooks.json': hooksJson({
          approve_tool: [{ hooks: [{ type: 'command', command: 'node hooks/broken.js', name: 'broken-guard' }] }],
        }),
      },
      [toolCalls([{ id: 'b1', name: 'Bash', arguments: { command: 'touch made.txt' } }]), text('done')],
      { session: { permissions: () => ({ mode: 'bypassPermissions', allow: [], deny: [], ask: [], additionalDirectories: [] }) } },
    );
    const outcome = await h.session.prompt('touch');
    expect(outcome.toolCalls[0].outcome).toBe('denied');
    expect(existsSync(h.workspace.file('made.txt'))).toBe(false);
  });

  it('an rpc server announcing approve_tool in its handshake sees every call; its deny blocks one the mode allowed', async () => {
    const server = `const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = require(${JSON.stringify(require.resolve('vscode-jsonrpc/node'))});
const c = createMessageConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout));
c.onRequest('initialize', () => ({ name: 'freeze', observe: [], intercept: ['approve_tool'] }));
c.onRequest('hook/intercept', (params) => {
  require('fs').appendFileSync('rpc.log', params.payload.tool_use_id + ' ' + params.payload.current_decision + '\\n');
  return params.payload.tool_input.command === 'echo deploy' ? { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'frozen' } } } : {};
});
c.onRequest('shutdown', () => null);
c.onNotification('exit', () => process.exit(0));
c.listen();
`;
    h = await startAgent(
      { 'hooks/server.js': server, '.vscode/hooks.json': hooksJson({}, { servers: { freeze: { command: ['node', 'hooks/server.js'] } } }) },
      [
        toolCalls([
          { id: 'e1', name: 'Bash', arguments: { command: 'echo hi' } },
          { id: 'e2', name: 'Bash', arguments: { command: 'echo deploy' } },
        ]),
        text('done'),
      ],
      { session: { permissions: () => ({ mode: 'bypassPermissions', allow: [], deny: [], ask: [], additionalDirectories: [] }) } },
    );
    await vi.waitFor(
      () => expect(h!.engine.dispatcher.hasSubscribers('PermissionRequest', h!.session.id, (hook) => hook.everyCall === true)).toBe(true),
      { timeout: 10_000 },
    );
    const outcome = await h.session.prompt('ship');
    expect(outcome.toolCalls.map((c) => [c.id, c.outcome])).toEqual([
      ['e1', 'executed'],
      ['e2', 'denied'],
    ]);
    expect(toolMessageSent(h.server, 'e2')).toContain('frozen');
    expect(readFileSync(h.workspace.file('rpc.log'), 'utf8')).toBe('e1 allow\ne2 allow\n');
  });
});
