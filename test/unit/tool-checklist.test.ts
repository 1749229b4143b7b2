import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTaskTool } from '../../src/core/agent/task-tool';
import { clip, summarizeToolCall } from '../../src/core/agent/tool-summary';
import { createBuiltinTools } from '../../src/core/agent/tools/builtin-tools';
import { TodoStore } from '../../src/core/agent/tools/todo-store';
import type { Tool } from '../../src/core/agent/tools/tool';
import { matchPermissionRule, parsePermissionRule } from '../../src/core/permissions/permission-rule';
import { samplePayload } from '../../src/shared/sample-payload';

// CONTRIBUTING's "Add a tool" checklist, checked over the tools the agent really has: a new
// tool that misses one of the places it must be added fails here by name.
const CWD = '/home/user/project';
const task = createTaskTool(() => Promise.reject(new Error('not run'))) as unknown as Tool;
const tools: Tool[] = [...createBuiltinTools(new TodoStore()), task];
const named = (list: Tool[]) => list.map((t) => [t.name, t] as const);
const sampleInput = (tool: Tool) => samplePayload('PreToolUse', tool.name, { cwd: CWD }).tool_input as Record<string, unknown>;

describe('every built-in tool is wired in everywhere', () => {
  it('the list is the one the agent offers', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Task', 'TodoWrite', 'Write']);
  });

  it.each(named(tools))('%s: the Hook Manager sample payload is a valid input (src/shared/sample-payload.ts)', (_name, tool) => {
    expect(tool.inputSchema.safeParse(sampleInput(tool)).error).toBeUndefined();
  });

  // Meta tools (TodoWrite) are never asked about; every other tool can reach a person.
  const askable = tools.filter((t) => t.category !== 'meta');
  it.each(named(askable))('%s: approvals and tool cards have a summary of their own (src/core/agent/tool-summary.ts)', (name, tool) => {
    const input = sampleInput(tool);
    expect(summarizeToolCall(name, input)).not.toBe(`${name} ${clip(JSON.stringify(input), 160)}`);
  });

  it.each(named(tools.filter((t) => t.target)))(
    '%s: a file tool, so Tool(path) rules match its path (FILE_TOOLS in src/core/permissions/permission-rule.ts)',
    (name, tool) => {
      const input = { ...sampleInput(tool), path: path.join(CWD, 'src') };
      expect(tool.target?.(input as never)).toBeDefined();
      const rule = parsePermissionRule(`${name}(src/**)`);
      if (!rule) throw new Error(`${name}(src/**) does not parse`);
      expect(matchPermissionRule(rule, name, input, CWD)).toBe('match');
    },
  );
});
