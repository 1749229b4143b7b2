import path from 'node:path';
import { commandWords, findCommandScript } from '../hooks/config/command-script';
import type { HookDefinition } from '../hooks/types';

const CONFIG_FILES = ['.vscode/hooks.json', '.vscode/settings.json', '.claude/settings.json', '.claude/settings.local.json'];

/**
 * The hook configuration files and the scripts its command hooks run: an agent that could
 * rewrite its own guards would not be guarded (research §5.8).
 */
export function protectedHookFiles(projectDir: string, hooks: readonly HookDefinition[]): string[] {
  const files = new Set(CONFIG_FILES.map((f) => path.join(projectDir, f)));
  for (const hook of hooks) {
    if (hook.spec.type !== 'command') continue;
    const words = commandWords(hook.spec.command, hook.spec.args, (name) => (name === 'CLAUDE_PROJECT_DIR' || name === 'HOOKPILOT_PROJECT_DIR' ? projectDir : undefined));
    const script = findCommandScript(words);
    if (script) files.add(path.resolve(projectDir, script.path));
  }
  return [...files];
}
