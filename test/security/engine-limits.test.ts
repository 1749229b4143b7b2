import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_PARALLEL_READS } from '../../src/core/agent/turn-loop';
import { jsonResult, nodeHook, startTestbed, toolMessageSent, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { stall, text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// Attacks on the hook engine's limits through the real CLI: configured timeouts, matchers,
// rpc frames and answers, the http allowlist. A limit that fails must never let a guarded
// action through.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const touch = (id: string, file: string) => toolCalls([{ id, name: 'Bash', arguments: { command: `touch ${file}` } }]);
/** The files plus a hooks.json with `guard` as the one PreToolUse hook on Bash. */
const guarded = (files: Record<string, string>, guard: Record<string, unknown>) => ({
  ...files,
  '.vscode/hooks.json': hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: [guard] }] }),
});
const bypass = ['--permission-mode', 'bypassPermissions', '--output-format', 'json'];

/** A PreToolUse guard that takes a moment, then denies. */
const slowDeny = nodeHook(`setTimeout(() => {
  const deny = { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'slow guard says no' };
  process.stdout.write(JSON.stringify({ hookSpecificOutput: deny }));
}, 500);`);

describe('timeouts', () => {
  it("a guard with a 30-day timeout (over Node's timer limit) still gets to deny", async () => {
    const guard = { type: 'command', command: 'node hooks/slow-deny.js', name: 'slow-guard', onFailure: 'block', timeout: 2_592_000 };
    bed = await startTestbed(bundle.bundle, guarded({ 'hooks/slow-deny.js': slowDeny }, guard), [touch('c1', 'made.txt'), text('done')]);
    const r = await bed.run(['go', ...bypass]);
    expect(jsonResult(r).tool_calls[0]).toMatchObject({ outcome: 'blocked' });
    expect(existsSync(bed.workspace.file('made.txt'))).toBe(false);
    expect(r.stderr).not.toContain('TimeoutOverflowWarning');
  });

  it('hooks validate reports the out-of-range timeout as an error at its position', async () => {
    const hooks = hooksJson({ PreToolUse: [{ hooks: [{ type: 'command', command: 'true', timeout_ms: 99_999_999_999 }] }] });
    bed = await startTestbed(bundle.bundle, { '.vscode/hooks.json': hooks });
    const r = await bed.cli(['hooks', 'validate']);
    expect(r.code).toBe(1);
    const line = hooks.split('\n').findIndex((l) => l.includes('99999999999')) + 1;
    const column = hooks.split('\n')[line - 1].indexOf('99999999999') + 1;
    expect(r.stdout).toContain(
      `.vscode/hooks.json:${line}:${column}: error: "timeout_ms" 99999999999 is over the maximum of 86400000 ms (24 h); 86400000 ms (24 h) is used instead.`,
    );
  });
});

