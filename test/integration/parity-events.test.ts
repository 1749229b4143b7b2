import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentSession } from '../../src/core/agent/agent-session';
import { OpenAIChatModel } from '../../src/core/agent/llm/openai-chat-model';
import { denyingApprover } from '../../src/core/agent/permissions/permission-settings';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// Claude Code's lifecycle events Hookpilot fires beyond its own loop, with real hook processes.

const logHook = (file: string, output = '') => `const fs = require('fs');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
fs.appendFileSync(${JSON.stringify(file)}, JSON.stringify(input) + '\\n');
process.stdout.write(${JSON.stringify(output)});
`;
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const bypass = { permissions: () => ({ mode: 'bypassPermissions' as const, allow: [], deny: [], ask: [], additionalDirectories: [] }) };

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('SessionStart after a compaction', () => {
  it('fires with source "compact", matched on it, and its context follows the summary', async () => {
    const cfg = hooksJson({ SessionStart: [{ matcher: 'compact', hooks: [{ type: 'command', command: 'node hooks/start.js' }] }] });
    h = await startAgent(
      { 'hooks/start.js': logHook('start.log', 'RE-READ: the build uses pnpm'), '.vscode/hooks.json': cfg },
      (req) => {
        const messages = req.body.messages as Array<{ content?: unknown }>;
        if (String(messages[0].content).startsWith('You compact')) return text('SUMMARY: five answers.');
        return text(`answer ${req.index}`);
      },
      { session: bypass },
    );
    for (let i = 0; i < 5; i++) await h.session.prompt(`question ${i}`);
    // The startup SessionStart did not match "compact".
    expect(() => readFileSync(h!.workspace.file('start.log'))).toThrow();
    expect(await h.session.compact(null)).toBe(true);
    expect(lines(h.workspace.file('start.log'))).toEqual([expect.objectContaining({ hook_event_name: 'SessionStart', source: 'compact' })]);
    await h.session.prompt('next');
    const sent = JSON.stringify(h.server.requests[h.server.requests.length - 1].body.messages);
    expect(sent).toContain('SUMMARY: five answers.');
    expect(sent).toContain('RE-READ: the build uses pnpm');
    expect(sent.indexOf('SUMMARY: five answers.')).toBeLessThan(sent.indexOf('RE-READ: the build uses pnpm'));
  });
});

describe('payload fields', () => {
  it('SessionStart says whether it resumes and how many turns came before', async () => {
    const cfg = hooksJson({ SessionStart: [{ hooks: [{ type: 'command', command: 'node hooks/start.js' }] }] });
    h = await startAgent({ 'hooks/start.js': logHook('start.log'), '.vscode/hooks.json': cfg }, [text('a'), text('b'), text('c')], {
      session: bypass,
    });
    await h.session.prompt('one');
    await h.session.prompt('two');
    await h.session.end();
    const resumed = new AgentSession({
      sessionId: h.session.id,
      workspaceRoot: h.workspace.dir,
      model: new OpenAIChatModel({ baseURL: h.server.url, maxRetries: 0 }),
      modelName: 'scripted-model',
      dispatcher: h.engine.dispatcher,
      approver: denyingApprover,
      permissions: bypass.permissions,
      transcriptDir: path.join(h.workspace.dir, '.agent-test-storage', 'transcripts'),
    });
    await resumed.start('resume');
    await resumed.end();
    expect(lines(h.workspace.file('start.log'))).toEqual([
      expect.objectContaining({ source: 'startup', is_resume: false, turn_index: 0 }),
      expect.objectContaining({ source: 'resume', is_resume: true, turn_index: 2 }),
    ]);
  });

  it("every payload from inside a subagent carries is_subagent: true, the parent's do not", async () => {
    const cfg = hooksJson({ PreToolUse: [{ hooks: [{ type: 'command', command: 'node hooks/pre.js' }] }] });
    h = await startAgent(
      { 'hooks/pre.js': logHook('pre.log'), '.vscode/hooks.json': cfg },
      [
        toolCalls([{ id: 't1', name: 'Task', arguments: { description: 'look around', prompt: 'list the files' } }]),
        toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*' } }]),
        text('found them'),
        text('done'),
      ],
      { session: bypass },
    );
    await h.session.prompt('delegate');
    const payloads = lines(h.workspace.file('pre.log'));
    expect(payloads.find((p) => p.tool_name === 'Task')).not.toHaveProperty('is_subagent');
    expect(payloads.find((p) => p.tool_name === 'Glob')).toMatchObject({ is_subagent: true, agent_type: 'general-purpose' });
  });
});

