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
  project = copyFixture('gemini');
});
afterEach(() => project.cleanup());

const run = (dryRun = true) => importHooks({ cwd: project.dir, home: project.home, from: 'gemini', dryRun });

describe('importing Gemini CLI hooks (.gemini/settings.json)', () => {
  it('reports every hook, AfterTool twice (success and failure)', () => {
    expect(statusTable(run().report.entries)).toEqual([
      ['.gemini/settings.json', 'BeforeTool', 'PreToolUse', 'changed'],
      ['.gemini/settings.json', 'BeforeTool', 'PreToolUse', 'changed'],
      ['.gemini/settings.json', 'BeforeTool', 'PreToolUse', 'changed'],
      ['.gemini/settings.json', 'BeforeTool', 'PreToolUse', 'changed'],
      ['.gemini/settings.json', 'AfterTool', 'PostToolUse', 'changed'],
      ['.gemini/settings.json', 'AfterTool', 'PostToolUseFailure', 'changed'],
      ['.gemini/settings.json', 'BeforeAgent', 'UserPromptSubmit', 'changed'],
      ['.gemini/settings.json', 'AfterAgent', 'Stop', 'changed'],
      ['.gemini/settings.json', 'AfterModel', 'AfterLLM', 'changed'],
      ['.gemini/settings.json', 'PreCompress', 'PreCompact', 'changed'],
      ['.gemini/settings.json', 'Notification', 'Notification', 'changed'],
      ['.gemini/settings.json', 'SessionStart', 'SessionStart', 'exact'],
      ['.gemini/settings.json', 'BeforeToolSelection', '-', 'unsupported'],
    ]);
  });

  it('reports the timeout conversion, the tool-name mapping and the sequential group', () => {
    const { entries } = run().report;
    const guard = entryOf(entries, 'BeforeTool', 'shell-guard.sh');
    expect(guard.notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/matcher "run_shell_command" → "Bash"/),
        'timeout 5000 ms → 5 s',
        expect.stringMatching(/GEMINI_PROJECT_DIR=\$\{CLAUDE_PROJECT_DIR\} set through "env"/),
      ]),
    );
    expect(guard.reasons).toEqual([
      expect.stringMatching(/hook_event_name is "PreToolUse" instead of "BeforeTool"/),
      expect.stringMatching(/^input: tool names and tool_input are Claude Code's/),
      expect.stringMatching(/^output: decision "deny"\/"block" with reason work as they are/),
    ]);
    expect(entryOf(entries, 'BeforeTool', 'secret-scan').reasons[0]).toMatch(
      /"sequential": true → "priority": 0: .* a block stops the later ones/,
    );
    expect(entryOf(entries, 'BeforeTool', 'format.js').reasons[0]).toMatch(/"priority": 1/);
    expect(entryOf(entries, 'BeforeTool', 'secret-scan').notes).toContain('timeout 1500 ms → 1.5 s');
    expect(entryOf(entries, 'BeforeTool', 'format.js').notes).toContain(
      "no timeout: Gemini CLI's default of 60000 ms is written out as 60 s",
    );
    expect(entryOf(entries, 'BeforeTool', 'audit.js').reasons[0]).toMatch(/regular expression over Gemini CLI's tool names/);
    expect(entryOf(entries, 'AfterTool', 'log.js', 'PostToolUse').notes).toContain(
      'listed as disabled in this settings file: imported with "enabled": false',
    );
    expect(entryOf(entries, 'AfterTool', 'log.js', 'PostToolUseFailure').reasons).toEqual(
      expect.arrayContaining([expect.stringMatching(/hook_event_name is "PostToolUseFailure" instead of "AfterTool"/)]),
    );
    expect(entryOf(entries, 'AfterModel', 'redact.js').reasons).toEqual(
      expect.arrayContaining(['it fires once per complete model response, not once per streamed chunk']),
    );
    expect(entryOf(entries, 'Notification', 'notify-send').notes).toContain('matcher "ToolPermission" → "permission_prompt"');
    expect(entryOf(entries, 'BeforeToolSelection', 'narrow-tools').reasons).toEqual([
      'Hookpilot has no event to narrow the tools offered to the model',
    ]);
  });

  it('writes hooks.json that loads without a problem, with timeouts in seconds and priorities in order', () => {
    const config = loadCleanly(run(false).text);
    expect(config.hooks).toHaveLength(12);
    expect(hookOf(config, 'PreToolUse', 'shell-guard')).toMatchObject({
      name: 'shell-guard',
      matcher: 'Bash',
      timeoutMs: 5_000,
      spec: { env: { GEMINI_PROJECT_DIR: '${CLAUDE_PROJECT_DIR}' } },
    });
    expect(hookOf(config, 'PreToolUse', 'secret-scan')).toMatchObject({ matcher: 'Write|Edit', timeoutMs: 1_500, priority: 0 });
    expect(hookOf(config, 'PreToolUse', 'format.js')).toMatchObject({
      matcher: 'Write|Edit',
      timeoutMs: 60_000,
      priority: 1,
      description: 'Formats the new content',
    });
    expect(hookOf(config, 'PostToolUse', 'log.js')).toMatchObject({ enabled: false });
    expect(hookOf(config, 'PostToolUseFailure', 'log.js')).toMatchObject({ enabled: false });
    expect(hookOf(config, 'UserPromptSubmit', 'context.md')).toMatchObject({ timeoutMs: 1_000 });
    expect(hookOf(config, 'Stop', 'check-done')).toMatchObject({ timeoutMs: 30_000 });
    expect(hookOf(config, 'AfterLLM', 'redact')).toMatchObject({ timeoutMs: 500 });
    expect(hookOf(config, 'PreCompact', 'save-summary')).toMatchObject({ spec: { async: true } });
    expect(hookOf(config, 'Notification', 'notify-send')).toMatchObject({ matcher: 'permission_prompt' });
    expect(hookOf(config, 'SessionStart', 'GEMINI_SESSION_ID')).toMatchObject({
      matcher: 'startup|resume',
      spec: { env: { GEMINI_SESSION_ID: '${HOOKPILOT_SESSION_ID}' } },
    });
  });

  it('the imported guard finds its script through GEMINI_PROJECT_DIR and still blocks with exit 2', async () => {
    run(false);
    const storage = mkdtempSync(path.join(tmpdir(), 'hookpilot-import-engine-'));
    const engine = new HookEngine({ projectDir: project.dir, storageDir: storage, trusted: true });
    try {
      await engine.reload(loadWorkspaceConfigs(project.dir));
      const state = engine.registry.current().states.find((s) => s.hook.name === 'shell-guard');
      if (!state) throw new Error('the imported guard is missing');
      const fire = (command: string) =>
        engine.testFire(state.hook.id, {
          hook_event_name: 'PreToolUse',
          session_id: 's',
          transcript_path: '',
          cwd: project.dir,
          tool_name: 'Bash',
          tool_input: { command },
          tool_use_id: 't',
        });
      expect((await fire('rm -rf build')).outcome).toMatchObject({
        status: 'blocking-error',
        reason: expect.stringContaining('rm -rf is not allowed'),
      });
      expect((await fire('ls')).outcome).toMatchObject({ status: 'success', effects: { decision: 'allow' } });
    } finally {
      await engine.dispose();
      rmSync(storage, { recursive: true, force: true });
    }
  });
});
