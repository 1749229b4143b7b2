import { analyzeBashCommand } from '../../permissions/bash-command';
import { bashAllowedBy } from '../../permissions/bash-rules';
import {
  guardReadings,
  matchPermissionRule,
  parsePermissionRule,
  ruleNamesTool,
  type PermissionRule,
  type RuleMatch,
  type RulePlaces,
} from '../../permissions/permission-rule';
import type { RuleView } from '../../permissions/resolved-rule-view';
import type { PermissionSignal, Verdict } from '../../permissions/precedence';
import { FILE_EDIT_TOOL_NAMES, isShellTool } from '../tools/tool-catalog';
import { toAbsolutePath, type WorkspaceScope } from '../tools/workspace-paths';
import { argumentPathsProblem } from './bash-argument-paths';
import { redirectReadsProblem, redirectWritesProblem } from './bash-gate';
import type { PermissionSettings } from './permission-settings';

export interface CompiledRule {
  verdict: Verdict;
  rule: PermissionRule;
}

type ToolInput = Record<string, unknown>;

/** One tool call as the rules see it. */
export interface RuleCall {
  toolName: string;
  input: ToolInput;
  /** Where its rules' patterns start; `places.cwd` is where its relative paths start. */
  places: RulePlaces;
  /** A file tool's input with its path as the file system resolves it, and the physical places. */
  physical?: RuleView;
  scope: WorkspaceScope;
  /** Whether an Edit of this file would be allowed without a person (for Bash redirections). */
  editAllowed: (file: string) => boolean;
}

export function compileRules(settings: PermissionSettings): CompiledRule[] {
  const out: CompiledRule[] = [];
  for (const [verdict, list] of [
    ['deny', settings.deny],
    ['ask', settings.ask],
    ['allow', settings.allow],
  ] as const) {
    for (const text of list) {
      const rule = parsePermissionRule(text) ?? (verdict === 'allow' ? undefined : wholeToolRule(text));
      if (!rule) continue;
      for (const reading of verdict === 'allow' ? [rule] : guardReadings(rule)) out.push({ verdict, rule: reading });
    }
  }
  return out;
}

/**
 * A deny or ask rule that does not parse (`Bash(rm -rf *`) stands for every call of the tool
 * its text starts with, of every tool when it names none: a broken guard is never fewer guards.
 * An allow rule that does not parse grants nothing. The hosts say so (unparseableRuleProblem).
 */
function wholeToolRule(text: string): PermissionRule {
  return { tool: /^\s*([A-Za-z0-9_*|-]+)/.exec(text)?.[1] ?? '*', text };
}

/** Why a settings rule is not a rule and what it does as it stands (compileRules); undefined for a rule. */
export function unparseableRuleProblem(verdict: Verdict, text: string): string | undefined {
  if (parsePermissionRule(text)) return undefined;
  const { tool } = wholeToolRule(text);
  const calls = tool === '*' ? 'every tool call' : `every ${tool} call`;
  const effect = verdict === 'allow' ? 'allows nothing' : verdict === 'deny' ? `denies ${calls}` : `asks before ${calls}`;
  return `${JSON.stringify(text)} is not a rule like Bash(git *); as it stands it ${effect}`;
}

/**
 * The signal of one set of rules (settings or session). Deny rules first, then ask, then
 * allow: the strongest matching rule speaks. A deny or ask rule matches when any subcommand of
 * a Bash line does; a deny rule that might match but cannot be checked (an expansion, a line
 * that does not parse) makes the call ask. `alsoAllowing` are allow rules that may complete
 * a Bash grant (a line granted partly by settings, partly by this session).
 */
export function ruleSignal(
  rules: readonly CompiledRule[],
  alsoAllowing: readonly CompiledRule[],
  call: RuleCall,
  label: string,
): PermissionSignal | undefined {
  const signal = (verdict: Verdict, rule: PermissionRule, reason = `${verdict} ${label} ${rule.text}`) => ({
    verdict,
    source: `${label} ${rule.text}`,
    reason,
  });
  const matches = (verdict: Verdict) =>
    rules.filter((r) => r.verdict === verdict).map((r) => ({ rule: r.rule, match: anyViewMatch(r.rule, call) }));
  const denies = matches('deny');
  const deny = denies.find((m) => m.match === 'match') ?? bashWriteDenied(rules, call);
  if (deny) return signal('deny', deny.rule);
  const unsure = denies.find((m) => m.match === 'unparseable');
  if (unsure) {
    return signal('ask', unsure.rule, `cannot tell whether deny ${label} ${unsure.rule.text} matches this command: a person decides`);
  }
  const ask = matches('ask').find((m) => m.match !== 'no-match');
  if (ask) return signal('ask', ask.rule);
  return isShellTool(call.toolName) ? bashAllowSignal(rules, alsoAllowing, call, label) : fileAllowSignal(rules, call, label);
}