describe('configuration files a repository controls', () => {
  it('a settings, hooks or MCP file that is a link to /dev/zero or a FIFO is a clear problem, never a hang, a crash or a run without its hooks', async () => {
    bed = await startTestbed(bundle.bundle, {}, [text('done')]);
    const file = (name: string) => bed!.workspace.file(name);
    mkdirSync(file('.claude'), { recursive: true });
    symlinkSync('/dev/zero', file('.claude/settings.local.json'));
    symlinkSync('/dev/zero', file('.mcp.json'));
    mkdirSync(file('.vscode'), { recursive: true });
    execFileSync('mkfifo', [file('.vscode/hooks.json')]);

    const list = await bed.cli(['hooks', 'list']);
    expect(list.code, list.stderr).toBe(0);
    const said = `${list.stdout}${list.stderr}`;
    expect(said).toContain('settings.local.json: it is not a regular file');
    expect(said).toContain('hooks.json: it is not a regular file');

    // A guard configured there would not run: no session starts.
    const refused = await bed.run(['hi', '--output-format', 'json']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /cannot read .*(hooks|settings\.local)\.json: it is not a regular file .*; fix or remove it \(the hooks configured there would not run\)/,
    );
    expect(bed.server.requests).toHaveLength(0);

    rmSync(file('.vscode/hooks.json'));
    rmSync(file('.claude/settings.local.json'));
    const run = await bed.run(['hi', '--output-format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('.mcp.json: it is not a regular file');
    expect(jsonResult(run).result).toBe('done');
  });

  const arrays = `${'['.repeat(6000)}1${']'.repeat(6000)}`;
  it.each([
    ['.vscode/settings.json', 'arrays', arrays],
    ['.vscode/hooks.json', 'arrays', arrays],
    ['.claude/settings.json', 'arrays', arrays],
    // The parser skips a stray `}` in an array: as deep as `[[[…`.
    ['.vscode/hooks.json', '[},[},…', '[},'.repeat(200_000)],
  ])(
    'a %s nested thousands of levels deep (%s) is a clear problem naming it, never a crash: the run refuses it, the user hooks still load',
    async (name, _shape, deep) => {
      const key = name === '.vscode/settings.json' ? 'hookpilot.hooks' : 'hooks';
      const user = {
        'hookpilot.hooks': { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', name: 'user-guard', command: 'true' }] }] } },
      };
      bed = await startTestbed(bundle.bundle, { [name]: `{"${key}": {"x": ${deep}}}` }, [text('done')]);
      writeFileSync(path.join(bed.home, 'user-settings.json'), JSON.stringify(user));
      const list = await bed.cli(['hooks', 'list']);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toContain('user-guard');
      expect(list.stderr).toContain(`cannot read ${bed.workspace.file(name)}: nested more than 256 levels deep`);

      const refused = await bed.run(['hi', '--output-format', 'json']);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain('fix or remove it (the hooks configured there would not run)');
      expect(bed.server.requests).toHaveLength(0);
    },
  );
});

describe('matchers', () => {
  const crafted = `${'a'.repeat(50_000)}b`;

  it('a (a+)+$ matcher against a crafted subagent_type does not hold the CLI: the run goes on and SIGINT ends it', async () => {
    const hooks = hooksJson({ SubagentStart: [{ matcher: '(a+)+$', hooks: [{ type: 'command', command: 'touch matched.txt' }] }] });
    bed = await startTestbed(bundle.bundle, { '.vscode/hooks.json': hooks }, [
      toolCalls([{ id: 't1', name: 'Task', arguments: { description: 'x', prompt: 'go', subagent_type: crafted } }]),
      stall(1),
    ]);
    let child: ChildProcess | undefined;
    const running = bed.run(['go', '--permission-mode', 'bypassPermissions'], { onSpawn: (c) => (child = c), timeoutMs: 30_000 });
    // The subagent's own model request means SubagentStart's matcher has answered.
    await vi.waitFor(() => expect(bed!.server.requests.length).toBe(2), { timeout: 20_000, interval: 50 });
    child!.kill('SIGINT');
    const result = await running;
    expect(result.code).toBe(130);
    expect(existsSync(bed.workspace.file('matched.txt'))).toBe(false);
  });

  it('a model-written catastrophic Grep pattern over a crafted file finishes', async () => {
    bed = await startTestbed(bundle.bundle, { 'crafted.txt': `${crafted}\n` }, [
      toolCalls([{ id: 'g1', name: 'Grep', arguments: { pattern: '(a+)+$', path: 'crafted.txt', output_mode: 'count' } }]),
      toolCalls([{ id: 'g2', name: 'Grep', arguments: { pattern: '(a+)+b$', path: 'crafted.txt', output_mode: 'count' } }]),
      text('done'),
    ]);
    const r = await bed.run(['go', ...bypass], { timeoutMs: 30_000 });
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'executed']);
    expect(toolMessageSent(bed.server, 'g1')).toContain('No matches found');
    expect(toolMessageSent(bed.server, 'g2')).toMatch(/crafted\.txt:1/);
  });
});

/**
 * A hand-framed rpc hook server (no library: the workspace is a temp dir) whose answer to
 * hook/intercept is chosen by ANSWER: a huge frame streamed in pieces, or a long reason.
 */
const rpcServer = `const answer = process.env.ANSWER;
let buffered = Buffer.alloc(0);
const send = (body) => { const text = JSON.stringify(body); process.stdout.write('Content-Length: ' + Buffer.byteLength(text) + '\\r\\n\\r\\n' + text); };
function streamHuge(bytes) {
  process.stdout.write('Content-Length: ' + bytes + '\\r\\n\\r\\n{"jsonrpc":"2.0","id":1,"result":{"reason":"');
  const piece = 'x'.repeat(1 << 20);
  let left = bytes;
  const more = () => { while (left > 0) { left -= piece.length; if (!process.stdout.write(piece)) return process.stdout.once('drain', more); } };
  process.stdout.on('error', () => process.exit(0));
  more();
}
process.stdin.on('data', (chunk) => {
  buffered = Buffer.concat([buffered, chunk]);
  for (;;) {
    const end = buffered.indexOf('\\r\\n\\r\\n');
    if (end < 0) return;
    const length = Number(/Content-Length: (\\d+)/i.exec(buffered.subarray(0, end).toString())[1]);
    if (buffered.length < end + 4 + length) return;
    const message = JSON.parse(buffered.subarray(end + 4, end + 4 + length).toString());
    buffered = buffered.subarray(end + 4 + length);
    if (message.method === 'initialize') send({ jsonrpc: '2.0', id: message.id, result: { name: 'limits', intercept: ['PreToolUse'] } });
    else if (message.method === 'shutdown') send({ jsonrpc: '2.0', id: message.id, result: null });
    else if (message.method === 'exit') process.exit(0);
    else if (message.method === 'hook/intercept' && answer === 'huge') streamHuge(200 * 1024 * 1024);
    else if (message.method === 'hook/intercept' && answer === 'two-lengths') {
      const body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} });
      process.stdout.write('Content-Length: ' + body.length + '\\r\\nContent-Length: 5000000000\\r\\n\\r\\n' + body);
      streamHuge(3 * 1024 * 1024);
    }
    else if (message.method === 'hook/intercept') {
      const reason = 'no. '.repeat(250000);
      send({ jsonrpc: '2.0', id: message.id, result: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } } });
    }
  }
});
`;

function rpcWorkspace(answer: 'huge' | 'long-reason' | 'two-lengths'): Record<string, string> {
  const servers = {
    limits: { command: ['node', 'hooks/server.js'], env: { ANSWER: answer }, intercept: ['PreToolUse'], onFailure: 'block', timeout: 20 },
  };
  return { 'hooks/server.js': rpcServer, '.vscode/hooks.json': JSON.stringify({ servers }, null, 2) };
}

describe('rpc answers', () => {
  it('a 200 MB frame from a guard server blocks the call, with a short reason, and the run ends', async () => {
    bed = await startTestbed(bundle.bundle, rpcWorkspace('huge'), [touch('c1', 'made.txt'), text('done')]);
    const r = await bed.run(['go', ...bypass], { timeoutMs: 30_000 });
    expect(jsonResult(r).tool_calls[0]).toMatchObject({ outcome: 'blocked' });
    expect(existsSync(bed.workspace.file('made.txt'))).toBe(false);
    const sent = toolMessageSent(bed.server, 'c1') ?? '';
    expect(sent).toContain('over the 4194304-byte limit');
    expect(sent.length).toBeLessThan(5_000);
  });

  it('two Content-Length headers (a small one for the guard, 5 GB for the reader) are refused, and the guard blocks', async () => {
    bed = await startTestbed(bundle.bundle, rpcWorkspace('two-lengths'), [touch('c1', 'made.txt'), text('done')]);
    const r = await bed.run(['go', ...bypass], { timeoutMs: 30_000 });
    expect(jsonResult(r).tool_calls[0]).toMatchObject({ outcome: 'blocked' });
    expect(toolMessageSent(bed.server, 'c1')).toContain('more than one Content-Length header');
  });

  it('a 1,000,000-char deny reason reaches the model and the transcript cut to a preview', async () => {
    bed = await startTestbed(bundle.bundle, rpcWorkspace('long-reason'), [touch('c1', 'made.txt'), text('done')]);
    const r = await bed.run(['go', ...bypass], { timeoutMs: 30_000 });
    expect(jsonResult(r).tool_calls[0]).toMatchObject({ outcome: 'blocked' });
    const sent = toolMessageSent(bed.server, 'c1') ?? '';
    expect(sent).toMatch(/\[Hook output truncated: the full 1,000,000 chars are saved in \S+\]/);
    expect(sent.length).toBeLessThan(5_000);
  });
});

describe('smaller defects', () => {
  it('a guard with onFailure "block" whose JSON answer is cut off blocks the call', async () => {
    const cutOff = `process.stdout.write('{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "de');`;
    const guard = { type: 'command', command: 'node hooks/cut.js', name: 'cut-guard', onFailure: 'block' };
    bed = await startTestbed(bundle.bundle, guarded({ 'hooks/cut.js': cutOff }, guard), [touch('c1', 'made.txt'), text('done')]);
    const r = await bed.run(['go', ...bypass]);
    expect(jsonResult(r).tool_calls[0]).toMatchObject({ outcome: 'blocked' });
    expect(existsSync(bed.workspace.file('made.txt'))).toBe(false);
    expect(toolMessageSent(bed.server, 'c1')).toContain('not valid JSON');
  });

  it('hooks validate names a broken settings file once, with the position of each syntax error', async () => {
    bed = await startTestbed(bundle.bundle, {
      '.vscode/settings.json': '{\n  "hookpilot.hooks": { "hooks": {} }\n  "editor.tabSize": 2\n}\n',
    });
    const r = await bed.cli(['hooks', 'validate']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('.vscode/settings.json:3:3: error: Syntax error: comma expected.');
    expect(r.stdout).not.toMatch(/settings\.json: [^\n]*settings\.json/);
  });

  it('hooks validate warns about an event name in the wrong case, with a did-you-mean, wherever it is written', async () => {
    const noop = [{ hooks: [{ type: 'command', command: 'true' }] }];
    const hooks = JSON.stringify(
      { hooks: { pretooluse: noop }, servers: { s: { command: ['node', 's.js'], observe: ['posttooluse'] } } },
      null,
      2,
    );
    const settings = JSON.stringify({ 'hookpilot.hooks': { hooks: { userpromptsubmit: noop } } }, null, 2);
    bed = await startTestbed(bundle.bundle, { '.vscode/hooks.json': hooks, '.vscode/settings.json': settings });
    const r = await bed.cli(['hooks', 'validate']);
    expect(r.stdout).toMatch(
      /\.vscode\/hooks\.json:3:5: warning: Unknown event "pretooluse"; its hooks are ignored\. Did you mean "PreToolUse"\?/,
    );
    expect(r.stdout).toMatch(
      /\.vscode\/hooks\.json:\d+:\d+: warning: Unknown event "posttooluse" \(ignored\)\. Did you mean "PostToolUse"\?/,
    );
    expect(r.stdout).toMatch(
      /\.vscode\/settings\.json:\d+:\d+: warning: Unknown event "userpromptsubmit"; its hooks are ignored\. Did you mean "UserPromptSubmit"\?/,
    );
  });

  it('hooks test with an event name in the wrong case suggests the right one', async () => {
    bed = await startTestbed(bundle.bundle, {});
    const r = await bed.cli(['hooks', 'test', 'pretooluse']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('hookpilot: unknown event "pretooluse"; did you mean "PreToolUse"?');
  });

  it('20 hooks in one parallel group print no MaxListenersExceededWarning', async () => {
    const hooks = Array.from({ length: 20 }, (_, i) => ({ type: 'command', command: 'true', name: `parallel-${i}` }));
    const files = { '.vscode/hooks.json': hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks }] }) };
    bed = await startTestbed(bundle.bundle, files, [touch('c1', 'made.txt'), text('done')]);
    const r = await bed.run(['go', ...bypass]);
    expect(jsonResult(r).tool_calls[0]).toMatchObject({ outcome: 'executed' });
    expect(r.stderr).not.toContain('MaxListenersExceededWarning');
  });
});

