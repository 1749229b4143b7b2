import { describe, expect, it } from 'vitest';
import { createBuiltinTools } from '../../src/core/agent/tools/builtin-tools';
import { TodoStore, type TodoItem } from '../../src/core/agent/tools/todo-store';
import { createTodoWriteTool } from '../../src/core/agent/tools/todo-write-tool';
import { toolFunctionDefinition, type ToolContext } from '../../src/core/agent/tools/tool';

const context: ToolContext = {
  workspaceRoot: process.cwd(),
  cwd: process.cwd(),
  signal: new AbortController().signal,
  env: {},
  sessionId: 's1',
};

describe('built-in tool list', () => {
  it("has Claude Code's names and approval categories", () => {
    const tools = createBuiltinTools(new TodoStore());
    expect(tools.map((tool) => [tool.name, tool.category])).toEqual([
      ['Bash', 'execute'],
      ['Read', 'read'],
      ['Write', 'edit'],
      ['Edit', 'edit'],
      ['Glob', 'read'],
      ['Grep', 'read'],
      ['TodoWrite', 'meta'],
    ]);
  });

  it('turns each tool into an OpenAI function definition with a JSON Schema of its input', () => {
    const definitions = Object.fromEntries(createBuiltinTools(new TodoStore()).map((tool) => [tool.name, toolFunctionDefinition(tool)]));
    const bash = definitions.Bash;
    expect(bash.type).toBe('function');
    expect(bash.function.name).toBe('Bash');
    expect(bash.function.description).toMatch(/shell command/);
    expect(bash.function.parameters).not.toHaveProperty('$schema');
    expect(bash.function.parameters).toMatchObject({
      type: 'object',
      required: ['command'],
      properties: { command: { type: 'string' }, timeout: { type: 'integer', maximum: 600000 }, run_in_background: { type: 'boolean' } },
    });
    expect(definitions.Edit.function.parameters).toMatchObject({ required: ['file_path', 'old_string', 'new_string'] });
    expect(definitions.Grep.function.parameters).toMatchObject({
      required: ['pattern'],
      properties: { '-i': { type: 'boolean' }, output_mode: { enum: ['content', 'files_with_matches', 'count'] } },
    });
    expect(definitions.TodoWrite.function.parameters).toMatchObject({
      properties: { todos: { type: 'array', items: { properties: { status: { enum: ['pending', 'in_progress', 'completed'] } } } } },
    });
  });
});

describe('TodoWrite tool and TodoStore', () => {
  const first: TodoItem[] = [
    { content: 'Write the parser', status: 'in_progress', activeForm: 'Writing the parser' },
    { content: 'Run the tests', status: 'pending' },
  ];

  it('replaces the list and reports old and new todos', async () => {
    const store = new TodoStore();
    const tool = createTodoWriteTool(store);
    expect(store.hasUnfinished()).toBe(false);

    const created = await tool.run(tool.inputSchema.parse({ todos: first }), context);
    expect(created).toEqual({
      ok: true,
      content: 'Todo list updated:\n[~] Writing the parser\n[ ] Run the tests',
      response: { oldTodos: [], newTodos: first },
    });
    expect(store.get()).toEqual(first);
    expect(store.hasUnfinished()).toBe(true);

    const done = first.map((todo) => ({ ...todo, status: 'completed' as const }));
    const finished = await tool.run(tool.inputSchema.parse({ todos: done }), context);
    expect(finished.ok && finished.response).toEqual({ oldTodos: first, newTodos: done });
    expect(store.hasUnfinished()).toBe(false);
  });

  it('keeps its own copy of the list', () => {
    const store = new TodoStore();
    const todos: TodoItem[] = [{ content: 'a', status: 'pending' }];
    store.set(todos);
    todos[0].status = 'completed';
    expect(store.get()[0].status).toBe('pending');
  });

  it('rejects unknown statuses and empty items in its schema', () => {
    const tool = createTodoWriteTool(new TodoStore());
    expect(tool.inputSchema.safeParse({ todos: [{ content: 'a', status: 'done' }] }).success).toBe(false);
    expect(tool.inputSchema.safeParse({ todos: [{ content: '', status: 'pending' }] }).success).toBe(false);
  });
});