function fileAllowSignal(rules: readonly CompiledRule[], call: RuleCall, label: string): PermissionSignal | undefined {
  // Both views must match: Edit(src/**) does not grant `src/link` when it leads to `.env`.
  const grants = (rule: PermissionRule) =>
    views(call).every((v) => matchPermissionRule(rule, call.toolName, v.input, v.places) === 'match');
  const hit = rules.find((r) => r.verdict === 'allow' && grants(r.rule));
  return hit && { verdict: 'allow', source: `${label} ${hit.rule.text}`, reason: `allow ${label} ${hit.rule.text}` };
}

function bashAllowSignal(
  rules: readonly CompiledRule[],
  alsoAllowing: readonly CompiledRule[],
  call: RuleCall,
  label: string,
): PermissionSignal | undefined {
  const own = rules.filter((r) => r.verdict === 'allow' && ruleNamesTool(r.rule, call.toolName));
  if (typeof call.input.command !== 'string' || own.length === 0) return undefined;
  const bashRules = [...own, ...alsoAllowing.filter((r) => r.verdict === 'allow' && ruleNamesTool(r.rule, call.toolName))];
  const analysis = analyzeBashCommand(call.input.command);
  const granted = bashAllowedBy(
    bashRules.map((r) => r.rule.pattern),
    analysis,
  );
  if (!granted.allowed || analysis.kind !== 'parsed') return undefined;
  // The bare `Bash` rule grants `cp` and `tee` anyway: inside the workspace, its redirections are no different.
  const editAllowed = granted.anyCommand ? () => true : call.editAllowed;
  if (redirectWritesProblem(analysis, granted.writes, call.scope, editAllowed) !== undefined) return undefined;
  if (!granted.anyCommand && redirectReadsProblem(analysis, call.scope) !== undefined) return undefined;
  if (!granted.anyCommand && argumentPathsProblem(analysis, call.scope) !== undefined) return undefined;
  // Named in the audit: the rules that match some subcommand.
  const used = bashRules.filter((r) => matchPermissionRule(r.rule, call.toolName, call.input, call.places) === 'match');
  const texts = used.map((r) => r.rule.text).join(', ');
  return { verdict: 'allow', source: `${label} ${texts}`, reason: `allow ${label} ${texts}` };
}

function views(call: RuleCall): RuleView[] {
  return call.physical ? [call, call.physical] : [call];
}

/** Deny and ask rules for files match the path as given or as resolved: a symlink does not get around them. */
function anyViewMatch(rule: PermissionRule, call: RuleCall): RuleMatch {
  const results = views(call).map((v) => matchPermissionRule(rule, call.toolName, v.input, v.places));
  return results.includes('match') ? 'match' : results.includes('unparseable') ? 'unparseable' : 'no-match';
}

/** A Bash redirection writes a file: an Edit or Write deny rule for that file denies the line. */
function bashWriteDenied(rules: readonly CompiledRule[], call: RuleCall): { rule: PermissionRule } | undefined {
  if (!isShellTool(call.toolName) || typeof call.input.command !== 'string') return undefined;
  const analysis = analyzeBashCommand(call.input.command);
  if (analysis.kind !== 'parsed') return undefined;
  const targets = analysis.redirects.flatMap((r) => (r.write && r.target !== undefined ? [toAbsolutePath(r.target, call.places.cwd)] : []));
  return rules.find((r) => r.verdict === 'deny' && targets.some((file) => editRuleMatches(r.rule, file, call.places)));
}

export function editRuleMatches(rule: PermissionRule, file: string, places: RulePlaces): boolean {
  return FILE_EDIT_TOOL_NAMES.some((tool) => matchPermissionRule(rule, tool, { file_path: file }, places) === 'match');
}
