import { describe, expect, it } from 'vitest';
import { baseSystemPrompt } from '../../src/core/agent/system-prompt';
import { createBuiltinTools } from '../../src/core/agent/tools/builtin-tools';
import { TodoStore } from '../../src/core/agent/tools/todo-store';
import { summarizeToolCall } from '../../src/core/agent/tool-summary';
import { builtinToolInfo, isBuiltinToolName, isFileEditTool, isShellTool, isSubagentTool } from '../../src/core/agent/tools/tool-catalog';
import { isHookpilotTool } from '../../src/core/import/tool-names';
import { matchPermissionRule, parsePermissionRule } from '../../src/core/permissions/permission-rule';
import { toolSample } from '../../src/shared/sample-payload';
import { toolIcon } from '../../webview-ui/chat/tool-card';

// The model names the tools it calls and a workspace's rules name tools too: a name that is
// a property of every object must not pass for a tool of the catalogue.
const W = { cwd: '/w', projectRoot: '/w', home: '/home/u' };
const OBJECT_KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

describe('tool catalogue lookups', () => {
  it.each(OBJECT_KEYS)('%s is no built-in tool', (name) => {
    expect(isBuiltinToolName(name)).toBe(false);
    expect(builtinToolInfo(name)).toBeUndefined();
    expect(isHookpilotTool(name)).toBe(false);
    expect([isShellTool(name), isFileEditTool(name), isSubagentTool(name)]).toEqual([false, false, false]);
    expect(summarizeToolCall(name, { a: 1 })).toBe(`${name} {"a":1}`);
    expect(toolSample(name, '/w')).toEqual({ input: {}, response: {} });
    expect(toolIcon(name)).toBe('tools');
  });

  it.each(OBJECT_KEYS)('a rule naming %s is checked like any other tool name, without throwing', (name) => {
    const rule = parsePermissionRule(`${name}(*src/a*)`);
    if (!rule) throw new Error('does not parse');
    expect(matchPermissionRule(rule, 'Grep', { pattern: 'x', path: 'src/a' }, W)).toBe('no-match');
    expect(matchPermissionRule(rule, 'Edit', { file_path: 'src/a.ts' }, W)).toBe('no-match');
    // Not a file tool: the pattern is a glob over the input's JSON.
    expect(matchPermissionRule(rule, name, { note: 'src/a' }, W)).toBe('match');
  });

  it('a Read rule covers the search tools, an Edit or Write rule every tool that changes a file', () => {
    const read = parsePermissionRule('Read(secrets/**)');
    const edit = parsePermissionRule('Edit(secrets/**)');
    const write = parsePermissionRule('Write(secrets/**)');
    if (!read || !edit || !write) throw new Error('does not parse');
    expect(matchPermissionRule(read, 'Grep', { pattern: 'key', path: 'secrets' }, W)).toBe('match');
    expect(matchPermissionRule(read, 'Glob', { pattern: 'secrets/*' }, W)).toBe('match');
    expect(matchPermissionRule(read, 'Write', { file_path: 'secrets/a' }, W)).toBe('no-match');
    expect(matchPermissionRule(edit, 'Write', { file_path: 'secrets/a' }, W)).toBe('match');
    expect(matchPermissionRule(write, 'Edit', { file_path: '/w/secrets/a' }, W)).toBe('match');
    expect(matchPermissionRule(edit, 'Read', { file_path: 'secrets/a' }, W)).toBe('no-match');
    expect(matchPermissionRule(edit, 'Grep', { pattern: 'key', path: 'secrets' }, W)).toBe('no-match');
  });
});

describe('baseSystemPrompt', () => {
  const tools = createBuiltinTools(new TodoStore());

  it('asks the model to plan with TodoWrite when it has the tool', () => {
    expect(baseSystemPrompt({ workspaceRoot: '/w', tools })).toContain('Use TodoWrite to plan');
  });

  it('does not name TodoWrite to a model without it (a subagent whose tools leave it out)', () => {
    const prompt = baseSystemPrompt({ workspaceRoot: '/w', tools: tools.filter((t) => t.name !== 'TodoWrite') });
    expect(prompt).not.toContain('TodoWrite');
    expect(prompt).toContain('Tools: Bash, Read, Write, Edit, Glob, Grep.');
  });
});
