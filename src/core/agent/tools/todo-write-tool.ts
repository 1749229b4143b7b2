import { z } from 'zod';
import { todoItemSchema, type TodoItem, type TodoStore } from './todo-store';
import type { Tool, ToolResult } from './tool';
import { builtinToolIdentity } from './tool-catalog';

export const todoWriteInputSchema = z.object({
  todos: z.array(todoItemSchema).describe('The complete, updated todo list (it replaces the previous one).'),
});
export type TodoWriteInput = z.infer<typeof todoWriteInputSchema>;

/** Claude Code's TodoWrite `tool_response`. */
export interface TodoWriteResponse {
  oldTodos: TodoItem[];
  newTodos: TodoItem[];
}

function describeList(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return 'The todo list is now empty.';
  const marks = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const;
  return todos
    .map((todo) => `${marks[todo.status]} ${todo.status === 'in_progress' ? (todo.activeForm ?? todo.content) : todo.content}`)
    .join('\n');
}

export function createTodoWriteTool(store: TodoStore): Tool<TodoWriteInput> {
  return {
    ...builtinToolIdentity('TodoWrite'),
    description:
      'Creates or updates your todo list for the current task: send the whole list each time, with each item ' +
      '"pending", "in_progress" or "completed". Use it for work with several steps; keep one item in progress at a ' +
      'time and mark items completed as soon as they are done. Unfinished items keep you from stopping.',
    inputSchema: todoWriteInputSchema,
    async run(input): Promise<ToolResult> {
      const oldTodos = store.set(input.todos);
      const response: TodoWriteResponse = { oldTodos: [...oldTodos], newTodos: [...store.get()] };
      return { ok: true, content: `Todo list updated:\n${describeList(store.get())}`, response };
    },
  };
}
