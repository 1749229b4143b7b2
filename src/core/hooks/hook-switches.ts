import type { HookSourceKind } from './types';

/** Claude Code's settings files, read in place: their `disableAllHooks` is their own switch. */
export const CLAUDE_SOURCES: ReadonlySet<HookSourceKind> = new Set(['claudeUser', 'claudeProject', 'claudeLocal']);

/** Hooks of the machine's managed policy: always trusted, never turned off from below it. */
export function isLockedSource(kind: HookSourceKind): boolean {
  return kind === 'managed';
}

/**
 * The kill switches of a merged configuration, one per scope (docs/hooks.md#turning-hooks-off):
 * Hookpilot's own sources, Claude Code's settings files, and the managed policy, which also
 * decides whether any other source's hooks run at all.
 */
export interface HookSwitches {
  /** `disableAllHooks` of Hookpilot's sources (settings, hooks.json, --hooks files): every hook but the policy's. */
  disableAllHooks?: boolean;
  /** `disableAllHooks` of Claude Code's settings files, by Claude Code's precedence. */
  disableClaudeHooks?: boolean;
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
  // Hookpilot's own switch is the master one; Claude Code's reaches only its files' hooks.
  const off = switches.disableAllHooks || (CLAUDE_SOURCES.has(kind) && switches.disableClaudeHooks);
  return off ? 'all-disabled' : undefined;
}
