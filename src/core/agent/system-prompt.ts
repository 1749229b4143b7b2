import type { TaggedContext } from '../hooks/dispatch-result';
import type { Tool } from './tools/tool';
import type { BuiltinToolName } from './tools/tool-catalog';

const TODO_TOOL: BuiltinToolName = 'TodoWrite';
const TODO_GUIDANCE = `Use ${TODO_TOOL} to plan multi-step work and keep it current; finish every todo or mark it completed before you stop.`;

export function baseSystemPrompt(options: { workspaceRoot: string; tools: readonly Tool[]; extra?: string }): string {
  return [
    "You are Hookpilot, a coding agent working in the user's workspace. Use the tools to read, search, edit files and run commands; keep changes minimal and explain what you did.",
    `Workspace root: ${options.workspaceRoot}. File tools only work inside it.`,
    `Tools: ${options.tools.map((t) => t.name).join(', ')}.`,
    'Hooks configured by the user may block a tool call, ask for approval, or add context in <system-reminder> blocks: treat a block as final and adapt; do not try to get around it.',
    // A subagent's tool list may leave the todo list out: name it only when the model has it.
    options.tools.some((t) => t.name === TODO_TOOL) ? TODO_GUIDANCE : '',
    options.extra ?? '',
  ]
    .filter((line) => line !== '')
    .join('\n\n');
}

/** AtomCode's collect_system_prompt_extensions: SystemPrompt hook contexts are appended. */
export function withExtensions(prompt: string, extensions: readonly TaggedContext[]): string {
  if (extensions.length === 0) return prompt;
  return `${prompt}\n\n# Extensions from hooks\n${extensions.map((e) => `- (${e.hookName}) ${e.content}`).join('\n')}`;
}