describe('handler fields', () => {
  it('once: a hook runs on the first occurrence of its event in a session only', async () => {
    const cfg = hooksJson({ UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node hooks/log.js', once: true }] }] });
    h = await startAgent({ 'hooks/log.js': logHook('prompts.log'), '.vscode/hooks.json': cfg }, [text('a'), text('b')], {
      session: bypass,
    });
    await h.session.prompt('first');
    await h.session.prompt('second');
    expect(lines(h.workspace.file('prompts.log')).map((p) => p.prompt)).toEqual(['first']);
  });

  it('shell: "bash" runs the line in bash', async () => {
    const cfg = hooksJson({
      UserPromptSubmit: [
        { hooks: [{ type: 'command', shell: 'bash', command: 'cat > /dev/null; [[ -n "$BASH_VERSION" ]] && echo in-bash > shell.txt' }] },
      ],
    });
    h = await startAgent({ '.vscode/hooks.json': cfg }, [text('a')], { session: bypass });
    await h.session.prompt('go');
    expect(readFileSync(h.workspace.file('shell.txt'), 'utf8')).toBe('in-bash\n');
  });

  it('asyncRewake: a background hook that exits 2 brings its stderr to the model at the next step', async () => {
    const rewake = `cat > /dev/null; echo 'LINT FAILED in a.ts' >&2; exit 2`;
    const cfg = hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: rewake, asyncRewake: true }] }] });
    // The call waits until the background run is recorded, so the next step surely follows it.
    const wait = 'until grep -qs \'"async":true\' .agent-test-storage/audit/*.jsonl; do sleep 0.05; done';
    h = await startAgent(
      { '.vscode/hooks.json': cfg },
      [toolCalls([{ id: 'b1', name: 'Bash', arguments: { command: wait } }]), text('fixing it')],
      { session: bypass },
    );
    const outcome = await h.session.prompt('go');
    expect(outcome.toolCalls[0].outcome).toBe('executed');
    expect(JSON.stringify(h.server.requests[1].body.messages)).toContain('LINT FAILED in a.ts');
  });

  it('asyncRewake: exit 2 brings stderr to the model also on an event where exit 2 blocks nothing (SessionStart)', async () => {
    // It ends once told to, after this test listens for its end.
    const rewake = `cat > /dev/null; until [ -e release ]; do sleep 0.02; done; echo 'BACKGROUND TESTS FAILED: 3 failing' >&2; exit 2`;
    h = await startAgent(
      {
        '.vscode/hooks.json': hooksJson({
          SessionStart: [{ hooks: [{ type: 'command', command: rewake, asyncRewake: true, name: 'bg-tests' }] }],
        }),
      },
      [text('ok')],
    );
    const finished = new Promise<void>((resolve) => h!.engine.dispatcher.onDidRunHook((run) => run.hook.name === 'bg-tests' && resolve()));
    writeFileSync(h.workspace.file('release'), '');
    await finished;
    await h.session.prompt('hello');
    expect(JSON.stringify(h.server.requests[0].body.messages)).toContain('BACKGROUND TESTS FAILED: 3 failing');
  });
});

