import { matchPermissionRule, parsePermissionRule } from '../permissions/permission-rule';
import { EVENT_INFO } from './events';
import { matchesContent, matchesValue } from './matcher';
import type { HookDefinition, HookPayload } from './types';

/** Whether a subscribed hook applies to this payload: matcher, content patterns, `if`. */
export function selects(hook: HookDefinition, payload: HookPayload, cwd: string): boolean {
  const info = EVENT_INFO[payload.hook_event_name];
  if (info.matchField) {
    const value = payload[info.matchField];
    if (!matchesValue(hook.matcher, typeof value === 'string' ? value : undefined)) return false;
  }
  if (!info.toolEvent) return hook.if === undefined;
  const toolInput = (payload.tool_input ?? {}) as Record<string, unknown>;
  if (!matchesContent(hook.contentPatterns, toolInput)) return false;
  if (hook.if !== undefined) {
    const rule = parsePermissionRule(hook.if);
    if (!rule) return true;
    // An `if` that cannot be evaluated fails open: the hook runs (Claude Code).
    return matchPermissionRule(rule, String(payload.tool_name ?? ''), toolInput, payload.cwd || cwd) !== 'no-match';
  }
  return true;
}
