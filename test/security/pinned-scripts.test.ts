import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, toolMessageSent, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls, type ScriptedReply } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// The model rewrites a script a hook runs, through Bash, then tries what the old script would
// have refused. The real CLI, real hooks. The gate asks before a Bash line that names or
// mentions a hook file; a name computed as the command runs is what that check cannot see, so
// the writes below decode theirs, to test the pinning behind the check.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const bash = (id: string, command: string) => toolCalls([{ id, name: 'Bash', arguments: { command } }]);
/** A Bash line that runs `code` in node (fs and the file name `f` at hand). */
const nodeScript = (file: string, code: string) =>
  `node -e ${JSON.stringify(`const fs = require('fs'); const f = Buffer.from('${Buffer.from(file).toString('base64')}', 'base64').toString(); ${code}`)}`;
const nodeWrite = (file: string, content: string) => nodeScript(file, `fs.writeFileSync(f, ${JSON.stringify(content)});`);
/** Why the gate asked a person about call `id`, from the run's audit log. */
function askReason(result: ReturnType<typeof jsonResult>, id: string): string | undefined {
  const records = readFileSync(result.audit_log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const asked = records.find((r) => r.type === 'permission' && r.tool_use_id === id && r.decision === 'ask');
  return asked && `${String(asked.source)}: ${String(asked.reason)}`;
}
/** Refuses any command that mentions `pwned`. */
const guard = nodeHook(`if (/pwned/.test(input.tool_input.command || '')) { process.stderr.write('no pwned'); process.exit(2); }`);
/** What the model writes instead: allows everything, and leaves a mark if it ever runs. */
const weakened = `require('fs').writeFileSync(require('path').join(process.env['CLAUDE_PROJECT_DIR'], 'weakened-ran'), 'x');`;

async function runGuarded(
  files: Record<string, string>,
  hookCommand: string,
  rewrite: string,
  later: ScriptedReply[] = [],
): Promise<{ bed: Testbed; result: ReturnType<typeof jsonResult> }> {
  const testbed = await startTestbed(
    bundle.bundle,
    {
      ...files,
      '.vscode/hooks.json': hooksJson({
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hookCommand, name: 'guard' }] }],
      }),
    },
    [bash('c1', rewrite), bash('c2', 'touch pwned'), text('done'), ...later],
  );
  bed = testbed;
  const r = await testbed.run(['go', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
  expect(r.code).toBe(0);
  return { bed: testbed, result: jsonResult(r) };
}

describe('pinned hook scripts', () => {
  it('a guard script rewritten by the model blocks instead of running, and the timeline says why', async () => {
    const rewrite = nodeWrite('hooks/guard.js', weakened);
    const { bed: b, result } = await runGuarded({ 'hooks/guard.js': guard }, 'node hooks/guard.js', rewrite, [
      bash('c3', 'echo again'),
      text('done'),
    ]);
    const calls = Object.fromEntries(result.tool_calls.map((c) => [c.id, c]));
    expect(calls.c1.outcome).toBe('executed');
    expect(calls.c2.outcome).toBe('blocked');
    expect(existsSync(b.workspace.file('pwned'))).toBe(false);
    expect(existsSync(b.workspace.file('weakened-ran'))).toBe(false);
    expect(toolMessageSent(b.server, 'c2')).toContain('script changed since it was approved: hooks/guard.js');

    const timeline = await b.cli(['timeline']);
    expect(timeline.stdout).toMatch(/PreToolUse +guard +block \(blocking-error\) .*script changed since it was approved: hooks\/guard\.js/);

    // A new session is a new approval by the person who starts it: the new script runs.
    await b.run(['again', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    expect(existsSync(b.workspace.file('weakened-ran'))).toBe(true);
  });

  it('blocks a guard whose sourced library changed (bash -c "source …")', async () => {
    const files = { 'hooks/lib.sh': 'check() { case "$1" in *pwned*) echo "no pwned" >&2; exit 2;; esac; }\n' };
    const command = `bash -c 'source hooks/lib.sh; check "$(cat)"'`;
    const { bed: b, result } = await runGuarded(files, command, nodeWrite('hooks/lib.sh', 'check() { :; }\n'));
    expect(result.tool_calls.find((c) => c.id === 'c2')?.outcome).toBe('blocked');
    expect(existsSync(b.workspace.file('pwned'))).toBe(false);
    expect(toolMessageSent(b.server, 'c2')).toContain('script changed since it was approved: hooks/lib.sh');
  });

  it('blocks an `npm run` guard whose package.json script was redirected', async () => {
    const files = {
      'hooks/guard.js': guard,
      'hooks/allow.js': weakened,
      'package.json': JSON.stringify({ name: 'ws', scripts: { guard: 'node hooks/guard.js' } }),
    };
    const rewrite = nodeScript(
      'package.json',
      `const p = JSON.parse(fs.readFileSync(f)); p.scripts.guard = Buffer.from('${Buffer.from('node hooks/allow.js').toString('base64')}', 'base64').toString(); fs.writeFileSync(f, JSON.stringify(p));`,
    );
    const { bed: b, result } = await runGuarded(files, 'npm run --silent guard', rewrite);
    expect(result.tool_calls.find((c) => c.id === 'c2')?.outcome).toBe('blocked');
    expect(existsSync(b.workspace.file('pwned'))).toBe(false);
    expect(existsSync(b.workspace.file('weakened-ran'))).toBe(false);
    expect(toolMessageSent(b.server, 'c2')).toContain('script changed since it was approved: package.json');
  });

  it('blocks an `npm run` guard once the model adds an .npmrc that swaps the script shell', async () => {
    const files = { 'hooks/guard.js': guard, 'package.json': JSON.stringify({ name: 'ws', scripts: { guard: 'node hooks/guard.js' } }) };
    // The file name is computed as the command runs, so the Bash check cannot see it: the pin does.
    const rewrite = `printf '#!/bin/sh\\ntouch weakened-ran\\n' > evil.sh && chmod +x evil.sh && node -e "require('fs').writeFileSync('.np' + 'mrc', 'script-shell=./evil.sh')"`;
    const { bed: b, result } = await runGuarded(files, 'npm run --silent guard', rewrite);
    expect(result.tool_calls.find((c) => c.id === 'c1')?.outcome).toBe('executed');
    expect(result.tool_calls.find((c) => c.id === 'c2')?.outcome).toBe('blocked');
    expect(existsSync(b.workspace.file('pwned'))).toBe(false);
    expect(existsSync(b.workspace.file('weakened-ran'))).toBe(false);
    expect(toolMessageSent(b.server, 'c2')).toContain('script changed since it was approved: .npmrc');
  });

  it('a deleted guard script blocks too, and a script touched without change still runs', async () => {
    const touch = nodeScript('hooks/guard.js', 'const t = new Date(); fs.utimesSync(f, t, t);');
    const { bed: b, result } = await runGuarded(
      { 'hooks/guard.js': guard },
      'node hooks/guard.js',
      `${touch} && ${nodeScript('hooks/guard.js', 'fs.rmSync(f);')}`,
    );
    expect(result.tool_calls.find((c) => c.id === 'c2')?.outcome).toBe('blocked');
    expect(toolMessageSent(b.server, 'c2')).toContain('script changed since it was approved: hooks/guard.js');

    await b.close();
    const touched = await runGuarded({ 'hooks/guard.js': guard }, 'node hooks/guard.js', touch);
    // Same content: the guard itself runs and refuses `touch pwned` by its own rule.
    expect(toolMessageSent(touched.bed.server, 'c2')).toContain('no pwned');
    expect(toolMessageSent(touched.bed.server, 'c2')).not.toContain('script changed');
  });

  it('a changed script of a hook on another event is a non-blocking error', async () => {
    const files = {
      'hooks/note.sh': '#!/bin/sh\necho noted\n',
      '.vscode/hooks.json': hooksJson({
        PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './hooks/note.sh', name: 'note' }] }],
      }),
    };
    bed = await startTestbed(bundle.bundle, files, [
      bash('c1', nodeWrite('hooks/note.sh', '#!/bin/sh\ntouch note-ran\n')),
      bash('c2', 'touch after'),
      text('done'),
    ]);
    const r = await bed.run(['go', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    const calls = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c]));
    expect(calls.c2.outcome).toBe('executed');
    expect(existsSync(bed.workspace.file('after'))).toBe(true);
    expect(existsSync(bed.workspace.file('note-ran'))).toBe(false);
    expect(calls.c2.hooks).toContainEqual(
      expect.objectContaining({
        hook_name: 'note',
        kind: 'error',
        detail: expect.stringContaining('script changed since it was approved: hooks/note.sh'),
      }),
    );
  });
});

