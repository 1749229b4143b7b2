/**
 * Hookpilot's own tools, under Claude Code's names, and what the rest of the product knows
 * about each: the one list that the tools themselves, permission rules, the importers, the
 * Hook Manager's samples and the chat's tool cards derive from. Plain data with no imports,
 * so the webviews can read it too. Task (subagents) is added by the agent loop.
 */

/** How a tool is gated in the default permission mode: `edit` and `execute` need approval. */
export type ToolCategory = 'read' | 'edit' | 'execute' | 'meta';

/** What the pattern of a `Tool(pattern)` rule matches for a tool (permission-rule.ts). */
export type ToolAccess =
  /** The pattern matches the command line, subcommand by subcommand. */
  | { kind: 'shell' }
  /** A path glob over `input[pathKey]`; `changes`: the tool writes the file. */
  | { kind: 'file'; pathKey: 'file_path'; changes: boolean }
  /** A path glob over the directory searched (`path`) and the glob under it (`input[globKey]`). */
  | { kind: 'search'; globKey: 'pattern' | 'glob' }
  /** A glob over the JSON of the input. */
  | { kind: 'other' };

export interface BuiltinToolInfo {
  readonly category: ToolCategory;
  readonly access: ToolAccess;
  /** The tool runs a subagent, whose own model replies are not part of the session's. */
  readonly runsSubagent?: true;
}

export const BUILTIN_TOOLS = {
  Bash: { category: 'execute', access: { kind: 'shell' } },
  Read: { category: 'read', access: { kind: 'file', pathKey: 'file_path', changes: false } },
  Write: { category: 'edit', access: { kind: 'file', pathKey: 'file_path', changes: true } },
  Edit: { category: 'edit', access: { kind: 'file', pathKey: 'file_path', changes: true } },
  // Glob's pattern is a path glob; Grep's is a regular expression over contents.
  Glob: { category: 'read', access: { kind: 'search', globKey: 'pattern' } },
  Grep: { category: 'read', access: { kind: 'search', globKey: 'glob' } },
  TodoWrite: { category: 'meta', access: { kind: 'other' } },
  Task: { category: 'meta', access: { kind: 'other' }, runsSubagent: true },
} as const satisfies Record<string, BuiltinToolInfo>;

export type BuiltinToolName = keyof typeof BUILTIN_TOOLS;

export const BUILTIN_TOOL_NAMES = Object.keys(BUILTIN_TOOLS) as readonly BuiltinToolName[];

/** Own keys only: a tool name like `constructor` or `__proto__` is not a built-in tool. */
export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return Object.hasOwn(BUILTIN_TOOLS, name);
}

export function builtinToolInfo(name: string): BuiltinToolInfo | undefined {
  return isBuiltinToolName(name) ? BUILTIN_TOOLS[name] : undefined;
}

/** The name and category a built-in `Tool` object takes from this catalogue. */
export function builtinToolIdentity<N extends BuiltinToolName>(name: N): { name: N; category: ToolCategory } {
  return { name, category: BUILTIN_TOOLS[name].category };
}

/** The tool whose `Tool(pattern)` rules match a command line: Bash. */
export function isShellTool(name: string): boolean {
  return builtinToolInfo(name)?.access.kind === 'shell';
}

function changesFile(info: BuiltinToolInfo): boolean {
  return info.access.kind === 'file' && info.access.changes;
}

/** The tools that write the file at `file_path` (Write, Edit): diffs, and what Edit and Write rules cover. */
export const FILE_EDIT_TOOL_NAMES = BUILTIN_TOOL_NAMES.filter((name) => changesFile(BUILTIN_TOOLS[name]));

export function isFileEditTool(name: string): boolean {
  const info = builtinToolInfo(name);
  return info !== undefined && changesFile(info);
}

/** The tools that run a subagent (Task). */
export const SUBAGENT_TOOL_NAMES = BUILTIN_TOOL_NAMES.filter((name) => isSubagentTool(name));

export function isSubagentTool(name: string): boolean {
  return builtinToolInfo(name)?.runsSubagent === true;
}
