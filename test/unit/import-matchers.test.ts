import { describe, expect, it } from 'vitest';
import { createTaskTool } from '../../src/core/agent/task-tool';
import { createBuiltinTools } from '../../src/core/agent/tools/builtin-tools';
import { TodoStore } from '../../src/core/agent/tools/todo-store';
import { matchesValue } from '../../src/core/hooks/matcher';
import { checkMatchValues, claudeMatcher, translateToolMatcher, translateValueMatcher } from '../../src/core/import/matcher-translation';
import { COPILOT_TOOL_NAMES, GEMINI_TOOL_NAMES, HOOKPILOT_TOOL_NAMES } from '../../src/core/import/tool-names';

describe('tool names', () => {
  it("HOOKPILOT_TOOL_NAMES are the agent's tools", () => {
    const tools = [...createBuiltinTools(new TodoStore()), createTaskTool(() => Promise.reject(new Error('unused')))];
    expect([...HOOKPILOT_TOOL_NAMES].sort()).toEqual(tools.map((t) => t.name).sort());
  });
});

describe('claudeMatcher', () => {
  it('keeps what Hookpilot reads the same way', () => {
    for (const m of ['Bash', 'Edit|Write', 'Edit, Write', 'mcp__memory__.*', '^Notebook'])
      expect(claudeMatcher('PreToolUse', m)).toEqual({ matcher: m, changes: [], notes: [] });
    expect(claudeMatcher('PreToolUse', '*')).toEqual({ changes: [], notes: [] });
  });

  it("wraps Hookpilot's prefix form so it stays the regular expression Claude Code reads", () => {
    const { matcher } = claudeMatcher('PreToolUse', 'Bash*');
    expect(matcher).toBe('(?:Bash*)');
    // Claude Code: unanchored /Bash*/ also matches "MyBas"; Hookpilot's prefix form would not.
    expect(matchesValue(matcher, 'MyBas')).toBe(true);
    expect(matchesValue('Bash*', 'MyBas')).toBe(false);
  });

  it('renames Agent to Task, drops matchers Claude Code ignores, and flags values Hookpilot never sends', () => {
    expect(claudeMatcher('PreToolUse', 'Agent|Bash').matcher).toBe('Task|Bash');
    expect(claudeMatcher('Stop', 'anything')).toEqual({
      changes: [],
      notes: [expect.stringMatching(/Claude Code ignores a matcher on Stop/)],
    });
    expect(claudeMatcher('SessionStart', 'fork')).toMatchObject({
      matcher: 'fork',
      changes: [expect.stringMatching(/never sends source "fork".*never fires/)],
    });
    expect(claudeMatcher('PreToolUse', 'WebFetch|Bash').notes).toEqual([expect.stringMatching(/no WebFetch tool/)]);
    expect(claudeMatcher('PreToolUse', '(')).toMatchObject({ unsupported: expect.stringMatching(/not a valid regular expression/) });
  });
});

describe('translateToolMatcher', () => {
  const copilot = { names: COPILOT_TOOL_NAMES, label: 'Copilot', anchored: true };
  const gemini = { names: GEMINI_TOOL_NAMES, label: 'Gemini CLI', anchored: false };

  it('maps a list of names name by name into an exact list', () => {
    expect(translateToolMatcher('bash|powershell', copilot)).toMatchObject({ matcher: 'Bash', changes: [] });
    expect(translateToolMatcher('^(write_file|replace)$', gemini)).toMatchObject({ matcher: 'Write|Edit', changes: [] });
    expect(translateToolMatcher('(?:view)', copilot).matcher).toBe('Read');
    expect(translateToolMatcher('web_fetch', copilot).notes).toEqual(expect.arrayContaining([expect.stringMatching(/no WebFetch tool/)]));
  });

  it('keeps an unknown name and says it matches no Hookpilot tool', () => {
    expect(translateToolMatcher('bash|my_tool', copilot)).toMatchObject({
      matcher: 'Bash|my_tool',
      changes: [expect.stringMatching(/"my_tool" is not a Copilot tool name/)],
    });
  });

  it('anchors another regular expression as Copilot does, and reports it', () => {
    const result = translateToolMatcher('ed.*', copilot);
    expect(result.matcher).toBe('^(?:ed.*)$');
    expect(result.changes).toEqual([expect.stringMatching(/regular expression over Copilot's tool names/)]);
    expect(matchesValue(result.matcher, 'xedit')).toBe(false);
  });

  it('keeps an unanchored one unanchored, and a prefix-looking one a regular expression', () => {
    expect(translateToolMatcher('read_.*', gemini).matcher).toBe('read_.*');
    expect(translateToolMatcher('read_*', gemini).matcher).toBe('(?:read_*)');
  });

  it('refuses a pattern JavaScript cannot compile', () => {
    expect(translateToolMatcher('(?i)bash', gemini)).toMatchObject({
      unsupported: expect.stringMatching(/not a JavaScript regular expression/),
    });
  });

  it('refuses a pattern Hookpilot cannot run in linear time (lookaround, backreferences)', () => {
    expect(translateToolMatcher('read_(?!many)', gemini)).toMatchObject({
      unsupported: expect.stringMatching(/^the matcher "read_\(\?!many\)" is not a regular expression Hookpilot can run \(.*lookaround/),
    });
  });
});

describe('translateValueMatcher and checkMatchValues', () => {
  it('renames values and checks them against what Hookpilot sends', () => {
    expect(translateValueMatcher('Notification', 'ToolPermission', false, { ToolPermission: 'permission_prompt' })).toMatchObject({
      matcher: 'permission_prompt',
      changes: [],
    });
    expect(translateValueMatcher('SessionEnd', 'exit', false)).toMatchObject({
      matcher: 'exit',
      changes: [expect.stringMatching(/never sends reason "exit"/)],
    });
    expect(translateValueMatcher('PreCompact', 'au.*', true)).toMatchObject({
      matcher: '^(?:au.*)$',
      notes: [expect.stringMatching(/manual, auto/)],
    });
  });

  it('says nothing about values it cannot enumerate or regular expressions', () => {
    expect(checkMatchValues('Notification', 'whatever')).toEqual({ changes: [], notes: [] });
    expect(checkMatchValues('SessionStart', 'start.*')).toEqual({ changes: [], notes: [] });
  });
});
