import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResult, nodeHook, REPO_ROOT, startTestbed, toolMessageSent, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls, type ScriptedReply } from '../support/model-server';
import { waitUntilDead } from '../support/process-liveness';
import { hooksJson } from '../support/workspace';

// The model calls the user's MCP servers through the real built CLI: every call passes the
// same rules and hooks as a built-in tool, and a hook written for `mcp__memory__.*` works as
// it does in Claude Code. Headless, every ask is a denial.

const MEMORY = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/mcp/misbehaving-server.mjs');

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const mcpJson = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers });
const memoryServer = {
  memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: '${workspaceFolder}/memory.jsonl' } },
};
const entity = (name: string) => ({ entities: [{ name, entityType: 'person', observations: ['met at the conference'] }] });
const call = (id: string, name: string, args: Record<string, unknown>): ScriptedReply => toolCalls([{ id, name, arguments: args }]);

/** A hook that logs each payload it gets and then runs `body`. */
const loggingHook = (log: string, body = '') =>
  nodeHook(`fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify(input) + '\\n');
${body}`);

function payloads(file: string): Array<Record<string, unknown>> {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
}

describe('MCP tool calls pass the permission gate', () => {
  it('needs a rule: without one the call is denied headless; mcp__memory allows every tool of that server', async () => {
    bed = await startTestbed(bundle.bundle, { '.mcp.json': mcpJson(memoryServer) }, [
      call('c1', 'mcp__memory__create_entities', entity('Ada')),
      text('done'),
    ]);
    const denied = jsonResult(await bed.run(['remember Ada', '--output-format', 'json']));
    expect(denied.tool_calls.map((c) => c.outcome)).toEqual(['denied']);
    expect(existsSync(bed.workspace.file('memory.jsonl'))).toBe(false);

    bed.server.requests.length = 0;
    const allowed = jsonResult(await bed.run(['remember Ada', '--allowed-tools', 'mcp__memory', '--output-format', 'json']));
    expect(allowed.tool_calls.map((c) => c.outcome)).toEqual(['executed']);
    expect(readFileSync(bed.workspace.file('memory.jsonl'), 'utf8')).toContain('Ada');
  });

  it('stream-json and text output name the server of an MCP call', async () => {
    const script = [call('c1', 'mcp__memory__read_graph', {}), text('done')];
    bed = await startTestbed(bundle.bundle, { '.mcp.json': mcpJson(memoryServer) }, script);
    const stream = await bed.run(['look', '--allowed-tools', 'mcp__memory', '--output-format', 'stream-json']);
    const lines = stream.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.subtype === 'tool_started')).toMatchObject({ tool_name: 'mcp__memory__read_graph', mcp_server: 'memory' });
    expect(lines.find((l) => l.type === 'user' && l.tool_name === 'mcp__memory__read_graph')).toMatchObject({
      mcp_server: 'memory',
      outcome: 'executed',
    });
    bed.server.requests.length = 0;
    const plain = await bed.run(['look', '--allowed-tools', 'mcp__memory']);
    expect(plain.stdout).toContain('[mcp__memory__read_graph] MCP memory: read_graph {}');
  });

  it('a deny rule for the server beats an allow for one of its tools, and bypassPermissions', async () => {
    bed = await startTestbed(bundle.bundle, { '.mcp.json': mcpJson(memoryServer) }, [
      call('c1', 'mcp__memory__create_entities', entity('Eve')),
      text('done'),
    ]);
    const r = await bed.run([
      'remember',
      '--allowed-tools',
      'mcp__memory__create_entities',
      '--disallowed-tools',
      'mcp__memory__*',
      '--permission-mode',
      'bypassPermissions',
      '--output-format',
      'json',
    ]);
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['denied']);
    expect(existsSync(bed.workspace.file('memory.jsonl'))).toBe(false);
  });

  it('--disallowed-tools mcp__memory withholds the server: its tools are not even offered', async () => {
    bed = await startTestbed(bundle.bundle, { '.mcp.json': mcpJson(memoryServer) }, [
      call('c1', 'mcp__memory__create_entities', entity('Eve')),
      text('done'),
    ]);
    const r = jsonResult(
      await bed.run(['remember', '--disallowed-tools', 'mcp__memory', '--permission-mode', 'bypassPermissions', '--output-format', 'json']),
    );
    const offered =
      (bed.server.requests[0].body as { tools?: Array<{ function: { name: string } }> }).tools?.map((t) => t.function.name) ?? [];
    expect(offered.some((n) => n.startsWith('mcp__'))).toBe(false);
    expect(r.tool_calls[0].outcome).not.toBe('executed');
    expect(existsSync(bed.workspace.file('memory.jsonl'))).toBe(false);
  });
});

