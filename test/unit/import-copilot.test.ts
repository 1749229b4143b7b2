import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HookEngine } from '../../src/core/engine/hook-engine';
import { loadWorkspaceConfigs } from '../../src/core/hooks/config/workspace-config-files';
import { importHooks } from '../../src/core/import/import-hooks';
import { copyFixture, entryOf, hookOf, loadCleanly, statusTable, type FixtureCopy } from '../fixtures/import/fixture-project';

let project: FixtureCopy;
beforeEach(() => {
  project = copyFixture('copilot');
});
afterEach(() => project.cleanup());

const run = (dryRun = true) => importHooks({ cwd: project.dir, home: project.home, from: 'copilot', dryRun });

describe('importing GitHub Copilot hooks (.github/hooks/*.json)', () => {
  it('reports every entry of every file', () => {
    expect(statusTable(run().report.entries)).toEqual([
      ['.github/hooks/policy.json', 'preToolUse', 'PreToolUse', 'changed'],
      ['.github/hooks/policy.json', 'preToolUse', 'PreToolUse', 'changed'],
      ['.github/hooks/policy.json', 'preToolUse', '-', 'unsupported'],
      ['.github/hooks/policy.json', 'preToolUse', 'PreToolUse', 'changed'],
      ['.github/hooks/policy.json', 'postToolUse', 'PostToolUse', 'changed'],
      ['.github/hooks/policy.json', 'userPromptSubmitted', 'UserPromptSubmit', 'changed'],
      ['.github/hooks/policy.json', 'agentStop', 'Stop', 'changed'],
      ['.github/hooks/policy.json', 'permissionRequest', 'PermissionRequest', 'changed'],
      ['.github/hooks/policy.json', 'sessionStart', '-', 'unsupported'],
      ['.github/hooks/policy.json', 'userPromptTransformed', '-', 'unsupported'],
      ['.github/hooks/vscode.json', 'PreToolUse', 'PreToolUse', 'changed'],
      ['.github/hooks/vscode.json', 'PostToolUse', 'PostToolUse', 'exact'],
      ['.github/hooks/vscode.json', 'PostToolUse', 'PostToolUse', 'exact'],
      ['.github/hooks/vscode.json', 'SessionStart', '-', 'unsupported'],
      ['.github/hooks/vscode.json', 'errorOccurred', 'Error', 'changed'],
    ]);
  });

  it('explains the changes: camelCase input, tool names, output shape, fail-closed preToolUse, exit 2', () => {
    const { entries } = run().report;
    const guard = entryOf(entries, 'preToolUse', 'check-command.sh');
    expect(guard.matcher).toBe('Bash');
    expect(guard.reasons).toEqual([
      expect.stringMatching(/snake_case input instead of Copilot's camelCase.*toolName → tool_name, toolArgs → tool_input/),
      expect.stringMatching(/tool names in the input are Claude Code's.*view → Read/),
      expect.stringMatching(/hookSpecificOutput.*a top-level permissionDecision or modifiedArgs is ignored/),
      expect.stringMatching(/fail-closed.*"onFailure": "block"/),
    ]);
    expect(guard.notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/"bash\|powershell" → "Bash"/),
        expect.stringMatching(/"powershell" variant is for Windows/),
      ]),
    );
    expect(entryOf(entries, 'preToolUse', 'windows-only.ps1').reasons).toEqual([
      expect.stringMatching(/only a Windows \(PowerShell\) command/),
    ]);
    expect(entryOf(entries, 'preToolUse', '(view|grep)').reasons[0]).toMatch(/regular expression over Copilot's tool names/);
    expect(entryOf(entries, 'userPromptSubmitted', 'log-prompt').reasons).toEqual(
      expect.arrayContaining([expect.stringMatching(/exit code 2 is only a warning in Copilot; in Hookpilot it blocks the prompt/)]),
    );
    // Exit 2 denies a permission in both.
    expect(entryOf(entries, 'permissionRequest', 'auto-approve').reasons).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/exit code 2/)]),
    );
    expect(entryOf(entries, 'sessionStart', 'prompt entry').reasons[0]).toMatch(/no prompt hooks/);
    expect(entryOf(entries, 'userPromptTransformed', 'after-transform').reasons[0]).toMatch(/no event after a prompt is transformed/);
    expect(entryOf(entries, 'PreToolUse', 'check-command.sh').notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/PascalCase event .* already gets Claude Code's input/)]),
    );
    // VS Code's own format: a command per OS, and Claude Code's matcher groups.
    const os = process.platform === 'darwin' ? 'osx' : 'linux';
    expect(entryOf(entries, 'PostToolUse', 'format.sh').notes).toEqual(
      expect.arrayContaining([
        `the "${os}" command is used (VS Code picks the command for the OS)`,
        expect.stringMatching(/windows variants? (is|are) left out/),
      ]),
    );
    expect(entryOf(entries, 'PostToolUse', 'lint-changed').notes).toEqual(
      expect.arrayContaining(['from a Claude Code-style matcher group: VS Code ignores its matcher, Copilot CLI and Hookpilot apply it']),
    );
    expect(entryOf(entries, 'SessionStart', 'hello.cmd').reasons).toEqual([
      'it has only a Windows (PowerShell) command; Hookpilot runs hooks with sh on Linux and macOS',
    ]);
  });

  it('writes hooks.json that loads without a problem, with mapped matchers, timeouts and failure policy', () => {
    const config = loadCleanly(run(false).text);
    expect(config.hooks).toHaveLength(11);
    expect(hookOf(config, 'PostToolUse', 'format.sh')).toMatchObject({
      timeoutMs: 20_000,
      spec: { command: process.platform === 'darwin' ? './scripts/format.sh --mac' : './scripts/format.sh' },
    });
    expect(hookOf(config, 'PostToolUse', 'lint-changed')).toMatchObject({ matcher: 'Write|Edit', timeoutMs: 30_000 });
    // The camelCase entry (policy.json) and the PascalCase one (vscode.json) run the same script.
    const guards = config.hooks.filter((h) => h.event === 'PreToolUse' && JSON.stringify(h.spec).includes('check-command.sh'));
    expect(guards).toMatchObject([
      { matcher: 'Bash', timeoutMs: 15_000, onFailure: 'block', spec: { command: './scripts/check-command.sh' } },
      { matcher: 'Bash', timeoutMs: 30_000, onFailure: 'block', spec: { command: './scripts/check-command.sh' } },
    ]);
    expect(hookOf(config, 'PreToolUse', 'protect-files')).toMatchObject({ matcher: 'Edit|Write', timeoutMs: 30_000, onFailure: 'block' });
    expect(hookOf(config, 'PreToolUse', 'audit.js')).toMatchObject({
      matcher: '^(?:(view|grep).*)$',
      spec: { command: 'node', args: ['scripts/audit.js', '--strict'] },
    });
    expect(hookOf(config, 'PostToolUse', 'lint.sh')).toMatchObject({
      matcher: 'Edit',
      spec: {
        command: 'bash',
        args: ['-c', 'if [[ -n "$CI" ]]; then ./scripts/lint.sh; fi'],
        cwd: 'tools',
        env: { LOG_DIR: '${HOME}/.copilot-logs' },
      },
    });
    expect(hookOf(config, 'PostToolUse', 'lint.sh').onFailure).toBeUndefined();
    expect(hookOf(config, 'Stop', 'hooks.example.com')).toMatchObject({ timeoutMs: 5_000, spec: { type: 'http' } });
    expect(hookOf(config, 'PermissionRequest', 'auto-approve')).toMatchObject({ matcher: 'Read' });
    expect(hookOf(config, 'Error', 'report-error')).toMatchObject({ timeoutMs: 30_000 });
    // The anchored regex behaves as Copilot's ^(?:P)$ did, now on Claude Code's names.
    const audit = new RegExp(hookOf(config, 'PreToolUse', 'audit.js').matcher ?? '');
    expect(['Read', 'Grep'].map((n) => audit.test(n))).toEqual([false, false]);
    expect(audit.test('view_file')).toBe(true);
  });

  it('really changes meaning: a Copilot-style top-level permissionDecision no longer denies', async () => {
    run(false);
    const storage = mkdtempSync(path.join(tmpdir(), 'hookpilot-import-engine-'));
    const engine = new HookEngine({ projectDir: project.dir, storageDir: storage, trusted: true });
    try {
      await engine.reload(loadWorkspaceConfigs(project.dir));
      const state = engine.registry
        .current()
        .states.find(
          (s) =>
            s.hook.event === 'PreToolUse' &&
            s.hook.matcher === 'Bash' &&
            s.hook.onFailure === 'block' &&
            JSON.stringify(s.hook.spec).includes('check-command'),
        );
      if (!state) throw new Error('the imported guard is missing');
      const { outcome } = await engine.testFire(state.hook.id, {
        hook_event_name: 'PreToolUse',
        session_id: 's',
        transcript_path: '',
        cwd: project.dir,
        tool_name: 'Bash',
        tool_input: { command: 'rm -rf /' },
        tool_use_id: 't',
      });
      expect(outcome).toMatchObject({
        status: 'success',
        trace: { exitCode: 0, stdout: expect.stringContaining('"permissionDecision":"deny"') },
      });
      expect(outcome.status === 'success' && outcome.effects.decision).toBeUndefined();
    } finally {
      await engine.dispose();
      rmSync(storage, { recursive: true, force: true });
    }
  });
});