describe('PermissionRequest updatedPermissions', () => {
  const grant = (rules: unknown[]) => `const fs = require('fs');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
fs.appendFileSync('asked.log', input.tool_name + '\\n');
process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedPermissions: [{ type: 'addRules', rules: ${JSON.stringify(rules)}, behavior: 'allow', destination: 'session' }] } } }));
`;

  it('addRules to the session: later matching calls run without asking again', async () => {
    const cfg = hooksJson({ PermissionRequest: [{ hooks: [{ type: 'command', command: 'node hooks/grant.js' }] }] });
    const bash = (id: string, command: string) => toolCalls([{ id, name: 'Bash', arguments: { command } }]);
    h = await startAgent({ 'hooks/grant.js': grant([{ toolName: 'Bash', ruleContent: 'echo *' }]), '.vscode/hooks.json': cfg }, [
      bash('b1', 'echo one'),
      bash('b2', 'echo two'),
      text('done'),
    ]);
    const outcome = await h.session.prompt('echo twice');
    expect(outcome.toolCalls.map((c) => c.outcome)).toEqual(['executed', 'executed']);
    expect(readFileSync(h.workspace.file('asked.log'), 'utf8')).toBe('Bash\n');
  });

  it('a rule a hook adds does not open what only a person may approve (a hook config file)', async () => {
    const cfg = hooksJson({ PermissionRequest: [{ hooks: [{ type: 'command', command: 'node hooks/grant.js' }] }] });
    const write = (id: string) => toolCalls([{ id, name: 'Write', arguments: { file_path: '.vscode/hooks.json', content: '{}' } }]);
    h = await startAgent({ 'hooks/grant.js': grant([{ toolName: 'Write' }]), '.vscode/hooks.json': cfg }, [
      write('w1'),
      write('w2'),
      text('done'),
    ]);
    const outcome = await h.session.prompt('rewrite the hooks');
    expect(outcome.toolCalls.map((c) => c.outcome)).toEqual(['denied', 'denied']);
    expect(readFileSync(h.workspace.file('.vscode/hooks.json'), 'utf8')).toBe(cfg);
  });
});

describe('AtomCode script variables', () => {
  it('command hooks get ATOMCODE_HOOK_EVENT, ATOMCODE_HOOK_TYPE, ATOMCODE_WORKSPACE and, on tool events, ATOMCODE_TOOL_NAME', async () => {
    const dump = `const fs = require('fs'); fs.readFileSync(0);
const pick = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('ATOMCODE_')));
fs.appendFileSync('env.log', JSON.stringify(pick) + '\\n');`;
    const cfg = hooksJson({
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node hooks/dump.js' }] }],
      PreToolUse: [{ hooks: [{ type: 'command', command: 'node hooks/dump.js' }] }],
    });
    h = await startAgent(
      { 'hooks/dump.js': dump, '.vscode/hooks.json': cfg },
      [toolCalls([{ id: 'g1', name: 'Glob', arguments: { pattern: '*' } }]), text('done')],
      { session: bypass },
    );
    await h.session.prompt('go');
    expect(lines(h.workspace.file('env.log'))).toEqual([
      { ATOMCODE_HOOK_EVENT: 'UserPromptSubmit', ATOMCODE_HOOK_TYPE: 'UserPromptSubmit', ATOMCODE_WORKSPACE: h.workspace.dir },
      {
        ATOMCODE_HOOK_EVENT: 'PreToolUse',
        ATOMCODE_HOOK_TYPE: 'PreToolUse',
        ATOMCODE_WORKSPACE: h.workspace.dir,
        ATOMCODE_TOOL_NAME: 'Glob',
      },
    ]);
  });
});

describe('http hooks', () => {
  it('send the payload with the configured method and headers', async () => {
    const seen: Array<{ method?: string; header?: string | string[]; body: string }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, header: req.headers['x-team'], body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const cfg = hooksJson({ UserPromptSubmit: [{ hooks: [{ type: 'http', url, method: 'PUT', headers: { 'X-Team': 'platform' } }] }] });
      h = await startAgent({ '.vscode/hooks.json': cfg }, [text('ok')], { session: bypass });
      await h.session.prompt('hello');
      expect(seen).toEqual([{ method: 'PUT', header: 'platform', body: expect.stringContaining('"prompt":"hello"') }]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
