import type { HookDefinition, HookSourceKind } from './types';

/** Claude Code's settings files, read in place: their `disableAllHooks` is their own switch. */
export const CLAUDE_SOURCES: ReadonlySet<HookSourceKind> = new Set(['claudeUser', 'claudeProject', 'claudeLocal']);

/** Sources that come from the workspace and so run only when it is trusted. */
export const WORKSPACE_SOURCES: ReadonlySet<HookSourceKind> = new Set(['workspace', 'folder', 'hooksJson', 'claudeProject', 'claudeLocal']);

/**
 * A hook the workspace contributed: its settings (`defaults`, allowlists, `disableAllHooks`)
 * reach these hooks only, never the user's own guards.
 */
export function isWorkspaceSourced(hook: HookDefinition): boolean {
  return WORKSPACE_SOURCES.has(hook.source.kind);
}

/** Hooks of the machine's managed policy: always trusted, never turned off from below it. */
export function isLockedSource(kind: HookSourceKind): boolean {
  return kind === 'managed';
}

/**
 * The kill switches of a merged configuration, one per scope (docs/hooks.md#turning-hooks-off):
 * the person's own sources, the workspace's, Claude Code's settings files, and the managed
 * policy, which also decides whether any other source's hooks run at all. A switch reaches
 * its own scope and those below it: the workspace's never reaches the user's hooks.
 */
export interface HookSwitches {
  /** `disableAllHooks` of the person's Hookpilot sources (user settings, --hooks files): every hook but the policy's. */
  disableAllHooks?: boolean;
  /** `disableAllHooks` of the workspace's Hookpilot sources (its settings, hooks.json): the workspace's hooks only. */
  disableWorkspaceHooks?: boolean;
  /** `disableAllHooks` of ~/.claude/settings.json: the hooks of Claude Code's three files. */
  disableClaudeHooks?: boolean;
  /** `disableAllHooks` of .claude/settings.json and settings.local.json, local over project: those two files' hooks. */
  disableClaudeProjectHooks?: boolean;
  /** `disableAllHooks` in the managed policy: the only switch that reaches managed hooks. */
  disableManagedHooks?: boolean;
  /** `allowManagedHooksOnly` in the managed policy: every other configured hook is off. */
  managedHooksOnly?: boolean;
}

export type SwitchedOff = 'all-disabled' | 'managed-only';

/** Why a hook of `kind` is off by a switch, if it is. Built-in and session hooks are code, not configuration. */
export function switchedOff(kind: HookSourceKind, switches: HookSwitches): SwitchedOff | undefined {
  if (kind === 'builtin' || kind === 'session') return undefined;
  if (isLockedSource(kind)) return switches.disableManagedHooks ? 'all-disabled' : undefined;
  if (switches.managedHooksOnly) return 'managed-only';
  const workspace = WORKSPACE_SOURCES.has(kind);
  const claude = CLAUDE_SOURCES.has(kind);
  // The person's own switch is the master one; each other reaches only its scope's hooks.
  const off =
    switches.disableAllHooks ||
    (workspace && switches.disableWorkspaceHooks) ||
    (claude && switches.disableClaudeHooks) ||
    (claude && workspace && switches.disableClaudeProjectHooks);
  return off ? 'all-disabled' : undefined;
}
