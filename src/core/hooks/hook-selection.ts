import { builtinToolInfo } from '../agent/tools/tool-catalog';
import { physicalPathOf } from '../agent/tools/workspace-paths';
import { matchPermissionRule, parsePermissionRule, type PermissionRule } from '../permissions/permission-rule';
import { resolvedRuleView, type RuleView } from '../permissions/resolved-rule-view';
import { EVENT_INFO } from './events';
import { matchesContent, matchesValue } from './matcher';
import type { HookDefinition, HookPayload } from './types';

/** Whether a subscribed hook applies to this payload: matcher, content patterns, `if`. */
export function selects(hook: HookDefinition, payload: HookPayload, cwd: string): boolean {
  const info = EVENT_INFO[payload.hook_event_name];
  if (info.matchField) {
    const value = payload[info.matchField];
    if (!matchesValue(hook.matcher, typeof value === 'string' ? value : undefined, info.narrowExactSet)) return false;
  }
  if (!info.toolEvent) return hook.if === undefined;
  const toolInput = (payload.tool_input ?? {}) as Record<string, unknown>;
  if (!matchesContent(hook.contentPatterns, toolInput)) return false;
  if (hook.if !== undefined) {
    const rule = parsePermissionRule(hook.if);
    if (!rule) return true;
    // An `if` that cannot be evaluated fails open: the hook runs (Claude Code).
    return ifMatches(rule, String(payload.tool_name ?? ''), toolInput, payload.cwd || cwd);
  }
  return true;
}

/**
 * As a deny rule matches: a file or search tool's call as given or with its path resolved, so a
 * guard scoped to .env files runs for a Write through a link that leads to one.
 */
function ifMatches(rule: PermissionRule, toolName: string, input: Record<string, unknown>, cwd: string): boolean {
  if (matchPermissionRule(rule, toolName, input, cwd) !== 'no-match') return true;
  const target = pathOf(toolName, input);
  // No file-system look-up for a call the rule cannot name: a tool without a path, or another tool.
  const namesTool = () => matchPermissionRule({ tool: rule.tool, text: rule.text }, toolName, {}, cwd) === 'match';
  if (target === undefined || !namesTool()) return false;
  let resolved: RuleView;
  try {
    resolved = resolvedRuleView(input, physicalPathOf(target, cwd), cwd);
  } catch {
    // Where the call lands cannot be told: the guard runs.
    return true;
  }
  return matchPermissionRule(rule, toolName, resolved.input, resolved.cwd) !== 'no-match';
}

/** The path a file tool acts on or a search reads, as its `target` gives it to the permission gate. */
function pathOf(toolName: string, input: Record<string, unknown>): string | undefined {
  const access = builtinToolInfo(toolName)?.access;
  const target = access?.kind === 'file' ? input[access.pathKey] : access?.kind === 'search' ? input.path : undefined;
  return typeof target === 'string' ? target : undefined;
}