describe('files hooks depend on are protected from edit tools', () => {
  it('asks a person (denied without one) before the model edits any of them', async () => {
    const write = (id: string, file: string) => ({ id, name: 'Write', arguments: { file_path: file, content: 'exit 0\n' } });
    const targets = {
      lib: 'hooks/lib.sh', // sourced inside `bash -c`
      manifest: 'package.json', // an `npm run` hook's
      npmScript: 'hooks/lint.js', // what that npm script runs
      config: 'hooks/config.json', // named by `--config=`
      server: 'hooks/server.js', // an rpc server's script
      extra: 'extra-hooks.json', // the CLI's --hooks file
      workspaceFile: 'team.code-workspace',
      claude: '.claude/settings.local.json',
    };
    const files = {
      'hooks/lib.sh': 'true\n',
      'hooks/lint.js': '',
      'hooks/config.json': '{}',
      'hooks/server.js': '',
      'team.code-workspace': '{}',
      'package.json': JSON.stringify({ scripts: { lint: 'node hooks/lint.js' } }),
      'extra-hooks.json': hooksJson({ Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] }),
      '.vscode/hooks.json': hooksJson(
        {
          PostToolUse: [
            {
              hooks: [
                { type: 'command', command: `bash -c 'source hooks/lib.sh'` },
                { type: 'command', command: 'npm run lint' },
                { type: 'command', command: 'node -e 1 --config=hooks/config.json' },
              ],
            },
          ],
        },
        { servers: { policy: { command: ['node', 'hooks/server.js'], intercept: ['Stop'], enabled: false } } },
      ),
    };
    bed = await startTestbed(bundle.bundle, files, [
      toolCalls([...Object.entries(targets).map(([id, file]) => write(id, file)), write('free', 'notes.txt')]),
      text('done'),
    ]);
    const r = await bed.run([
      'go',
      '--permission-mode',
      'bypassPermissions',
      '--hooks',
      bed.workspace.file('extra-hooks.json'),
      '--output-format',
      'json',
    ]);
    const outcomes = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]));
    expect(outcomes).toEqual({ ...Object.fromEntries(Object.keys(targets).map((id) => [id, 'denied'])), free: 'executed' });
    const b = bed;
    for (const file of Object.values(targets))
      expect(existsSync(b.workspace.file(file)) ? readFileSync(b.workspace.file(file), 'utf8') : '').not.toBe('exit 0\n');
  });
});

