import { z } from 'zod';

export const todoStatusSchema = z.enum(['pending', 'in_progress', 'completed']);

export const todoItemSchema = z.object({
  content: z.string().min(1).describe('What needs doing, in the imperative ("Run the tests").'),
  status: todoStatusSchema,
  activeForm: z.string().optional().describe('The same task in the present continuous ("Running the tests"), shown while in progress.'),
  id: z.string().optional(),
});
export type TodoItem = z.infer<typeof todoItemSchema>;

/** One session's todo list, written by TodoWrite and read by the TodoGuard before the agent stops. */
export class TodoStore {
  private todos: readonly TodoItem[] = [];

  get(): readonly TodoItem[] {
    return this.todos;
  }

  /** Replaces the whole list (TodoWrite always sends all of it); returns the previous one. */
  set(todos: readonly TodoItem[]): readonly TodoItem[] {
    const previous = this.todos;
    this.todos = todos.map((todo) => ({ ...todo }));
    return previous;
  }

  hasUnfinished(): boolean {
    return this.todos.some((todo) => todo.status !== 'completed');
  }
}