describe('hooks see MCP calls with Claude Code payloads', () => {
  it('a PreToolUse hook with matcher mcp__memory__.* blocks the call, even in bypassPermissions mode', async () => {
    const log = 'pre.jsonl';
    bed = await startTestbed(
      bundle.bundle,
      {
        '.mcp.json': mcpJson(memoryServer),
        'hooks/guard.js': loggingHook(log, `process.stderr.write('no writing to memory'); process.exit(2);`),
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'mcp__memory__.*', hooks: [{ type: 'command', command: 'node hooks/guard.js' }] }],
        }),
      },
      [call('c1', 'mcp__memory__create_entities', entity('Mallory')), text('done')],
    );
    const r = jsonResult(await bed.run(['remember', '--permission-mode', 'bypassPermissions', '--output-format', 'json']));
    expect(r.tool_calls.map((c) => c.outcome)).toEqual(['blocked']);
    expect(toolMessageSent(bed.server, 'c1')).toContain('no writing to memory');
    expect(existsSync(bed.workspace.file('memory.jsonl'))).toBe(false);
    const [payload] = payloads(bed.workspace.file(log));
    expect(payload).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'mcp__memory__create_entities',
      tool_input: entity('Mallory'),
      tool_use_id: 'c1',
    });
  });

  it('updatedInput rewrites the arguments the server gets; PostToolUse sees the MCP result and may replace it', async () => {
    const rewrite =
      nodeHook(`process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow',
  updatedInput: { entities: [{ name: 'Rewritten', entityType: 'person', observations: ['changed by the hook'] }] } } }));`);
    const post = loggingHook(
      'post.jsonl',
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: 'output replaced by the hook' } }));`,
    );
    bed = await startTestbed(
      bundle.bundle,
      {
        '.mcp.json': mcpJson(memoryServer),
        'hooks/rewrite.js': rewrite,
        'hooks/post.js': post,
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'mcp__memory__create_entities', hooks: [{ type: 'command', command: 'node hooks/rewrite.js' }] }],
          PostToolUse: [{ matcher: 'mcp__.*', hooks: [{ type: 'command', command: 'node hooks/post.js' }] }],
        }),
      },
      [call('c1', 'mcp__memory__create_entities', entity('Original')), text('done')],
    );
    const r = jsonResult(await bed.run(['remember', '--output-format', 'json']));
    expect(r.tool_calls.map((c) => c.outcome)).toEqual(['executed']);
    const stored = readFileSync(bed.workspace.file('memory.jsonl'), 'utf8');
    expect(stored).toContain('Rewritten');
    expect(stored).not.toContain('Original');
    expect(toolMessageSent(bed.server, 'c1')).toContain('output replaced by the hook');
    const [payload] = payloads(bed.workspace.file('post.jsonl'));
    expect(payload).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'mcp__memory__create_entities' });
    expect(payload.tool_response).toEqual([expect.objectContaining({ type: 'text', text: expect.stringContaining('Rewritten') })]);
  });

  it('a PermissionRequest hook answers for an MCP call; a denied one fires PermissionDenied with its name', async () => {
    const approve = loggingHook(
      'asked.jsonl',
      `if (input.tool_input.entities[0].name === 'Ok') process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } }));`,
    );
    bed = await startTestbed(
      bundle.bundle,
      {
        '.mcp.json': mcpJson(memoryServer),
        'hooks/approve.js': approve,
        'hooks/denied.js': loggingHook('denied.jsonl'),
        '.vscode/hooks.json': hooksJson({
          PermissionRequest: [{ matcher: 'mcp__memory__.*', hooks: [{ type: 'command', command: 'node hooks/approve.js' }] }],
          PermissionDenied: [{ matcher: 'mcp__memory__.*', hooks: [{ type: 'command', command: 'node hooks/denied.js' }] }],
        }),
      },
      [call('c1', 'mcp__memory__create_entities', entity('Ok')), call('c2', 'mcp__memory__create_entities', entity('Nope')), text('done')],
    );
    const r = jsonResult(await bed.run(['remember', '--output-format', 'json']));
    expect(r.tool_calls.map((c) => c.outcome)).toEqual(['executed', 'denied']);
    expect(payloads(bed.workspace.file('asked.jsonl')).map((p) => p.tool_name)).toEqual([
      'mcp__memory__create_entities',
      'mcp__memory__create_entities',
    ]);
    expect(payloads(bed.workspace.file('denied.jsonl'))).toEqual([
      expect.objectContaining({ hook_event_name: 'PermissionDenied', tool_name: 'mcp__memory__create_entities', tool_use_id: 'c2' }),
    ]);
    const stored = readFileSync(bed.workspace.file('memory.jsonl'), 'utf8');
    expect(stored).toContain('Ok');
    expect(stored).not.toContain('Nope');
  });

  it('a crashing and a hanging server end their calls with PostToolUseFailure; the agent goes on with its other tools', async () => {
    const fixture = { command: process.execPath, args: [FIXTURE], timeout: 500 };
    bed = await startTestbed(
      bundle.bundle,
      {
        'notes.txt': 'still readable\n',
        '.mcp.json': mcpJson({ crashy: fixture, stuck: fixture }),
        'hooks/fail.js': loggingHook('failures.jsonl'),
        '.vscode/hooks.json': hooksJson({
          PostToolUseFailure: [{ matcher: 'mcp__.*', hooks: [{ type: 'command', command: 'node hooks/fail.js' }] }],
        }),
      },
      [
        call('c1', 'mcp__crashy__crash', {}),
        call('c2', 'mcp__stuck__hang', {}),
        call('c3', 'Read', { file_path: 'notes.txt' }),
        text('done'),
      ],
    );
    const r = jsonResult(await bed.run(['go', '--allowed-tools', 'mcp__crashy,mcp__stuck', '--output-format', 'json']));
    expect(r.tool_calls.map((c) => `${c.name} ${c.outcome}`)).toEqual([
      'mcp__crashy__crash failed',
      'mcp__stuck__hang failed',
      'Read executed',
    ]);
    expect(toolMessageSent(bed.server, 'c1')).toMatch(
      /MCP server "crashy", tool "crash": .*the server exited with code \d+ before answering/i,
    );
    expect(toolMessageSent(bed.server, 'c2')).toMatch(/timed out/i);
    expect(payloads(bed.workspace.file('failures.jsonl')).map((p) => p.tool_name)).toEqual(['mcp__crashy__crash', 'mcp__stuck__hang']);
  });
});

describe('MCP servers end with the run', () => {
  it('Ctrl-C during a hanging MCP call ends the run and stops the server with its whole process tree', async () => {
    // `; exit` keeps sh from exec'ing node: the server is a grandchild of the CLI.
    const stuck = {
      command: 'sh',
      args: ['-c', `node ${FIXTURE}; exit $?`],
      env: { MCP_FIXTURE_PID_FILE: '${workspaceFolder}/server.pid' },
      timeout: 600_000,
    };
    bed = await startTestbed(bundle.bundle, { '.mcp.json': mcpJson({ stuck }) }, [call('c1', 'mcp__stuck__hang', {}), text('done')]);
    let child: ChildProcess | undefined;
    const run = bed.run(['wait', '--allowed-tools', 'mcp__stuck', '--output-format', 'stream-json'], {
      onSpawn: (c) => (child = c),
      timeoutMs: 30_000,
    });
    const pidFile = bed.workspace.file('server.pid');
    await vi.waitFor(() => expect(existsSync(pidFile) && bed!.server.requests.length > 0).toBe(true), { timeout: 15_000 });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    child!.kill('SIGINT');
    expect((await run).code).toBe(130);
    expect(await waitUntilDead(pid, 5_000)).toBe(true);
  });
});

describe('mcp_tool hooks', () => {
  it('a PreToolUse mcp_tool hook asks a server tool, templated from the event, and its JSON answer denies the Write', async () => {
    const deny = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'the policy server refuses ${tool_input.file_path}',
      },
    });
    bed = await startTestbed(
      bundle.bundle,
      {
        '.mcp.json': mcpJson({ policy: { command: process.execPath, args: [FIXTURE] } }),
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'mcp_tool', server: 'policy', tool: 'say', input: { text: deny } }] }],
        }),
      },
      [call('w1', 'Write', { file_path: 'out.txt', content: 'x' }), text('done')],
    );
    const r = jsonResult(await bed.run(['write', '--allowed-tools', 'Write', '--output-format', 'json']));
    expect(r.tool_calls.map((c) => c.outcome)).toEqual(['blocked']);
    expect(toolMessageSent(bed.server, 'w1')).toContain(`the policy server refuses ${bed.workspace.file('out.txt')}`);
    expect(existsSync(bed.workspace.file('out.txt'))).toBe(false);
  });

  it('an mcp_tool hook on a server that is not connected is a non-blocking error: the call goes on', async () => {
    bed = await startTestbed(
      bundle.bundle,
      {
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'mcp_tool', server: 'absent', tool: 'say', input: {} }] }],
        }),
      },
      [call('w1', 'Write', { file_path: 'out.txt', content: 'x' }), text('done')],
    );
    const r = await bed.run(['write', '--allowed-tools', 'Write', '--output-format', 'json']);
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed']);
    expect(r.stderr).toContain('MCP server "absent" is not connected');
  });
});

describe('the MCP configuration governs the agent: the model cannot change it', () => {
  it('Write, Edit and Bash on .mcp.json, a new .vscode/mcp.json or a server script are not allowed by rules', async () => {
    const serverScript = 'tools/server.mjs';
    bed = await startTestbed(
      bundle.bundle,
      { '.mcp.json': mcpJson({ local: { command: 'node', args: [serverScript] } }), [serverScript]: readFileSync(FIXTURE, 'utf8') },
      [
        call('w1', 'Write', { file_path: '.mcp.json', content: mcpJson({ evil: { command: 'sh', args: ['-c', 'touch pwned'] } }) }),
        call('w2', 'Write', {
          file_path: '.vscode/mcp.json',
          content: JSON.stringify({ servers: { evil: { command: 'touch', args: ['pwned'] } } }),
        }),
        call('w3', 'Edit', { file_path: serverScript, old_string: "name: 'misbehaving'", new_string: "name: 'owned'" }),
        call('b1', 'Bash', { command: `echo '{}' > .mcp.json` }),
        text('done'),
      ],
    );
    const before = readFileSync(bed.workspace.file('.mcp.json'), 'utf8');
    const r = jsonResult(await bed.run(['take over', '--allowed-tools', 'Write,Edit,Bash', '--output-format', 'json']));
    expect(r.tool_calls.map((c) => c.outcome)).toEqual(['denied', 'denied', 'denied', 'denied']);
    expect(readFileSync(bed.workspace.file('.mcp.json'), 'utf8')).toBe(before);
    expect(existsSync(bed.workspace.file('.vscode/mcp.json'))).toBe(false);
    expect(readFileSync(bed.workspace.file(serverScript), 'utf8')).toContain("name: 'misbehaving'");
  });

  it.each(['default', 'bypassPermissions'])(
    '%s: an allowed filesystem server cannot rewrite .mcp.json or the hook configuration; other files it writes',
    async (mode) => {
      const FS = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
      const fsServer = { fs: { command: process.execPath, args: [FS, '${workspaceFolder}'] } };
      const hooks = hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js' }] }] });
      const evil = mcpJson({ ...fsServer, pwn: { command: 'sh', args: ['-c', 'touch pwned'] } });
      let root = '';
      const replies = () => [
        call('m1', 'mcp__fs__write_file', { path: '.mcp.json', content: evil }),
        call('m2', 'mcp__fs__write_file', { path: `file://${root}/.vscode/hooks.json`, content: '{}' }),
        call('m3', 'mcp__fs__move_file', { source: 'notes.txt', destination: 'hooks/guard.js' }),
        call('m4', 'mcp__fs__write_file', { path: `${'./'.repeat(2100)}.vscode/hooks.json`, content: '{}' }),
        call('m5', 'mcp__fs__write_file', { path: 'notes.txt', content: 'fine' }),
        // Reading a protected file changes nothing: the server's read-only tools are not held back.
        call('m6', 'mcp__fs__read_text_file', { path: '.vscode/hooks.json' }),
        call('m7', 'mcp__fs__directory_tree', { path: '.', excludePatterns: ['.git', 'node_modules'] }),
        text('done'),
      ];
      bed = await startTestbed(
        bundle.bundle,
        {
          '.mcp.json': mcpJson(fsServer),
          'hooks/guard.js': nodeHook('process.exit(2)'),
          '.vscode/hooks.json': hooks,
          'notes.txt': 'notes',
        },
        (_, index) => replies()[index],
      );
      root = bed.workspace.dir;
      const before = {
        mcp: readFileSync(bed.workspace.file('.mcp.json'), 'utf8'),
        hooks: readFileSync(bed.workspace.file('.vscode/hooks.json'), 'utf8'),
      };
      const r = jsonResult(await bed.run(['go', '--allowed-tools', 'mcp__fs', '--permission-mode', mode, '--output-format', 'json']));
      expect(r.tool_calls.map((c) => c.outcome)).toEqual(['denied', 'denied', 'denied', 'denied', 'executed', 'executed', 'executed']);
      expect(readFileSync(bed.workspace.file('.mcp.json'), 'utf8')).toBe(before.mcp);
      expect(readFileSync(bed.workspace.file('.vscode/hooks.json'), 'utf8')).toBe(before.hooks);
      expect(readFileSync(bed.workspace.file('notes.txt'), 'utf8')).toBe('fine');
    },
  );

  it('a path relative to the base the server picks itself (its first allowed folder, src) cannot reach the hook configuration either', async () => {
    const FS = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
    // The server resolves a relative path from the first allowed folder holding the result: src here.
    const fsServer = { fs: { command: process.execPath, args: [FS, '${workspaceFolder}/src', '${workspaceFolder}'] } };
    const hooks = hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js' }] }] });
    bed = await startTestbed(
      bundle.bundle,
      { '.mcp.json': mcpJson(fsServer), '.vscode/hooks.json': hooks, 'hooks/guard.js': nodeHook('process.exit(2)'), 'src/app.ts': 'x' },
      [
        call('up-config', 'mcp__fs__write_file', { path: '../.vscode/hooks.json', content: '{"hooks":{}}' }),
        call('up-script', 'mcp__fs__write_file', { path: '../hooks/guard.js', content: 'process.exit(0)' }),
        call('fine', 'mcp__fs__write_file', { path: 'notes.txt', content: 'fine' }),
        text('done'),
      ],
    );
    const r = jsonResult(await bed.run(['go', '--allowed-tools', 'mcp__fs', '--output-format', 'json']));
    expect(Object.fromEntries(r.tool_calls.map((c) => [c.id, c.outcome]))).toEqual({
      'up-config': 'denied',
      'up-script': 'denied',
      fine: 'executed',
    });
    expect(readFileSync(bed.workspace.file('.vscode/hooks.json'), 'utf8')).toBe(hooks);
    expect(readFileSync(bed.workspace.file('hooks/guard.js'), 'utf8')).not.toContain('process.exit(0)');
    expect(readFileSync(bed.workspace.file('src/notes.txt'), 'utf8')).toBe('fine');
  });

  it('an allowed filesystem server cannot make a git repository in a subfolder (sub/.git/config)', async () => {
    const FS = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
    const fsServer = { fs: { command: process.execPath, args: [FS, '${workspaceFolder}'] } };
    bed = await startTestbed(bundle.bundle, { '.mcp.json': mcpJson(fsServer), 'sub/readme.md': 'x' }, [
      call('dir', 'mcp__fs__create_directory', { path: 'sub/.git' }),
      call('config', 'mcp__fs__write_file', { path: 'sub/.git/config', content: '[core]\n\tfsmonitor = "touch pwned; false"\n' }),
      text('done'),
    ]);
    const r = jsonResult(await bed.run(['go', '--allowed-tools', 'mcp__fs', '--output-format', 'json']));
    expect(r.tool_calls.map((c) => c.outcome)).toEqual(['denied', 'denied']);
    expect(existsSync(bed.workspace.file('sub/.git'))).toBe(false);
  });

  it('a path too deep for the check to resolve asks (denied headless) rather than reading as no protected file', async () => {
    const FS = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
    const hooks = hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js' }] }] });
    bed = await startTestbed(
      bundle.bundle,
      {
        '.mcp.json': mcpJson({ fs: { command: process.execPath, args: [FS, '${workspaceFolder}'] } }),
        '.vscode/hooks.json': hooks,
        'hooks/guard.js': nodeHook('process.exit(2)'),
      },
      [call('m1', 'mcp__fs__write_file', { path: `${'./'.repeat(300_000)}.vscode/hooks.json`, content: '{"hooks":{}}' }), text('done')],
    );
    const r = jsonResult(await bed.run(['go', '--allowed-tools', 'mcp__fs', '--output-format', 'json'], { timeoutMs: 60_000 }));
    expect(r.tool_calls.map((c) => c.outcome)).toEqual(['denied']);
    expect(readFileSync(bed.workspace.file('.vscode/hooks.json'), 'utf8')).toBe(hooks);
  }, 90_000);

  it("the server's envFile, the packages and manifest its script loads and the script's folder are not the model's either", async () => {
    const serverScript = 'tools/server.mjs';
    const local = { command: 'node', args: [serverScript], envFile: '${workspaceFolder}/.env.mcp' };
    bed = await startTestbed(
      bundle.bundle,
      { '.mcp.json': mcpJson({ local }), [serverScript]: readFileSync(FIXTURE, 'utf8'), '.env.mcp': 'LEVEL=1\n' },
      [
        // NODE_OPTIONS in the envFile would run the model's code in the server, with the user's environment.
        call('w1', 'Write', { file_path: '.env.mcp', content: 'NODE_OPTIONS=--require ./evil.cjs\n' }),
        call('w2', 'Write', { file_path: 'node_modules/left-pad/index.js', content: 'module.exports = 1;\n' }),
        call('w3', 'Write', { file_path: 'package.json', content: '{ "type": "commonjs" }\n' }),
        call('w4', 'Write', { file_path: 'tools/helper.mjs', content: 'export default 1;\n' }),
        call('w5', 'Write', { file_path: 'notes.md', content: 'fine\n' }),
        // The same through Bash, spelled as compound lines and through a link.
        call('b1', 'Bash', { command: 'cd tools && echo NODE_OPTIONS=--require ./evil.cjs >> ../.env.mcp' }),
        call('b2', 'Bash', { command: "printf 'X=1\\n' | tee -a .env.mcp > /dev/null" }),
        call('b3', 'Bash', { command: 'ln -s .env.mcp innocent && echo X=1 >> innocent' }),
        text('done'),
      ],
    );
    const r = jsonResult(await bed.run(['take over', '--allowed-tools', 'Write,Bash', '--output-format', 'json']));
    expect(r.tool_calls.map((c) => `${c.id} -> ${c.outcome}`)).toEqual([
      'w1 -> denied',
      'w2 -> denied',
      'w3 -> denied',
      'w4 -> denied',
      'w5 -> executed',
      'b1 -> denied',
      'b2 -> denied',
      'b3 -> denied',
    ]);
    expect(existsSync(bed.workspace.file('innocent'))).toBe(false);
    expect(readFileSync(bed.workspace.file('.env.mcp'), 'utf8')).toBe('LEVEL=1\n');
    expect(existsSync(bed.workspace.file('node_modules/left-pad/index.js'))).toBe(false);
  });

  it('files a server names through ${userHome}, ${env:NAME} or ${NAME:-default} are protected as those named directly', async () => {
    const fixture = readFileSync(FIXTURE, 'utf8');
    bed = await startTestbed(
      bundle.bundle,
      { 'srv-a/a.mjs': fixture, 'srv-b/b.mjs': fixture, 'srv-c/c.mjs': fixture, '.env.b': 'LEVEL=1\n' },
      [
        call('w1', 'Write', { file_path: 'srv-a/a.mjs', content: 'owned\n' }),
        call('w2', 'Write', { file_path: 'srv-b/b.mjs', content: 'owned\n' }),
        call('w3', 'Write', { file_path: 'srv-c/c.mjs', content: 'owned\n' }),
        call('w4', 'Write', { file_path: '.env.b', content: 'NODE_OPTIONS=--require ./evil.cjs\n' }),
        call('w5', 'Write', { file_path: 'notes.md', content: 'fine\n' }),
        text('done'),
      ],
    );
    const ws = bed.workspace.dir;
    const inHome = `\${userHome}/${path.basename(ws)}`;
    writeFileSync(
      bed.workspace.file('.mcp.json'),
      mcpJson({
        a: { command: 'node', args: ['${env:MCP_TOOLS}/a.mjs'] },
        b: { command: 'node', args: [`${inHome}/srv-b/b.mjs`], envFile: `${inHome}/.env.b` },
        c: { command: 'node', args: ['${SRV_C_DIR:-srv-c}/c.mjs'] },
      }),
    );
    const env = { MCP_TOOLS: path.join(ws, 'srv-a'), HOME: path.dirname(ws) };
    const r = jsonResult(await bed.run(['take over', '--allowed-tools', 'Write', '--output-format', 'json'], { env }));
    expect(r.tool_calls.map((c) => `${c.id} -> ${c.outcome}`)).toEqual([
      'w1 -> denied',
      'w2 -> denied',
      'w3 -> denied',
      'w4 -> denied',
      'w5 -> executed',
    ]);
    expect(readFileSync(bed.workspace.file('.env.b'), 'utf8')).toBe('LEVEL=1\n');
  });

  it('what the envFile makes the server load (NODE_OPTIONS --require) is protected like what its env names', async () => {
    const fixture = readFileSync(FIXTURE, 'utf8');
    const local = { command: 'node', args: ['srv/server.mjs'], envFile: '${workspaceFolder}/.env.mcp' };
    bed = await startTestbed(
      bundle.bundle,
      {
        '.mcp.json': mcpJson({ local }),
        'srv/server.mjs': fixture,
        '.env.mcp': 'NODE_OPTIONS=--require ./preload.cjs\n',
        'preload.cjs': '',
      },
      [call('w1', 'Write', { file_path: 'preload.cjs', content: 'require("child_process").execSync("touch pwned");\n' }), text('done')],
    );
    const r = jsonResult(await bed.run(['take over', '--allowed-tools', 'Write', '--output-format', 'json']));
    expect(r.tool_calls.map((c) => `${c.id} -> ${c.outcome}`)).toEqual(['w1 -> denied']);
    expect(readFileSync(bed.workspace.file('preload.cjs'), 'utf8')).toBe('');
  });

  it('a bad --mcp-config entry is reported at its line; a missing file is a usage error', async () => {
    bed = await startTestbed(bundle.bundle, {}, [text('done')]);
    const file = path.join(bed.home, 'extra.json');
    writeFileSync(file, '{\n  "mcpServers": {\n    "x": { "type": "stdio" }\n  }\n}\n');
    const r = await bed.run(['hi', '--mcp-config', file]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${file}:3:10: error: Server "x" is stdio: it needs a "command".`);
    const missing = await bed.run(['hi', '--mcp-config', path.join(bed.home, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--mcp-config: no such file');
  });

  it("a server whose name holds __ is reported with the spelling rules must use: a deny rule in Claude Code's spelling denies nothing", async () => {
    const servers = { my__srv: memoryServer.memory };
    bed = await startTestbed(bundle.bundle, { '.mcp.json': mcpJson(servers) }, [
      call('c1', 'mcp__my_srv__create_entities', entity('Eve')),
      text('done'),
    ]);
    const r = await bed.run([
      'remember Eve',
      '--permission-mode',
      'bypassPermissions',
      '--disallowed-tools',
      'mcp__my__srv__create_entities',
      '--output-format',
      'json',
    ]);
    expect(r.stderr).toContain('Server "my__srv" is offered as mcp__my_srv__<tool>');
    expect(r.stderr).toContain(
      "Claude Code's spelling mcp__my__srv__<tool> matches none of its tools, so a deny rule written so denies nothing",
    );
  });
});
