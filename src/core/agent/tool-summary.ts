import { mcpServerOf } from '../mcp/mcp-names';

/** One line that says what a tool call will do, for approvals and tool cards. */
export function summarizeToolCall(toolName: string, input: Record<string, unknown>): string {
  const str = (k: string) => (typeof input[k] === 'string' ? (input[k] as string) : undefined);
  switch (toolName) {
    case 'Bash':
      return `Run: ${clip(str('command') ?? '', 200)}`;
    case 'Write':
      return `Write ${str('file_path')} (${(str('content') ?? '').split('\n').length} lines)`;
    case 'Edit':
      return `Edit ${str('file_path')}${input.replace_all ? ' (all occurrences)' : ''}`;
    case 'Read':
      return `Read ${str('file_path')}`;
    case 'Glob':
    case 'Grep':
      return `${toolName} ${str('pattern')}${str('path') ? ` in ${str('path')}` : ''}`;
    case 'Task':
      return `Subagent: ${clip(str('description') ?? str('prompt') ?? '', 120)}`;
    default: {
      const server = mcpServerOf(toolName);
      if (server !== undefined) return `MCP ${server}: ${toolName.slice(`mcp__${server}__`.length)} ${clip(JSON.stringify(input), 160)}`;
      return `${toolName} ${clip(JSON.stringify(input), 160)}`;
    }
  }
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
