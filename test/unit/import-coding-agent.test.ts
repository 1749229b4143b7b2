import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importHooks } from '../../src/core/import/import-hooks';
import { copyFixture, entryOf, hookOf, loadCleanly, statusTable, type FixtureCopy } from '../fixtures/import/fixture-project';

let project: FixtureCopy;
beforeEach(() => {
  project = copyFixture('coding-agent');
});
afterEach(() => project.cleanup());

const run = (dryRun = true) => importHooks({ cwd: project.dir, home: project.home, from: 'coding-agent', dryRun });

describe('importing coding-agent hooks (.coding-agent/hooks.json)', () => {
  it('reports every hook with its status', () => {
    expect(statusTable(run().report.entries)).toEqual([
      ['.coding-agent/hooks.json', 'PreToolUse', 'PreToolUse', 'changed'],
      ['.coding-agent/hooks.json', 'PreToolUse', 'PreToolUse', 'changed'],
      ['.coding-agent/hooks.json', 'PostToolUse', 'PostToolUse', 'changed'],
      ['.coding-agent/hooks.json', 'PostToolUse', 'PostToolUseFailure', 'changed'],
      ['.coding-agent/hooks.json', 'PostToolUse', '-', 'unsupported'],
      ['.coding-agent/hooks.json', 'UserPromptSubmit', 'UserPromptSubmit', 'changed'],
      ['.coding-agent/hooks.json', 'Stop', 'Stop', 'changed'],
      ['.coding-agent/hooks.json', 'SessionStart', '-', 'unsupported'],
    ]);
  });

  it('reports the match → matcher mapping, the timeouts and every change of meaning', () => {
    const { entries } = run().report;
    const bash = entryOf(entries, 'PreToolUse', 'check-bash.js');
    expect(bash.notes).toEqual(
      expect.arrayContaining([
        'matcher "bash|shell" → "Bash" (coding-agent tool names mapped to Hookpilot\'s)',
        'timeout 5000 ms → 5 s',
        expect.stringMatching(/"priority": 0 keeps coding-agent's order/),
      ]),
    );
    expect(bash.reasons).toEqual([
      expect.stringMatching(
        /blocks the tool when the hook times out or cannot start, but lets other non-zero exits pass.*"onFailure": "block"/,
      ),
      expect.stringMatching(
        /event, toolName, toolArgs → hook_event_name, tool_name, tool_input; scripts that read toolName\/toolArgs must read tool_name\/tool_input/,
      ),
      expect.stringMatching(/tool names are Claude Code's: bash → Bash, shell → Bash/),
    ]);
    expect(entryOf(entries, 'PreToolUse', 'check-paths.js').notes).toEqual(
      expect.arrayContaining([
        'matcher "^(write_file|edit_file)$" → "Write|Edit" (coding-agent tool names mapped to Hookpilot\'s)',
        "no timeout: coding-agent's default of 10000 ms is written out as 10 s",
      ]),
    );
    expect(entryOf(entries, 'PostToolUse', 'log-tool.js', 'PostToolUse').reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/regular expression over coding-agent's tool names/),
        expect.stringMatching(/exit code 2 only logs a warning in coding-agent; in Hookpilot it feeds stderr back/),
      ]),
    );
    expect(entryOf(entries, 'PostToolUse', 'case-blind.js').reasons[0]).toMatch(/"\(\?i\)bash" is not a JavaScript regular expression/);
    const prompt = entryOf(entries, 'UserPromptSubmit', 'log-prompt.js');
    expect(prompt.notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/"match" applies only to PreToolUse and PostToolUse.*left out/)]),
    );
    expect(prompt.reasons).toEqual(
      expect.arrayContaining([expect.stringMatching(/exit code 2 is ignored in coding-agent.*blocks the prompt/)]),
    );
    expect(prompt.reasons.join(' ')).not.toMatch(/toolName/);
    expect(entryOf(entries, 'Stop', 'todo-check.js').reasons[0]).toMatch(
      /exits 2 with text on stdout.*write the message to stderr instead of stdout/,
    );
    expect(entryOf(entries, 'SessionStart', 'echo started').reasons).toEqual([
      'coding-agent has no SessionStart event (it ignores this key, so the hook never ran)',
    ]);
  });

  it('writes hooks.json that loads without a problem: matchers, seconds, order and failure policy', () => {
    const config = loadCleanly(run(false).text);
    expect(config.hooks).toHaveLength(6);
    expect(hookOf(config, 'PreToolUse', 'check-bash')).toMatchObject({
      matcher: 'Bash',
      timeoutMs: 5_000,
      priority: 0,
      onFailure: 'block',
      description: 'Block dangerous shell commands',
    });
    expect(hookOf(config, 'PreToolUse', 'check-paths')).toMatchObject({
      matcher: 'Write|Edit',
      timeoutMs: 10_000,
      priority: 1,
      onFailure: 'block',
    });
    expect(hookOf(config, 'PostToolUse', 'log-tool')).toMatchObject({ matcher: '.*_file', timeoutMs: 2_500, spec: { cwd: 'logs' } });
    expect(hookOf(config, 'PostToolUseFailure', 'log-tool')).toMatchObject({ matcher: '.*_file', timeoutMs: 2_500 });
    expect(hookOf(config, 'UserPromptSubmit', 'log-prompt').matcher).toBeUndefined();
    expect(hookOf(config, 'Stop', 'todo-check')).toMatchObject({ timeoutMs: 20_000 });
    expect(hookOf(config, 'Stop', 'todo-check').onFailure).toBeUndefined();
  });
});