describe('http allowlist', () => {
  let receiver: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => receiver?.close(resolve) ?? resolve(undefined));
    receiver = undefined;
  });

  it('http://*.example.com/* does not admit a loopback URL whose path holds ".example.com"', async () => {
    const requests: string[] = [];
    receiver = createServer((req, res) => {
      requests.push(req.url ?? '');
      res.end('{}');
    });
    await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    const smuggled = `http://127.0.0.1:${port}/.example.com/x`;
    const allowed = `http://127.0.0.1:${port}/allowed`;
    bed = await startTestbed(bundle.bundle, {}, [touch('c1', 'made.txt'), text('done')]);
    const pair = [
      { type: 'http', url: smuggled, name: 'smuggled' },
      { type: 'http', url: allowed, name: 'allowed', priority: 1 },
    ];
    const hooks = { PreToolUse: [{ hooks: pair }] };
    const settings = { 'hookpilot.hooks': { hooks, allowedHttpHookUrls: ['http://*.example.com/*', `http://127.0.0.1:${port}/allowed`] } };
    writeFileSync(path.join(bed.home, 'user-settings.json'), JSON.stringify(settings));
    const r = await bed.run(['go', ...bypass]);
    // The allowed hook ran after the refused one, so the refusal is not a matter of timing.
    expect(requests).toEqual(['/allowed']);
    expect(jsonResult(r).tool_calls[0]).toMatchObject({ outcome: 'executed' });
    expect(r.stderr).toContain(`hook "smuggled" (PreToolUse) failed: http hook URL not in allowlist: http://127.0.0.1:${port}/…`);
  });
});