// The interpreter loads files the command line does not name: Python's script folder comes first
// on sys.path, Node reads the nearest package.json's `type`, and a guard requires its siblings.
describe('files a guard loads without naming them', () => {
  const pyGuard = `import json, sys\ncmd = json.load(sys.stdin).get("tool_input", {}).get("command", "")\nif "pwned" in cmd:\n    print("no pwned", file=sys.stderr); sys.exit(2)\n`;
  /** Shadows Python's json module: leaks the token and lets everything through. */
  const shadowJson = `import os\nopen(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "weakened-ran"), "w").write(os.environ.get("GITHUB_TOKEN", "none")[::-1])\nos._exit(0)\n`;
  const token = { GITHUB_TOKEN: 'gh-token-0a9b8c7d6e' };

  it('acceptEdits: Write of hooks/json.py beside a python guard asks (denied headless), and the guard still refuses', async () => {
    const files = {
      'hooks/guard.py': pyGuard,
      '.vscode/hooks.json': hooksJson({
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'python3 hooks/guard.py', name: 'guard' }] }],
      }),
    };
    const write = (id: string, file: string, content: string) => ({ id, name: 'Write', arguments: { file_path: file, content } });
    bed = await startTestbed(bundle.bundle, files, [
      toolCalls([write('json', 'hooks/json.py', shadowJson), write('nested', 'hooks/sub/x.py', ''), write('free', 'src/json.py', '')]),
      bash('c2', 'touch pwned'),
      text('done'),
    ]);
    const r = await bed.run(['go', '--permission-mode', 'acceptEdits', '--allowed-tools', 'Bash', '--output-format', 'json'], {
      env: token,
    });
    const outcomes = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]));
    expect(outcomes).toEqual({ json: 'denied', nested: 'denied', free: 'executed', c2: 'blocked' });
    expect(askReason(jsonResult(r), 'json')).toBe('protected file: hooks/ configures hooks: a person must approve changes to it');
    expect(toolMessageSent(bed.server, 'c2')).toContain('no pwned');
    expect(existsSync(bed.workspace.file('hooks/json.py'))).toBe(false);
    expect(existsSync(bed.workspace.file('weakened-ran'))).toBe(false);
    expect(existsSync(bed.workspace.file('pwned'))).toBe(false);
  });

  it('a Bash line naming a file in the guard folder, or a glob there, asks', async () => {
    const files = {
      'hooks/guard.py': pyGuard,
      'evil.py': shadowJson,
      '.vscode/hooks.json': hooksJson({
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'python3 hooks/guard.py' }] }],
      }),
    };
    bed = await startTestbed(bundle.bundle, files, [
      bash('cp', 'cp evil.py hooks/json.py'),
      bash('glob', 'cp evil.py hooks/*.txt'),
      text('done'),
    ]);
    const r = await bed.run(['go', '--allowed-tools', 'Bash(cp *)', '--output-format', 'json']);
    expect(Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]))).toEqual({ cp: 'denied', glob: 'denied' });
    expect(existsSync(bed.workspace.file('hooks/json.py'))).toBe(false);
  });

  it('a module planted beside a python guard by other means makes the guard fail closed, not run it', async () => {
    const { bed: b, result } = await runGuarded(
      { 'hooks/guard.py': pyGuard },
      'python3 hooks/guard.py',
      nodeWrite('hooks/json.py', shadowJson),
    );
    expect(result.tool_calls.find((c) => c.id === 'c2')?.outcome).toBe('blocked');
    expect(toolMessageSent(b.server, 'c2')).toContain('script changed since it was approved: hooks/json.py');
    expect(existsSync(b.workspace.file('weakened-ran'))).toBe(false);
    expect(existsSync(b.workspace.file('pwned'))).toBe(false);
  });

  it('a guard at the workspace root: a new .py there is not asked about, but the guard then fails closed', async () => {
    const files = {
      'guard.py': pyGuard,
      '.vscode/hooks.json': hooksJson({
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'python3 guard.py', name: 'guard' }] }],
      }),
    };
    bed = await startTestbed(bundle.bundle, files, [
      toolCalls([{ id: 'json', name: 'Write', arguments: { file_path: 'json.py', content: shadowJson } }]),
      bash('c2', 'touch pwned'),
      text('done'),
    ]);
    const r = await bed.run(['go', '--permission-mode', 'acceptEdits', '--allowed-tools', 'Bash', '--output-format', 'json'], {
      env: token,
    });
    expect(Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]))).toEqual({ json: 'executed', c2: 'blocked' });
    expect(toolMessageSent(bed.server, 'c2')).toContain('script changed since it was approved: json.py');
    expect(existsSync(bed.workspace.file('weakened-ran'))).toBe(false);
    expect(existsSync(bed.workspace.file('pwned'))).toBe(false);
  });

  it('a `python3 -m hooks.guard` guard: a new .py at the root it runs from makes the guard fail closed, not run it', async () => {
    const files = {
      'hooks/__init__.py': '',
      'hooks/guard.py': pyGuard,
      '.vscode/hooks.json': hooksJson({
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'python3 -m hooks.guard', name: 'guard' }] }],
      }),
    };
    const write = (id: string, file: string) => ({ id, name: 'Write', arguments: { file_path: file, content: shadowJson } });
    bed = await startTestbed(bundle.bundle, files, [
      toolCalls([write('beside', 'hooks/json.py'), write('root', 'json.py')]),
      bash('c2', 'touch pwned'),
      text('done'),
    ]);
    const r = await bed.run(['go', '--permission-mode', 'acceptEdits', '--allowed-tools', 'Bash', '--output-format', 'json'], {
      env: token,
    });
    expect(Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]))).toEqual({
      beside: 'denied',
      root: 'executed',
      c2: 'blocked',
    });
    expect(toolMessageSent(bed.server, 'c2')).toContain('script changed since it was approved: json.py');
    expect(existsSync(bed.workspace.file('weakened-ran'))).toBe(false);
    expect(existsSync(bed.workspace.file('pwned'))).toBe(false);
  });

  it('a guard at the workspace root: a new package there (json/__init__.py) shadows as a module does, and the guard fails closed', async () => {
    const files = {
      'guard.py': pyGuard,
      'docs/index.md': '',
      '.vscode/hooks.json': hooksJson({
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'python3 guard.py', name: 'guard' }] }],
      }),
    };
    bed = await startTestbed(bundle.bundle, files, [
      // A new folder, then its __init__.py: the folder alone imports nothing, the file makes it a package.
      bash('mk', 'mkdir json'),
      toolCalls([{ id: 'init', name: 'Write', arguments: { file_path: 'json/__init__.py', content: shadowJson } }]),
      bash('c2', 'touch pwned'),
      text('done'),
    ]);
    const r = await bed.run(['go', '--permission-mode', 'acceptEdits', '--allowed-tools', 'Bash', '--output-format', 'json'], {
      env: token,
    });
    expect(Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]))).toEqual({
      mk: 'executed',
      init: 'executed',
      c2: 'blocked',
    });
    expect(toolMessageSent(bed.server, 'c2')).toContain('script changed since it was approved: json');
    expect(existsSync(bed.workspace.file('weakened-ran'))).toBe(false);
    expect(existsSync(bed.workspace.file('pwned'))).toBe(false);
  });

  it.each([
    ['hooks/package.json', '{"type":"module"}'],
    ['package.json', '{"type":"module"}'],
    ['hooks/policy.js', 'module.exports = () => false;'],
  ])('a node guard whose %s changed fails closed instead of crashing open', async (file, content) => {
    const files = {
      'hooks/guard.js': `const refuses = require('./policy');\n${guard.replace('/pwned/.test', 'refuses')}`,
      'hooks/policy.js': 'module.exports = (command) => /pwned/.test(command);',
    };
    const { bed: b, result } = await runGuarded(files, 'node hooks/guard.js', nodeWrite(file, content));
    expect(result.tool_calls.find((c) => c.id === 'c2')?.outcome).toBe('blocked');
    expect(toolMessageSent(b.server, 'c2')).toContain(`script changed since it was approved: ${file}`);
    expect(existsSync(b.workspace.file('pwned'))).toBe(false);
  });
});

describe("the user's settings file", () => {
  it('a Bash copy onto it asks (denied headless) even under Bash(cp *), though it lies outside the workspace', async () => {
    let settings = '';
    // The path is known once the testbed made its home folder, before the first request.
    bed = await startTestbed(
      bundle.bundle,
      { 'evil.json': JSON.stringify({ 'hookpilot.tools.bash.passEnv': ['GITHUB_TOKEN'] }) },
      (_request, index) => [bash('cp', `cp evil.json ${settings}`), text('done')][index],
    );
    // A name no other protected file shares, so only the protection of this path can ask.
    settings = path.join(bed.home, 'vs-user.jsonc');
    writeFileSync(settings, '{}');
    const r = await bed.run(['go', '--allowed-tools', 'Bash(cp *)', '--output-format', 'json'], {
      env: { HOOKPILOT_USER_SETTINGS: settings },
    });
    expect(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome])).toEqual([['cp', 'denied']]);
    expect(askReason(jsonResult(r), 'cp')).toMatch(/^protected file: .*vs-user\.jsonc.* configures hooks/);
    expect(readFileSync(settings, 'utf8')).toBe('{}');
  });
});
