import { createBashTool, type BashSession } from './bash-tool';
import { createEditTool } from './edit-tool';
import { createGlobTool } from './glob-tool';
import { createGrepTool } from './grep-tool';
import { createReadTool } from './read-tool';
import type { ProcessRunner } from '../../process/process-runner';
import type { TodoStore } from './todo-store';
import { createTodoWriteTool } from './todo-write-tool';
import type { Tool } from './tool';
import { createWriteTool } from './write-tool';

/**
 * The built-in tools under Claude Code's names. Task (subagents) is added by the agent loop.
 * `bashSession`: see createBashTool.
 */
export function createBuiltinTools(todoStore: TodoStore, bashRunner?: ProcessRunner, bashSession?: BashSession): Tool[] {
  return [
    createBashTool(bashRunner, bashSession),
    createReadTool(),
    createWriteTool(),
    createEditTool(),
    createGlobTool(),
    createGrepTool(),
    createTodoWriteTool(todoStore),
  ];
}