describe('a reply of many read-only calls', () => {
  it(`runs at most ${MAX_PARALLEL_READS} of them, and so of their guards' processes, at once`, async () => {
    const calls = 3 * MAX_PARALLEL_READS;
    const guard = 'echo s >> "$CLAUDE_PROJECT_DIR/hook.log"; sleep 0.3; echo e >> "$CLAUDE_PROJECT_DIR/hook.log"';
    bed = await startTestbed(
      bundle.bundle,
      {
        'a.txt': 'a\n',
        '.vscode/hooks.json': hooksJson({ PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: guard }] }] }),
      },
      [
        toolCalls(Array.from({ length: calls }, (_, i) => ({ id: `r${i}`, name: 'Read', arguments: { file_path: 'a.txt' } }))),
        text('done'),
      ],
    );
    const result = await bed.run(['read', '--output-format', 'json'], { timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(jsonResult(result).tool_calls.filter((c) => c.outcome === 'executed')).toHaveLength(calls);
    let running = 0;
    let most = 0;
    for (const line of readFileSync(bed.workspace.file('hook.log'), 'utf8').trim().split('\n')) {
      running += line === 's' ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(MAX_PARALLEL_READS);
  }, 150_000);
});

const stoppingGuard = nodeHook(`if (String(input.tool_input.file_path).endsWith('stop.txt')) {
  process.stdout.write(JSON.stringify({ continue: false, stopReason: 'enough reading' }));
  process.exit(0);
}
setTimeout(() => process.exit(0), 1500);`);

describe('a read that stops the turn', () => {
  it('reads queued behind it, not yet started when it stopped, are not run', async () => {
    const queued = MAX_PARALLEL_READS + 4;
    const calls = [
      { id: 'stop', name: 'Read', arguments: { file_path: 'stop.txt' } },
      ...Array.from({ length: queued }, (_, i) => ({ id: `r${i}`, name: 'Read', arguments: { file_path: 'a.txt' } })),
    ];
    bed = await startTestbed(
      bundle.bundle,
      {
        'a.txt': 'a\n',
        'stop.txt': 's\n',
        'hooks/guard.js': stoppingGuard,
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: 'node hooks/guard.js' }] }],
        }),
      },
      [toolCalls(calls), text('done')],
    );
    const r = await bed.run(['read', '--output-format', 'json'], { timeoutMs: 120_000 });
    const outcomes = jsonResult(r).tool_calls.map((c) => c.outcome);
    // The first MAX_PARALLEL_READS started together with `stop`; the rest waited for a free worker.
    const started = outcomes.slice(MAX_PARALLEL_READS);
    expect(started, JSON.stringify(outcomes)).toEqual(started.map(() => 'skipped'));
  }, 150_000);
});
