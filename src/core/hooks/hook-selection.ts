import { builtinToolInfo } from '../agent/tools/tool-catalog';
import { physicalPathOf } from '../agent/tools/workspace-paths';
import {
  guardReadings,
  matchPermissionRule,
  parsePermissionRule,
  ruleNamesTool,
  type PermissionRule,
  type RulePlaces,
} from '../permissions/permission-rule';
import { resolvedRuleView, type RuleView } from '../permissions/resolved-rule-view';
import { EVENT_INFO } from './events';
import { matchesContent, matchesValue } from './matcher';
import type { HookDefinition, HookPayload } from './types';

/** Where an `if` rule's paths start: `/x` at the project, `~/x` at the home folder, `x` at the payload's cwd. */
export interface SelectionPlaces {
  projectDir: string;
  home: string;
}

/** Whether a subscribed hook applies to this payload: matcher, content patterns, `if`. */
export function selects(hook: HookDefinition, payload: HookPayload, { projectDir, home }: SelectionPlaces): boolean {
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
    const places = { cwd: payload.cwd || projectDir, projectRoot: projectDir, home };
    return ifMatches(guardReadings(rule), String(payload.tool_name ?? ''), toolInput, places);
  }
  return true;
}

/**
 * As a deny rule matches: a file or search tool's call as given or with its path resolved, so a
 * guard scoped to .env files runs for a Write through a link that leads to one.
 */
function ifMatches(readings: readonly PermissionRule[], toolName: string, input: Record<string, unknown>, places: RulePlaces): boolean {
  const matchesIn = (view: RuleView) =>
    readings.some((rule) => matchPermissionRule(rule, toolName, view.input, view.places) !== 'no-match');
  if (matchesIn({ input, places })) return true;
  const target = pathOf(toolName, input);
  // No file-system look-up for a call the rule cannot name: a tool without a path, or another tool.
  if (target === undefined || !ruleNamesTool(readings[0], toolName)) return false;
  let resolved: RuleView;
  try {
    resolved = resolvedRuleView(input, physicalPathOf(target, places.cwd), places);
  } catch {
    // Where the call lands cannot be told: the guard runs.
    return true;
  }
  return matchesIn(resolved);
}

/** The path a file tool acts on or a search reads, as its `target` gives it to the permission gate. */
function pathOf(toolName: string, input: Record<string, unknown>): string | undefined {
  const access = builtinToolInfo(toolName)?.access;
  const target = access?.kind === 'file' ? input[access.pathKey] : access?.kind === 'search' ? input.path : undefined;
  return typeof target === 'string' ? target : undefined;
}
