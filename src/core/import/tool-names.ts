import { BUILTIN_TOOL_NAMES, isBuiltinToolName } from '../agent/tools/tool-catalog';

/**
 * Tool names of other agents, mapped to Claude Code's, which Hookpilot's tools use
 * (from each tool's documentation).
 */

/** Hookpilot's agent tools: the tool catalogue's names. */
export const HOOKPILOT_TOOL_NAMES: readonly string[] = BUILTIN_TOOL_NAMES;

export type ToolNameMap = Readonly<Record<string, string>>;

/** Copilot CLI's own names, as it maps them for its PascalCase (Claude-compatible) events. */
export const COPILOT_TOOL_NAMES: ToolNameMap = {
  bash: 'Bash',
  powershell: 'Bash',
  view: 'Read',
  create: 'Write',
  edit: 'Edit',
  str_replace_editor: 'Edit',
  apply_patch: 'Edit',
  grep: 'Grep',
  rg: 'Grep',
  glob: 'Glob',
  web_fetch: 'WebFetch',
  web_search: 'WebSearch',
  ask_user: 'AskUserQuestion',
  update_todo: 'TodoWrite',
  task: 'Task',
};

export const GEMINI_TOOL_NAMES: ToolNameMap = {
  run_shell_command: 'Bash',
  read_file: 'Read',
  read_many_files: 'Read',
  write_file: 'Write',
  replace: 'Edit',
  edit: 'Edit',
  glob: 'Glob',
  search_file_content: 'Grep',
  grep_search: 'Grep',
  web_fetch: 'WebFetch',
  google_web_search: 'WebSearch',
  write_todos: 'TodoWrite',
};

/** coding-agent names its tools in lower case (`bash|shell` in its own example). */
export const CODING_AGENT_TOOL_NAMES: ToolNameMap = {
  bash: 'Bash',
  shell: 'Bash',
  read: 'Read',
  read_file: 'Read',
  write: 'Write',
  write_file: 'Write',
  edit: 'Edit',
  edit_file: 'Edit',
  glob: 'Glob',
  grep: 'Grep',
  todo: 'TodoWrite',
  todo_write: 'TodoWrite',
  task: 'Task',
  subagent: 'Task',
};

/** Only for the report: Cline scripts that test `toolName` must test these names instead. */
export const CLINE_TOOL_NAMES: ToolNameMap = {
  execute_command: 'Bash',
  read_file: 'Read',
  write_to_file: 'Write',
  replace_in_file: 'Edit',
  search_files: 'Grep',
  list_files: 'Glob',
  web_fetch: 'WebFetch',
};

/** Claude Code names for which Hookpilot's tool has another name. */
export const CLAUDE_TOOL_RENAMES: ToolNameMap = { Agent: 'Task' };

/** "bash → Bash, view → Read": a map written out for the report. */
export function describeToolNames(map: ToolNameMap): string {
  return Object.entries(map)
    .map(([from, to]) => `${from} → ${to}`)
    .join(', ');
}

export function isHookpilotTool(name: string): boolean {
  return isBuiltinToolName(name);
}
