import type { HookView } from '../../../src/shared/manager-views';

/** A Hook Manager row for a command hook of .vscode/hooks.json on PreToolUse; `over` sets what a test needs. */
export function makeHookView(id: string, over: Partial<HookView> = {}): HookView {
  return {
    id,
    name: id,
    event: 'PreToolUse',
    sourceKind: 'hooksJson',
    file: '.vscode/hooks.json',
    line: 4,
    matcher: 'Bash',
    handlerType: 'command',
    target: `./hooks/${id}.sh`,
    priority: 0,
    enabled: true,
    trusted: true,
    active: true,
    errorCount: 0,
    runCount: 0,
    ...over,
  };
}
