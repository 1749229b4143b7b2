import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, REPO_ROOT, useTestbed, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// The user's PATH names a folder of the workspace first (`$PWD/bin`, as direnv's PATH_add or a
// node_modules/.bin does). The model writes a program of the same name as one a guard hook,
// a server or AutoCommit's git runs from elsewhere on PATH, and then does what the real one
// would refuse. The real CLI, real hooks, real processes.

const testbed = useTestbed();

const bash = (id: string, command: string) => toolCalls([{ id, name: 'Bash', arguments: { command } }]);

/** An executable shell script at `file`. */
function script(file: string, body: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
}

/** PATH with the workspace's bin/ first, then a tools folder outside it, then the machine's. */
function plantablePath(testbed: Testbed): { PATH: string; tools: string } {
  const tools = path.join(testbed.home, 'tools');
  mkdirSync(tools, { recursive: true });
  return { PATH: [path.join(testbed.workspace.dir, 'bin'), tools, process.env.PATH].join(path.delimiter), tools };
}

/** The planting line: `bin/NAME` in the workspace, a script that prints `output`, made executable. */
const plant = (name: string, output: string) =>
  `mkdir -p bin && printf '#!/bin/sh\\n${output}\\nexit 0\\n' > bin/${name} && chmod +x bin/${name}`;

