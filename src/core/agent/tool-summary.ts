import { mcpServerOf } from '../mcp/mcp-names';
import { isBuiltinToolName, type BuiltinToolName } from './tools/tool-catalog';

type Str = (key: string) => string | undefined;
type Summary = (str: Str, input: Record<string, unknown>, toolName: string) => string;

const searchSummary: Summary = (str, _input, toolName) => `${toolName} ${str('pattern')}${str('path') ? ` in ${str('path')}` : ''}`;

/**
 * Each built-in tool's line, keyed by the catalogue so that a new or renamed tool fails to
 * compile until it has one; undefined: the generic line (TodoWrite is never asked about).
 */
const SUMMARIES: Record<BuiltinToolName, Summary | undefined> = {
  Bash: (str) => `Run: ${clip(str('command') ?? '', 200)}`,
  Write: (str) => `Write ${str('file_path')} (${(str('content') ?? '').split('\n').length} lines)`,
  Edit: (str, input) => `Edit ${str('file_path')}${input.replace_all ? ' (all occurrences)' : ''}`,
  Read: (str) => `Read ${str('file_path')}`,
  Glob: searchSummary,
  Grep: searchSummary,
  Task: (str) => `Subagent: ${clip(str('description') ?? str('prompt') ?? '', 120)}`,
  TodoWrite: undefined,
};

/** One line that says what a tool call will do, for approvals and tool cards. */
export function summarizeToolCall(toolName: string, input: Record<string, unknown>): string {
  const str: Str = (k) => (typeof input[k] === 'string' ? (input[k] as string) : undefined);
  const summary = isBuiltinToolName(toolName) ? SUMMARIES[toolName] : undefined;
  if (summary) return summary(str, input, toolName);
  const server = mcpServerOf(toolName);
  if (server !== undefined) return `MCP ${server}: ${toolName.slice(`mcp__${server}__`.length)} ${clip(JSON.stringify(input), 160)}`;
  return `${toolName} ${clip(JSON.stringify(input), 160)}`;
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
