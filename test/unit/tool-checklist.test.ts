import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTaskTool } from '../../src/core/agent/task-tool';
import { clip, summarizeToolCall } from '../../src/core/agent/tool-summary';
import { createBuiltinTools } from '../../src/core/agent/tools/builtin-tools';
import { TodoStore } from '../../src/core/agent/tools/todo-store';
import type { Tool } from '../../src/core/agent/tools/tool';
import { editRuleMatches } from '../../src/core/agent/permissions/rule-signals';
import {
  BUILTIN_TOOL_NAMES,
  BUILTIN_TOOLS,
  builtinToolInfo,
  FILE_EDIT_TOOL_NAMES,
  isShellTool,
  SUBAGENT_TOOL_NAMES,
} from '../../src/core/agent/tools/tool-catalog';
import { HOOKPILOT_TOOL_NAMES, isHookpilotTool } from '../../src/core/import/tool-names';
import { matchPermissionRule, parsePermissionRule } from '../../src/core/permissions/permission-rule';
import { NOT_REPLAYED_TOOLS } from '../../src/core/replay/session-replayer';
import { TOOL_SAMPLES, samplePayload } from '../../src/shared/sample-payload';
import { TOOL_ICONS, toolIcon } from '../../webview-ui/chat/tool-card';

// CONTRIBUTING's "Add a tool" checklist, checked over the tools the agent really has: a new
// tool that misses one of the places it must be added fails here by name.
const CWD = '/home/user/project';
const PLACES = { cwd: CWD, projectRoot: CWD, home: '/home/user' };
const task = createTaskTool(() => Promise.reject(new Error('not run'))) as unknown as Tool;
const tools: Tool[] = [...createBuiltinTools(new TodoStore()), task];
const named = (list: Tool[]) => list.map((t) => [t.name, t] as const);
const sampleInput = (tool: Tool) => samplePayload('PreToolUse', tool.name, { cwd: CWD }).tool_input as Record<string, unknown>;
const sorted = (names: Iterable<string>) => [...names].sort();
const rule = (text: string) => {
  const parsed = parsePermissionRule(text);
  if (!parsed) throw new Error(`${text} does not parse`);
  return parsed;
};

describe('every built-in tool is wired in everywhere', () => {
  it('the tool catalogue lists exactly the tools the agent offers, Task included', () => {
    expect(sorted(BUILTIN_TOOL_NAMES)).toEqual(sorted(tools.map((t) => t.name)));
    expect(sorted(BUILTIN_TOOL_NAMES)).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Task', 'TodoWrite', 'Write']);
  });

  it('the importers, the Hook Manager samples and the tool cards name the same tools, no more', () => {
    expect(sorted(HOOKPILOT_TOOL_NAMES)).toEqual(sorted(BUILTIN_TOOL_NAMES));
    expect(sorted(Object.keys(TOOL_SAMPLES))).toEqual(sorted(BUILTIN_TOOL_NAMES));
    expect(sorted(Object.keys(TOOL_ICONS))).toEqual(sorted(BUILTIN_TOOL_NAMES));
  });

  // Lists derived from the catalogue: diffs and Edit/Write rules, the Bash gate, replay and the trace.
  it('the file-edit, shell and subagent tools are the edit, execute and Task tools', () => {
    const ofCategory = (category: string) => sorted(tools.filter((t) => t.category === category).map((t) => t.name));
    expect(sorted(FILE_EDIT_TOOL_NAMES)).toEqual(ofCategory('edit'));
    expect(sorted(FILE_EDIT_TOOL_NAMES)).toEqual(['Edit', 'Write']);
    expect(sorted(BUILTIN_TOOL_NAMES.filter(isShellTool))).toEqual(ofCategory('execute'));
    expect(SUBAGENT_TOOL_NAMES).toEqual([task.name]);
    expect(NOT_REPLAYED_TOOLS).toEqual(SUBAGENT_TOOL_NAMES);
  });

  it.each(FILE_EDIT_TOOL_NAMES.map((n) => [n]))('an allow or deny %s rule covers a Bash redirection into its files', (name) => {
    expect(editRuleMatches(rule(`${name}(src/**)`), `${CWD}/src/a.ts`, PLACES)).toBe(true);
    expect(editRuleMatches(rule(`${name}(src/**)`), `${CWD}/lib/a.ts`, PLACES)).toBe(false);
  });

  it.each(named(tools))('%s: its category is the catalogue one (src/core/agent/tools/tool-catalog.ts)', (name, tool) => {
    expect(tool.category).toBe(builtinToolInfo(name)?.category);
    expect(isHookpilotTool(name)).toBe(true);
  });

  it.each(named(tools))('%s: the Hook Manager sample payload is a valid input (src/shared/sample-payload.ts)', (_name, tool) => {
    expect(Object.keys(sampleInput(tool)).length).toBeGreaterThan(0);
    expect(tool.inputSchema.safeParse(sampleInput(tool)).error).toBeUndefined();
    expect(samplePayload('PostToolUse', tool.name, { cwd: CWD }).tool_response).not.toEqual({});
  });

  it.each(named(tools))('%s: a tool card icon of its own (webview-ui/chat/tool-card.ts)', (name) => {
    expect(toolIcon(name)).not.toBe(toolIcon('mcp__server__tool'));
  });

  // Meta tools (TodoWrite) are never asked about; every other tool can reach a person.
  const askable = tools.filter((t) => t.category !== 'meta');
  it.each(named(askable))('%s: approvals and tool cards have a summary of their own (src/core/agent/tool-summary.ts)', (name, tool) => {
    const input = sampleInput(tool);
    expect(summarizeToolCall(name, input)).not.toBe(`${name} ${clip(JSON.stringify(input), 160)}`);
  });

  // A tool that touches a path must say so in the catalogue, or Tool(path) rules and the
  // workspace boundary would read its input as plain JSON.
  it.each(named(tools))('%s: permission rules know what it touches (access in tool-catalog.ts)', (name, tool) => {
    const access = BUILTIN_TOOLS[name as keyof typeof BUILTIN_TOOLS].access;
    const input = sampleInput(tool);
    switch (access.kind) {
      case 'file':
        expect(tool.target?.(input as never)).toBe(input[access.pathKey]);
        expect(matchPermissionRule(rule(`${name}(src/**)`), name, input, PLACES)).toBe('match');
        expect(matchPermissionRule(rule(`${name}(lib/**)`), name, input, PLACES)).toBe('no-match');
        break;
      case 'search': {
        const inSrc = { ...input, path: path.join(CWD, 'src') };
        expect(tool.target?.(inSrc as never)).toBe(inSrc.path);
        expect(matchPermissionRule(rule(`${name}(src/**)`), name, inSrc, PLACES)).toBe('match');
        expect(matchPermissionRule(rule(`${name}(lib/**)`), name, inSrc, PLACES)).toBe('no-match');
        break;
      }
      case 'shell':
        expect(tool.target).toBeUndefined();
        expect(matchPermissionRule(rule(`${name}(${String(input.command)})`), name, input, PLACES)).toBe('match');
        expect(matchPermissionRule(rule(`${name}(rm:*)`), name, input, PLACES)).toBe('no-match');
        break;
      case 'other':
        expect(tool.target).toBeUndefined();
        break;
    }
  });
});
