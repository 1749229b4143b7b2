import { EVENT_INFO, type HookEventName } from './events';
import { isLockedSource, isWorkspaceSourced } from './hook-switches';
import type { HookDefinition } from './types';

export interface TimeoutDefaults {
  observerMs: number;
  interceptorMs: number;
  approvalMs: number;
  /** command and http hooks; undefined: Claude Code's defaults (processHookTimeoutMs). */
  commandMs?: number;
}

export const DEFAULT_TIMEOUTS: TimeoutDefaults = { observerMs: 500, interceptorMs: 5_000, approvalMs: 60_000 };

/** Claude Code's default for command and http hooks: 600 s, 30 s on UserPromptSubmit (a Stop hook may run a test suite). */
export function processHookTimeoutMs(event: HookEventName): number {
  return event === 'UserPromptSubmit' ? 30_000 : 600_000;
}

/**
 * How long each hook may run: its own `timeout`, else the defaults of where it comes from.
 * The workspace's `defaults` time its own hooks alone, never the person's guards.
 */
export class HookTimeouts {
  private person: TimeoutDefaults;
  private workspace: TimeoutDefaults;

  /** `base`: the host's own defaults, under what config sets. */
  constructor(private readonly base: Partial<TimeoutDefaults> = {}) {
    this.person = { ...DEFAULT_TIMEOUTS, ...definedOnly(base) };
    this.workspace = this.person;
  }

  /** Config `defaults` change on reload: the person's for every hook, the workspace's over them for its own. */
  set(person: Partial<TimeoutDefaults>, workspace: Partial<TimeoutDefaults> = {}): void {
    this.person = { ...DEFAULT_TIMEOUTS, ...definedOnly(this.base), ...definedOnly(person) };
    this.workspace = { ...this.person, ...definedOnly(workspace) };
  }

  of(hook: HookDefinition): number {
    if (hook.timeoutMs !== undefined) return hook.timeoutMs;
    // The policy sets no defaults: its locked hooks keep Hookpilot's, out of the person's and the workspace's reach.
    const timeouts = isLockedSource(hook.source.kind) ? DEFAULT_TIMEOUTS : isWorkspaceSourced(hook) ? this.workspace : this.person;
    if (hook.spec.type === 'command' || hook.spec.type === 'http' || hook.spec.type === 'mcp_tool')
      return timeouts.commandMs ?? processHookTimeoutMs(hook.event);
    // Claude Code's defaults for model hooks: 30 s for a prompt, 60 s for an agent.
    if (hook.spec.type === 'prompt') return 30_000;
    if (hook.spec.type === 'agent') return 60_000;
    const kind = EVENT_INFO[hook.event].kind;
    return kind === 'observe' ? timeouts.observerMs : kind === 'approve' ? timeouts.approvalMs : timeouts.interceptorMs;
  }
}

function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}
