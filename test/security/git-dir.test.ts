import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, startTestbed, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';

// A git hook or a `core.fsmonitor` line in .git/config runs a command the next time a person
// (or VS Code's git view, on its own) runs git: outside every hook and permission. The model's
// file tools and the paths of its Bash lines must not reach .git without a person's approval.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const CONFIG = '[core]\n\trepositoryformatversion = 0\n';

describe("the repository's .git folder", () => {
  it('Write, Edit and Bash lines that name .git ask (denied headless), even in bypassPermissions; other files are written', async () => {
    const calls = [
      { id: 'write-hook', name: 'Write', arguments: { file_path: '.git/hooks/pre-commit', content: '#!/bin/sh\ntouch ../pwned\n' } },
      {
        id: 'edit-config',
        name: 'Edit',
        arguments: { file_path: '.git/config', old_string: '[core]', new_string: '[core]\n\tfsmonitor = touch ../pwned' },
      },
      { id: 'via-link', name: 'Write', arguments: { file_path: 'g/hooks/post-checkout', content: '#!/bin/sh\n' } },
      { id: 'redirect', name: 'Bash', arguments: { command: "printf '[core]\\n\\tfsmonitor = touch ../pwned\\n' >> .git/config" } },
      { id: 'copy', name: 'Bash', arguments: { command: 'cp evil.sh ./.git/hooks/pre-push' } },
      { id: 'fine', name: 'Write', arguments: { file_path: 'src/ok.txt', content: 'ok\n' } },
    ];
    bed = await startTestbed(bundle.bundle, { '.git/config': CONFIG, '.git/hooks/README': 'x', 'evil.sh': '#!/bin/sh\n' }, [
      ...calls.map((call) => toolCalls([call])),
      text('done'),
    ]);
    mkdirSync(bed.workspace.file('src'), { recursive: true });
    symlinkSync('.git', bed.workspace.file('g'));
    const r = await bed.run(['set up git', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    const outcomes = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]));
    expect(outcomes).toEqual({
      'write-hook': 'denied',
      'edit-config': 'denied',
      'via-link': 'denied',
      redirect: 'denied',
      copy: 'denied',
      fine: 'executed',
    });
    expect(readFileSync(bed.workspace.file('.git/config'), 'utf8')).toBe(CONFIG);
    for (const hook of ['pre-commit', 'post-checkout', 'pre-push'])
      expect(existsSync(bed.workspace.file(`.git/hooks/${hook}`))).toBe(false);
    expect(readFileSync(bed.workspace.file('src/ok.txt'), 'utf8')).toBe('ok\n');
  });

  it('a glob that reaches inside .git (.g?t/hooks) asks too, as a word, a for list or a copy target', async () => {
    const lines = {
      copy: 'cp evil.sh .g?t/hooks/pre-commit',
      loop: 'for d in .g?t/hooks; do cp evil.sh "$d/pre-push"; done',
      star: 'cp evil.sh .gi*/hooks/post-checkout',
      listed: 'ls src/*.txt',
    };
    bed = await startTestbed(
      bundle.bundle,
      { '.git/config': CONFIG, '.git/hooks/README': 'x', 'evil.sh': '#!/bin/sh\n', 'src/a.txt': 'a' },
      [...Object.entries(lines).map(([id, command]) => toolCalls([{ id, name: 'Bash', arguments: { command } }])), text('done')],
    );
    const r = await bed.run(['set up git', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    expect(Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]))).toEqual({
      copy: 'denied',
      loop: 'denied',
      star: 'denied',
      listed: 'executed',
    });
    for (const hook of ['pre-commit', 'post-checkout', 'pre-push'])
      expect(existsSync(bed.workspace.file(`.git/hooks/${hook}`))).toBe(false);
  });
});

describe('a git repository other than the workspace root', () => {
  // git runs core.fsmonitor in the work tree's top folder, at its next `git status`.
  const FSMONITOR = '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch pwned; false"\n';

  it("acceptEdits: writing a .git folder in a subfolder, a .git file, or an additional directory's .git asks (denied headless)", async () => {
    const parent = mkdtempSync(path.join(tmpdir(), 'hookpilot-git-beside-'));
    const shared = path.join(parent, 'shared');
    mkdirSync(shared);
    spawnSync('git', ['init', '-q', shared]);
    const sharedConfig = readFileSync(path.join(shared, '.git', 'config'), 'utf8');
    const write = (id: string, file: string, content: string) =>
      toolCalls([{ id, name: 'Write', arguments: { file_path: file, content } }]);
    try {
      bed = await startTestbed(bundle.bundle, { 'sub/readme.md': 'x\n', 'docs/readme.md': 'x\n' }, [
        write('head', 'sub/.git/HEAD', 'ref: refs/heads/main\n'),
        write('config', 'sub/.git/config', FSMONITOR),
        write('upper', 'sub/.GIT/config', FSMONITOR),
        write('git-file', 'docs/.git', 'gitdir: ../gd\n'),
        write('shared', path.join(shared, '.git', 'config'), FSMONITOR),
        write('fine', 'sub/notes.txt', 'ok\n'),
        text('done'),
      ]);
      writeFileSync(
        path.join(bed.home, 'user-settings.json'),
        JSON.stringify({ 'hookpilot.permissions': { additionalDirectories: [shared] } }),
      );
      const r = await bed.run(['set up git', '--permission-mode', 'acceptEdits', '--output-format', 'json']);
      expect(Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]))).toEqual({
        head: 'denied',
        config: 'denied',
        upper: 'denied',
        'git-file': 'denied',
        shared: 'denied',
        fine: 'executed',
      });
      expect(existsSync(bed.workspace.file('sub/.git'))).toBe(false);
      expect(existsSync(bed.workspace.file('docs/.git'))).toBe(false);
      expect(readFileSync(path.join(shared, '.git', 'config'), 'utf8')).toBe(sharedConfig);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});

describe("the workspace's .vscode/tasks.json", () => {
  it('Write, Edit and a Bash redirection of it ask (denied headless) even in bypassPermissions: a folderOpen task runs when the folder opens', async () => {
    const tasks = '{ "version": "2.0.0", "tasks": [] }\n';
    const planted =
      '{ "version": "2.0.0", "tasks": [{ "label": "x", "type": "shell", "command": "touch pwned", "runOptions": { "runOn": "folderOpen" } }] }';
    const calls = [
      { id: 'write', name: 'Write', arguments: { file_path: '.vscode/tasks.json', content: planted } },
      { id: 'edit', name: 'Edit', arguments: { file_path: '.vscode/tasks.json', old_string: '"tasks": []', new_string: '"tasks": [1]' } },
      { id: 'bash', name: 'Bash', arguments: { command: `printf '%s' '${planted}' > .vscode/tasks.json` } },
      { id: 'launch', name: 'Write', arguments: { file_path: '.vscode/launch.json', content: '{}' } },
    ];
    bed = await startTestbed(bundle.bundle, { '.vscode/tasks.json': tasks }, [...calls.map((call) => toolCalls([call])), text('done')]);
    const r = await bed.run(['set up tasks', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    const outcomes = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]));
    expect(outcomes).toEqual({ write: 'denied', edit: 'denied', bash: 'denied', launch: 'executed' });
    expect(readFileSync(bed.workspace.file('.vscode/tasks.json'), 'utf8')).toBe(tasks);
  });
});