describe('a program the model writes into a PATH folder of the workspace', () => {
  it("does not stand in for the guard a PreToolUse hook runs by name: the user's guard still blocks", async () => {
    const bed = await testbed(
      {
        '.vscode/hooks.json': hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'rm-guard' }] }] }),
        'keep.txt': 'precious\n',
      },
      [bash('plant', plant('rm-guard', 'echo planted-guard-ran >> planted.log')), bash('attack', 'rm keep.txt'), text('done')],
    );
    const { PATH, tools } = plantablePath(bed);
    // The user's guard: refuses any command that removes a file.
    script(path.join(tools, 'rm-guard'), `if grep -q '"command":"rm '; then echo 'no rm here' >&2; exit 2; fi\nexit 0`);
    const r = await bed.run(['clean up', '--permission-mode', 'bypassPermissions', '--output-format', 'json'], { env: { PATH } });
    const calls = jsonResult(r).tool_calls;
    expect(calls.map((c) => `${c.id} -> ${c.outcome}`)).toEqual(['plant -> executed', 'attack -> blocked']);
    expect(existsSync(bed.workspace.file('bin/rm-guard'))).toBe(true);
    expect(existsSync(bed.workspace.file('planted.log'))).toBe(false);
    expect(readFileSync(bed.workspace.file('keep.txt'), 'utf8')).toBe('precious\n');
    expect(readFileSync(jsonResult(r).audit_log, 'utf8')).toContain('no rm here');
  });

  it('is still found by a hook when nothing outside the workspace has that name: a project tool keeps working', async () => {
    const hooks = hooksJson({ PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'project-lint' }] }] });
    const bed = await testbed({ '.vscode/hooks.json': hooks }, [bash('tool', 'true'), text('done')]);
    const { PATH } = plantablePath(bed);
    script(bed.workspace.file('bin/project-lint'), 'echo linted >> "$CLAUDE_PROJECT_DIR/lint.log"');
    const r = await bed.run(['lint', '--permission-mode', 'bypassPermissions', '--output-format', 'json'], { env: { PATH } });
    expect(r.code).toBe(0);
    expect(readFileSync(bed.workspace.file('lint.log'), 'utf8')).toBe('linted\n');
  });

  it("leaves the model's own shell the user's PATH: an activated virtualenv in the workspace stays first", async () => {
    const bed = await testbed({ 'README.md': 'hi\n' }, [bash('which', 'command -v python3'), text('done')]);
    const venvBin = bed.workspace.file('.venv/bin');
    script(path.join(venvBin, 'python3'), 'echo venv-python');
    const r = await bed.run(['which python', '--permission-mode', 'bypassPermissions', '--output-format', 'json'], {
      env: { PATH: [venvBin, process.env.PATH].join(path.delimiter) },
    });
    expect(jsonResult(r).tool_calls[0].output.trim()).toBe(path.join(venvBin, 'python3'));
  });

  it("is not run by AutoCommit's git: a filter program the user's git config names comes from outside the workspace or not at all", async () => {
    const bed = await testbed(
      {
        'README.md': 'hi\n',
        // The user's repository runs its text files through a filter, as git lfs does for its files.
        '.gitattributes': '*.txt filter=hp\n',
        '.vscode/hooks.json': JSON.stringify({ hooks: {}, builtins: { AutoCommit: true } }),
      },
      [
        bash('plant', plant('hp-filter', 'cat; echo planted >> "$HOME/planted.log"')),
        toolCalls([{ id: 'write', name: 'Write', arguments: { file_path: 'notes.txt', content: 'new\n' } }]),
        text('done'),
      ],
    );
    const git = (...args: string[]) => execFileSync('git', args, { cwd: bed.workspace.dir, env: { ...bed.env, GIT_CONFIG_NOSYSTEM: '1' } });
    git('init', '-q');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'initial');
    // The user's own git configuration: a clean filter run by name, as `git lfs install` writes one.
    writeFileSync(
      path.join(bed.home, '.gitconfig'),
      '[user]\n\tname = t\n\temail = t@example.invalid\n[filter "hp"]\n\tclean = hp-filter\n',
    );
    const { PATH } = plantablePath(bed);
    const r = await bed.run(['take notes', '--permission-mode', 'bypassPermissions', '--output-format', 'json'], { env: { PATH } });
    expect(jsonResult(r).tool_calls.map((c) => `${c.id} -> ${c.outcome}`)).toEqual(['plant -> executed', 'write -> executed']);
    expect(existsSync(bed.workspace.file('bin/hp-filter'))).toBe(true);
    expect(existsSync(path.join(bed.home, 'planted.log'))).toBe(false);
  });

  it('does not replace the interpreter of an rpc policy server: `node` stays the machine’s node', async () => {
    const policy = path.join(REPO_ROOT, 'examples/rpc-policy-server/server.js');
    const hooks = hooksJson(
      { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'rpc', server: 'policy' }] }] },
      { servers: { policy: { command: ['node', policy], onFailure: 'block' } } },
    );
    const bed = await testbed({ '.vscode/hooks.json': hooks, 'data/keep.txt': 'precious\n' }, [
      bash('attack', 'rm -rf data'),
      text('done'),
    ]);
    const { PATH } = plantablePath(bed);
    // Left by an earlier session: a `node` that runs a server with no opinion instead.
    const quiet = path.join(REPO_ROOT, 'test/fixtures/cli/noop-rpc-server.js');
    script(
      bed.workspace.file('bin/node'),
      `echo planted-node-ran >> "$CLAUDE_PROJECT_DIR/planted.log"\nexec "${process.execPath}" "${quiet}"`,
    );
    const r = await bed.run(['clean up', '--permission-mode', 'bypassPermissions', '--output-format', 'json'], { env: { PATH } });
    expect(jsonResult(r).tool_calls.map((c) => `${c.id} -> ${c.outcome}`)).toEqual(['attack -> blocked']);
    expect(readFileSync(bed.workspace.file('data/keep.txt'), 'utf8')).toBe('precious\n');
    expect(existsSync(bed.workspace.file('planted.log'))).toBe(false);
  });

  it('does not start in place of an MCP server the configuration names', async () => {
    const memory = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
    const bed = await testbed({ '.mcp.json': JSON.stringify({ mcpServers: { memory: { command: 'hp-memory-server', args: [] } } }) }, [
      text('done'),
    ]);
    const { PATH, tools } = plantablePath(bed);
    script(path.join(tools, 'hp-memory-server'), `exec "${process.execPath}" "${memory}"`);
    script(bed.workspace.file('bin/hp-memory-server'), 'echo planted-server-ran >> "$PWD/planted.log"\nexit 1');
    const r = await bed.run(['remember', '--output-format', 'json'], { env: { PATH } });
    expect(r.code).toBe(0);
    const offered = (bed.server.requests[0].body.tools ?? []).map((t) => t.function?.name);
    expect(offered).toContain('mcp__memory__read_graph');
    expect(existsSync(bed.workspace.file('planted.log'))).toBe(false);
  });

  it("does not stand in for a hook's interpreter when a recorded session is replayed against today's hooks", async () => {
    const guard = nodeHook(`if (/rm -rf/.test(input.tool_input.command || '')) { process.stderr.write('no rm -rf'); process.exit(2); }`);
    const hooks = hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/guard.js' }] }] });
    const bed = await testbed({ 'keep.txt': 'precious\n', 'hooks/guard.js': guard, '.vscode/hooks.json': hooks }, [
      bash('attack', 'rm -rf keep.txt'),
      text('done'),
    ]);
    const { PATH } = plantablePath(bed);
    const recorded = await bed.run(['tidy up', '--allowed-tools', 'Bash', '--output-format', 'json'], { env: { PATH } });
    expect(jsonResult(recorded).tool_calls.map((c) => c.outcome)).toEqual(['blocked']);
    // Left in the workspace by a later session: a `node` that lets every call through.
    script(bed.workspace.file('bin/node'), 'exit 0');
    const replay = await bed.cli(['replay', jsonResult(recorded).session_id, '--allowed-tools', 'Bash'], { env: { PATH } });
    expect(replay.stdout).toContain('No decision differs from the recording.');
    expect(replay.code, replay.stderr).toBe(0);
  });
});
