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
  project = copyFixture('cline');
});
afterEach(() => project.cleanup());

const run = (dryRun = true) => importHooks({ cwd: project.dir, home: project.home, from: 'cline', dryRun });
const script = (name: string) => `"\${CLAUDE_PROJECT_DIR}/.clinerules/hooks/${name}"`;

describe('importing Cline hooks (.clinerules/hooks/<Event>)', () => {
  it('reports every hook script, and only hook scripts', () => {
    expect(statusTable(run().report.entries)).toEqual([
      ['.clinerules/hooks/PostToolUse', 'PostToolUse', 'PostToolUse', 'changed'],
      ['.clinerules/hooks/PostToolUse', 'PostToolUse', 'PostToolUseFailure', 'changed'],
      ['.clinerules/hooks/PreCompact.sh', 'PreCompact', '-', 'unsupported'],
      ['.clinerules/hooks/PreToolUse', 'PreToolUse', 'PreToolUse', 'changed'],
      ['.clinerules/hooks/TaskComplete', 'TaskComplete', 'Stop', 'changed'],
      ['.clinerules/hooks/TaskResume', 'TaskResume', 'SessionStart', 'changed'],
      ['.clinerules/hooks/TaskStart', 'TaskStart', 'SessionStart', 'changed'],
      ['.clinerules/hooks/UserPromptSubmit.ps1', 'UserPromptSubmit', '-', 'unsupported'],
    ]);
  });

  it('says how the script must change: input envelope, tool names, answer, failure policy', () => {
    const { entries } = run().report;
    const pre = entryOf(entries, 'PreToolUse', 'PreToolUse (executable)');
    expect(pre.reasons).toEqual([
      expect.stringMatching(
        /hookName → hook_event_name \("PreToolUse"\), taskId → session_id.*preToolUse\.toolName → tool_name, preToolUse\.parameters → tool_input/,
      ),
      expect.stringMatching(/execute_command → Bash, read_file → Read, write_to_file → Write, replace_in_file → Edit/),
      expect.stringMatching(
        /"cancel": true, "errorMessage": m} → exit 2 with m on stderr.*Until then a {"cancel": true} answer is ignored and the tool runs/,
      ),
    ]);
    expect(pre.notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/"onFailure": "block" keeps that/), expect.stringMatching(/fixed 30 s timeout/)]),
    );
    expect(entryOf(entries, 'TaskComplete', 'TaskComplete').reasons[0]).toMatch(/Stop fires each time the agent finishes answering/);
    expect(entryOf(entries, 'TaskStart', 'TaskStart').reasons).toEqual(
      expect.arrayContaining([expect.stringMatching(/no longer counts as an error that can stop the task/)]),
    );
    expect(entryOf(entries, 'PostToolUse', 'PostToolUse', 'PostToolUse').notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/not executable, so Cline skips it: imported with "enabled": false/)]),
    );
    expect(entryOf(entries, 'PostToolUse', 'PostToolUse', 'PostToolUseFailure').notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/also bound to PostToolUseFailure/)]),
    );
    expect(entryOf(entries, 'UserPromptSubmit', 'UserPromptSubmit.ps1').reasons[0]).toMatch(
      /PowerShell hook, which Cline runs on Windows only/,
    );
    expect(entryOf(entries, 'PreCompact', 'PreCompact.sh').reasons[0]).toMatch(/named exactly "PreCompact" \(no extension\)/);
  });

  it("writes hooks.json that loads without a problem: scripts by path, Cline's timeout, disabled where Cline skips them", () => {
    const config = loadCleanly(run(false).text);
    expect(config.hooks).toHaveLength(6);
    expect(hookOf(config, 'PreToolUse', 'PreToolUse').matcher).toBeUndefined();
    expect(hookOf(config, 'PreToolUse', 'PreToolUse')).toMatchObject({
      timeoutMs: 30_000,
      onFailure: 'block',
      enabled: true,
      spec: { command: script('PreToolUse') },
    });
    expect(hookOf(config, 'SessionStart', 'TaskStart')).toMatchObject({ matcher: 'startup', enabled: true });
    expect(hookOf(config, 'SessionStart', 'TaskResume')).toMatchObject({ matcher: 'resume' });
    expect(hookOf(config, 'Stop', 'TaskComplete').onFailure).toBeUndefined();
    expect(hookOf(config, 'PostToolUse', 'PostToolUse')).toMatchObject({ enabled: false });
    expect(hookOf(config, 'PostToolUseFailure', 'PostToolUse')).toMatchObject({ enabled: false });
  });

  it('runs the script from its place in the project; its Cline-style cancel is not understood', async () => {
    run(false);
    const storage = mkdtempSync(path.join(tmpdir(), 'hookpilot-import-engine-'));
    const engine = new HookEngine({ projectDir: project.dir, storageDir: storage, trusted: true });
    try {
      await engine.reload(loadWorkspaceConfigs(project.dir));
      const state = engine.registry.current().states.find((s) => s.hook.event === 'PreToolUse' && s.hook.spec.type === 'command');
      if (!state) throw new Error('the imported PreToolUse hook is missing');
      const payload = {
        hook_event_name: 'PreToolUse' as const,
        session_id: 's',
        transcript_path: '',
        cwd: project.dir,
        tool_name: 'Bash',
        tool_input: { command: 'rm -rf /' },
        tool_use_id: 't',
      };
      const { outcome } = await engine.testFire(state.hook.id, payload);
      // The script ran (it answered {"cancel": false}: it looks for preToolUse.toolName, which Claude Code's input lacks).
      expect(outcome).toMatchObject({ status: 'success', trace: { exitCode: 0, stdout: '{"cancel":false}\n' } });
      expect(outcome.status === 'success' && outcome.effects.decision).toBeUndefined();
    } finally {
      await engine.dispose();
      rmSync(storage, { recursive: true, force: true });
    }
  });
});
