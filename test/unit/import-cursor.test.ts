import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importHooks } from '../../src/core/import/import-hooks';
import { copyFixture, entryOf, hookOf, loadCleanly, statusTable, type FixtureCopy } from '../fixtures/import/fixture-project';

let project: FixtureCopy;
beforeEach(() => {
  project = copyFixture('cursor');
});
afterEach(() => project.cleanup());

const run = (dryRun = true) => importHooks({ cwd: project.dir, home: project.home, from: 'cursor', dryRun });

describe('importing Cursor hooks (.cursor/hooks.json)', () => {
  it("maps every event to Hookpilot's and reports the Tab event as not carried over", () => {
    expect(statusTable(run().report.entries)).toEqual([
      ['.cursor/hooks.json', 'beforeShellExecution', 'PreToolUse', 'changed'],
      ['.cursor/hooks.json', 'afterFileEdit', 'PostToolUse', 'changed'],
      ['.cursor/hooks.json', 'beforeReadFile', 'PreToolUse', 'changed'],
      ['.cursor/hooks.json', 'beforeMCPExecution', 'PreToolUse', 'changed'],
      ['.cursor/hooks.json', 'beforeSubmitPrompt', 'UserPromptSubmit', 'changed'],
      ['.cursor/hooks.json', 'stop', 'Stop', 'changed'],
      ['.cursor/hooks.json', 'afterAgentResponse', 'AfterLLM', 'changed'],
      ['.cursor/hooks.json', 'preToolUse', 'PreToolUse', 'changed'],
      ['.cursor/hooks.json', 'sessionStart', 'SessionStart', 'changed'],
      ['.cursor/hooks.json', 'beforeTabFileRead', '-', 'unsupported'],
    ]);
  });

  it('explains each change of input and output', () => {
    const { entries } = run().report;
    const shell = entryOf(entries, 'beforeShellExecution', 'guard-shell.sh');
    expect(shell.reasons).toEqual([
      expect.stringMatching(
        /conversation_id → session_id, workspace_roots → cwd, hook_event_name "beforeShellExecution" → "PreToolUse"; command, cwd → tool_input\.command, cwd/,
      ),
      expect.stringMatching(/output: {"permission": "allow"\|"deny"\|"ask", "user_message", "agent_message"} → {"hookSpecificOutput"/),
    ]);
    expect(shell.notes).toEqual([expect.stringMatching(/"failClosed": true → "onFailure": "block"/)]);
    expect(entryOf(entries, 'beforeSubmitPrompt', 'prompt-filter').reasons[1]).toMatch(
      /Careful: {"continue": false} now ends the whole session/,
    );
    expect(entryOf(entries, 'stop', 'followup').reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/"loop_limit": `3` has no per-hook counterpart/),
        expect.stringMatching(/{"followup_message": m} → {"decision": "block", "reason": m}/),
      ]),
    );
    expect(entryOf(entries, 'beforeReadFile', 'no-secrets').reasons[0]).toMatch(/Cursor's matcher "\\\.env" is left out/);
    expect(entryOf(entries, 'beforeMCPExecution', 'mcp-audit').reasons[0]).toMatch(/no MCP tools yet/);
    expect(entryOf(entries, 'afterAgentResponse', 'log-response').reasons).toEqual(
      expect.arrayContaining([expect.stringMatching(/runs in the background \(async\)/)]),
    );
    expect(entryOf(entries, 'preToolUse', 'tool-gate').reasons[0]).toMatch(/written for Cursor's tool names/);
    expect(entryOf(entries, 'beforeTabFileRead', 'tab-guard').reasons).toEqual([expect.stringMatching(/Tab \(inline completion\) event/)]);
  });

  it('writes hooks.json that loads without a problem, with the tool each event stood for', () => {
    const config = loadCleanly(run(false).text);
    expect(config.hooks).toHaveLength(9);
    expect(hookOf(config, 'PreToolUse', 'guard-shell.sh')).toMatchObject({ matcher: 'Bash', timeoutMs: 5_000, onFailure: 'block' });
    expect(hookOf(config, 'PostToolUse', 'format.sh')).toMatchObject({ matcher: 'Write|Edit' });
    expect(hookOf(config, 'PostToolUse', 'format.sh').timeoutMs).toBeUndefined();
    expect(hookOf(config, 'PreToolUse', 'no-secrets.sh')).toMatchObject({ matcher: 'Read' });
    expect(hookOf(config, 'PreToolUse', 'mcp-audit.sh')).toMatchObject({ matcher: 'mcp__.*' });
    expect(hookOf(config, 'UserPromptSubmit', 'prompt-filter')).toMatchObject({ timeoutMs: 3_000 });
    expect(hookOf(config, 'AfterLLM', 'log-response')).toMatchObject({ spec: { async: true } });
    expect(hookOf(config, 'PreToolUse', 'tool-gate')).toMatchObject({ matcher: 'Shell|Read' });
    expect(hookOf(config, 'PreToolUse', 'guard-shell.sh').onFailure).toBe('block');
    expect(hookOf(config, 'Stop', 'followup').onFailure).toBeUndefined();
  });
});
