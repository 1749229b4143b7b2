import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importHooks } from '../../src/core/import/import-hooks';
import { copyFixture, entryOf, hookOf, loadCleanly, statusTable, type FixtureCopy } from '../fixtures/import/fixture-project';

let project: FixtureCopy;
beforeEach(() => {
  project = copyFixture('atomcode');
});
afterEach(() => project.cleanup());

const run = (dryRun = true) => importHooks({ cwd: project.dir, home: project.home, from: 'atomcode', dryRun });
const scriptPath = (name: string) => `"\${CLAUDE_PROJECT_DIR}/.atomcode/hooks/scripts/${name}"`;

describe('importing AtomCode hooks (.hooks.json and .atomcode/hooks/hooks.toml)', () => {
  it('reports every JSON hook, script hook and webhook binding', () => {
    expect(statusTable(run().report.entries)).toEqual([
      ['.hooks.json', 'PreToolUse', 'PreToolUse', 'changed'],
      ['.hooks.json', 'UserPromptSubmit', 'UserPromptSubmit', 'exact'],
      ['.hooks.json', 'SessionStart', 'SessionStart', 'exact'],
      ['.atomcode/hooks/hooks.toml', 'post_tool_execution', 'PostToolUse', 'changed'],
      ['.atomcode/hooks/hooks.toml', 'SystemPrompt', 'SystemPrompt', 'changed'],
      ['.atomcode/hooks/hooks.toml', 'post_turn', 'TurnEnd', 'changed'],
      ['.atomcode/hooks/hooks.toml', 'on_session_start', '-', 'unsupported'],
      ['.atomcode/hooks/hooks.toml', 'pre_tool_execution', 'PreToolUse', 'changed'],
      ['.atomcode/hooks/hooks.toml', 'OnSessionEnd', 'SessionEnd', 'changed'],
      ['.atomcode/hooks/hooks.toml', 'on_user_prompt_submit', '-', 'unsupported'],
      // The same webhook on pre_tool_execution and OnToolCallStart: both are PreToolUse here, so it is added once.
      ['.atomcode/hooks/hooks.toml', 'OnToolCallStart', 'PreToolUse', 'changed (duplicate)'],
      ['.atomcode/hooks/hooks.toml', 'on_turn_complete', '-', 'unsupported'],
    ]);
  });

  it('explains the AtomCode-specific differences', () => {
    const { entries } = run().report;
    expect(entryOf(entries, 'PreToolUse', 'guard.sh').reasons).toEqual([
      '$ATOMCODE_TOOL_NAME is not set by Hookpilot: read tool_name from the input instead',
    ]);
    expect(entryOf(entries, 'UserPromptSubmit', 'ATOMCODE_HOOK_EVENT').notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/ATOMCODE_HOOK_EVENT=UserPromptSubmit set through "env"/)]),
    );
    const lint = entryOf(entries, 'post_tool_execution', 'lint-after-edit');
    expect(lint.reasons).toEqual([
      'ATOMCODE_TOOL_NAME is not set: read tool_name from the input',
      expect.stringMatching(/instead of a HookResult: Denied\(reason\) → {"decision": "block"/),
    ]);
    expect(entryOf(entries, 'on_session_start', 'greeting').reasons).toEqual([
      expect.stringMatching(/runs script hooks only for .*, so "on_session_start" never ran/),
    ]);
    expect(entryOf(entries, 'on_user_prompt_submit', 'audit').reasons).toEqual([
      'AtomCode never sends OnUserPromptSubmit to webhooks, so this binding never ran',
    ]);
    expect(entryOf(entries, 'OnToolCallStart', 'audit').reasons[0]).toMatch(/OnToolCallStart only observes in AtomCode/);
    expect(entryOf(entries, 'OnToolCallStart', 'audit').notes).toContain(
      'identical to the hook from .atomcode/hooks/hooks.toml (pre_tool_execution): added once',
    );
    expect(entryOf(entries, 'pre_tool_execution', 'audit').notes).toContain(
      '"allowedEnvVars": AUDIT_TOKEN, so the headers keep expanding them',
    );
    expect(entryOf(entries, 'on_turn_complete', 'status-page').reasons).toEqual([
      "it sends GET requests; Hookpilot's http hooks always POST the hook input",
    ]);
  });

  it('writes hooks.json that loads without a problem: scripts with their interpreter, webhooks as http hooks', () => {
    const config = loadCleanly(run(false).text);
    expect(config.hooks).toHaveLength(8);
    // AtomCode reads a .hooks.json hook's answer from stdout's last line; its TOML script hooks print JSON only.
    expect(hookOf(config, 'PreToolUse', 'guard.sh')).toMatchObject({
      matcher: 'Bash',
      timeoutMs: 10_000,
      spec: { stdoutJson: 'lastLine' },
    });
    expect(hookOf(config, 'PostToolUse', 'lint.sh').spec).not.toHaveProperty('stdoutJson', 'lastLine');
    expect(hookOf(config, 'UserPromptSubmit', 'ATOMCODE_HOOK_EVENT')).toMatchObject({
      spec: { env: { ATOMCODE_HOOK_EVENT: 'UserPromptSubmit' } },
    });
    expect(hookOf(config, 'PostToolUse', 'lint.sh')).toMatchObject({
      name: 'lint-after-edit',
      timeoutMs: 30_000,
      spec: {
        command: `sh ${scriptPath('lint.sh')}`,
        env: { ATOMCODE_HOOK_TYPE: 'post_tool_execution', ATOMCODE_WORKSPACE: '${CLAUDE_PROJECT_DIR}' },
      },
    });
    expect(hookOf(config, 'SystemPrompt', 'conventions.py')).toMatchObject({
      timeoutMs: 2_500,
      spec: { command: `python3 ${scriptPath('conventions.py')}` },
    });
    expect(hookOf(config, 'TurnEnd', 'summary.js')).toMatchObject({ spec: { command: `node ${scriptPath('summary.js')}` } });
    expect(hookOf(config, 'TurnEnd', 'summary.js').timeoutMs).toBeUndefined();
    const webhooks = config.hooks.filter((h) => h.spec.type === 'http');
    expect(webhooks.map((h) => [h.event, h.name, h.timeoutMs])).toEqual([
      ['PreToolUse', 'audit', 5_000],
      ['SessionEnd', 'audit', 5_000],
    ]);
    expect(webhooks[0].spec).toMatchObject({
      url: 'https://audit.example.com/atomcode',
      headers: { Authorization: 'Bearer ${AUDIT_TOKEN}' },
      allowedEnvVars: ['AUDIT_TOKEN'],
    });
  });

  it("reads AtomCode's named-entry .hooks.json: glob matchers, timeout_ms, disabled", () => {
    const named = {
      hooks: {
        'guard-edits': { event: 'pre_tool_use', matcher: 'Edit|Write', command: 'node guard.js', timeout_ms: 1500 },
        'github-audit': { event: 'PostToolUse', matcher: 'mcp__github__*', command: 'node audit.js', disabled: true },
        'on-compact': { event: 'pre_compact', command: 'echo compacting' },
      },
    };
    writeFileSync(path.join(project.dir, '.hooks.json'), JSON.stringify(named));
    const { report, text } = run();
    const json = report.entries.filter((e) => e.file === '.hooks.json');
    expect(statusTable(json)).toEqual([
      ['.hooks.json', 'pre_tool_use', 'PreToolUse', 'exact'],
      ['.hooks.json', 'PostToolUse', 'PostToolUse', 'changed'],
      ['.hooks.json', 'pre_compact', '-', 'unsupported'],
    ]);
    expect(json[1].notes).toEqual(
      expect.arrayContaining([
        'AtomCode\'s glob matcher "mcp__github__*" → "^(?:mcp__github__.*)$"',
        '"disabled": true, so AtomCode skips it: imported with "enabled": false',
      ]),
    );
    const config = loadCleanly(text);
    expect(hookOf(config, 'PreToolUse', 'guard.js')).toMatchObject({ name: 'guard-edits', matcher: 'Edit|Write', timeoutMs: 1_500 });
    expect(hookOf(config, 'PostToolUse', 'audit.js')).toMatchObject({
      name: 'github-audit',
      matcher: '^(?:mcp__github__.*)$',
      timeoutMs: 10_000,
      enabled: false,
    });
  });

  it('reports a broken hooks.toml instead of dropping it silently', () => {
    mkdirSync(path.join(project.dir, '.atomcode', 'hooks'), { recursive: true });
    writeFileSync(path.join(project.dir, '.atomcode', 'hooks', 'hooks.toml'), '[[hooks]\nname = "x"\n');
    const toml = run().report.entries.filter((e) => e.file === '.atomcode/hooks/hooks.toml');
    expect(toml).toMatchObject([
      { status: 'unsupported', reasons: [expect.stringMatching(/^not valid TOML .*none of its hooks were imported$/)] },
    ]);
  });
});
