import { z } from 'zod';
import type { Tool, ToolResult } from './tools/tool';
import { builtinToolIdentity } from './tools/tool-catalog';

export const taskInputSchema = z.object({
  description: z.string().describe('A short (3-5 word) description of the task'),
  prompt: z.string().describe('The task for the subagent to perform, with all the context it needs'),
  subagent_type: z.string().optional().describe('The type of agent to use (default: general-purpose)'),
});
export type TaskInput = z.infer<typeof taskInputSchema>;

/** Claude Code's Task tool: a subagent with its own context works on a self-contained task. */
export function createTaskTool(
  runSubagent: (input: TaskInput, signal: AbortSignal) => Promise<ToolResult>,
  agents: ReadonlyArray<{ name: string; description: string }> = [],
): Tool<TaskInput> {
  const types = agents.map((a) => `\n- ${a.name}: ${a.description.slice(0, 300)}`).join('');
  const identity = builtinToolIdentity('Task');
  return {
    ...identity,
    description:
      'Launch a subagent to handle a self-contained task (research, a focused change) in its own context. It returns its final answer.' +
      `\nSubagent types:\n- general-purpose (default), Explore, Plan: the built-in tools except ${identity.name}${types}`,
    inputSchema: taskInputSchema,
    run: (input, ctx) => runSubagent(input, ctx.signal),
  };
}
