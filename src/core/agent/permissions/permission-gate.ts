import { analyzeBashCommand } from '../../permissions/bash-command';
import { bashAllowedBy } from '../../permissions/bash-rules';
import { matchPermissionRule, parsePermissionRule, type PermissionRule, type RuleMatch } from '../../permissions/permission-rule';
import { resolvePermission, type PermissionResolution, type PermissionSignal, type Verdict } from '../../permissions/precedence';
import type { Tool, ToolCategory } from '../tools/tool';
import { OutsideWorkspaceError, physicalPath, resolveInWorkspace, toAbsolutePath, type WorkspaceScope } from '../tools/workspace-paths';
import { bashProtectedCheck, redirectWritesProblem } from './bash-gate';
import type { PermissionMode, PermissionSettings } from './permission-settings';
import { protectedTargetOf, protectedTargets } from './protected-targets';

export interface GateContext {
  workspaceRoot: string;
  cwd: string;
  /** Files the agent may only change with a person's approval (hook configs and scripts). */
  protectedPaths: readonly string[];
}

interface CompiledRule {
  verdict: Verdict;
  rule: PermissionRule;
}

/**
 * Collects the permission signals for one tool call (system checks, settings rules,
 * session rules, the hook verdict, the mode) and resolves them with P0-P8.
 */
export class PermissionGate {
  private sessionRules: CompiledRule[] = [];

  constructor(private readonly settings: () => PermissionSettings) {}

  allowForSession(ruleText: string): void {
    const rule = parsePermissionRule(ruleText);
    if (rule) this.sessionRules.push({ verdict: 'allow', rule });
  }

  /** P2: final for this session; no hook, mode or later allow can turn it around. */
  denyForSession(ruleText: string): void {
    const rule = parsePermissionRule(ruleText);
    if (rule) this.sessionRules.push({ verdict: 'deny', rule });
  }

  evaluate(tool: Tool, input: Record<string, unknown>, hook: PermissionSignal | undefined, ctx: GateContext): PermissionResolution {
    const settings = this.settings();
    const settingsRules = compile(settings);
    const call: RuleCall = {
      toolName: tool.name,
      input,
      cwd: ctx.cwd,
      physical: physicalView(tool, input, ctx, settings),
      scope: { workspaceRoot: ctx.workspaceRoot, cwd: ctx.cwd, additionalDirectories: settings.additionalDirectories },
      // A Bash redirection is allowed where an Edit of its target would be.
      editAllowed: (file) =>
        settings.mode === 'acceptEdits' ||
        [...settingsRules, ...this.sessionRules].some((r) => r.verdict === 'allow' && editRuleMatches(r.rule, file, ctx.cwd)),
    };
    return resolvePermission({
      system: this.systemCheck(tool, input, settings, ctx),
      toolRule: ruleSignal(settingsRules, [], call, 'rule'),
      // Allow rules combine: a Bash line may be granted partly by settings, partly by this session.
      sessionRule: ruleSignal(this.sessionRules, settingsRules, call, 'session rule'),
      hook,
      implicit: implicitVerdict(settings.mode, tool.category),
    });
  }

  private systemCheck(tool: Tool, input: Record<string, unknown>, settings: PermissionSettings, ctx: GateContext): PermissionSignal | undefined {
    if (settings.mode === 'plan' && (tool.category === 'edit' || tool.category === 'execute')) {
      return { verdict: 'deny', source: 'plan mode', reason: 'plan mode is read-only: no edits or commands' };
    }
    if (tool.name === 'Bash' && typeof input.command === 'string') {
      return bashProtectedCheck(input.command, ctx.cwd, protectedTargets(ctx.protectedPaths, ctx.workspaceRoot));
    }
    const target = tool.target?.(input);
    if (target === undefined) return undefined;
    let physical: string;
    try {
      physical = resolveInWorkspace(target, { workspaceRoot: ctx.workspaceRoot, cwd: ctx.cwd, additionalDirectories: settings.additionalDirectories });
    } catch (err) {
      if (err instanceof OutsideWorkspaceError) return { verdict: 'deny', source: 'workspace boundary', reason: err.message };
      throw err;
    }
    // Compared by physical path: `vs/hooks.json` with `vs -> .vscode` is .vscode/hooks.json.
    const hit = tool.category === 'edit' ? protectedTargetOf(physical, ctx.cwd, protectedTargets(ctx.protectedPaths, ctx.workspaceRoot)) : undefined;
    if (hit) return { verdict: 'ask', source: 'protected file', reason: `${hit.shown} configures hooks: a person must approve changes to it` };
    return undefined;
  }
}

interface RuleCall {
  toolName: string;
  input: Record<string, unknown>;
  cwd: string;
  /** A file tool's input with its path as the file system resolves it, and the physical cwd. */
  physical?: { input: Record<string, unknown>; cwd: string };
  scope: WorkspaceScope;
  editAllowed: (file: string) => boolean;
}

function compile(settings: PermissionSettings): CompiledRule[] {
  const out: CompiledRule[] = [];
  for (const [verdict, list] of [['deny', settings.deny], ['ask', settings.ask], ['allow', settings.allow]] as const) {
    for (const text of list) {
      const rule = parsePermissionRule(text);
      if (rule) out.push({ verdict, rule });
    }
  }
  return out;
}

/**
 * Deny rules first, then ask, then allow: the strongest matching rule speaks. A deny or ask
 * rule matches when any subcommand of a Bash line does; one that might match but cannot be
 * checked (an expansion, a line that does not parse) makes the call ask. Allow is `allowSignal`.
 */
function ruleSignal(rules: readonly CompiledRule[], alsoAllowing: readonly CompiledRule[], call: RuleCall, label: string): PermissionSignal | undefined {
  const signal = (verdict: Verdict, rule: PermissionRule, why = `${verdict} ${label} ${rule.text}`) => ({ verdict, source: `${label} ${rule.text}`, reason: why });
  const matches = (verdict: Verdict) => rules.filter((r) => r.verdict === verdict).map((r) => ({ rule: r.rule, match: anyViewMatch(r.rule, call) }));
  const denies = matches('deny');
  const deny = denies.find((m) => m.match === 'match') ?? bashWriteDenied(rules, call);
  if (deny) return signal('deny', deny.rule);
  const unsure = denies.find((m) => m.match === 'unparseable');
  if (unsure) return signal('ask', unsure.rule, `cannot tell whether deny ${label} ${unsure.rule.text} matches this command: a person decides`);
  const ask = matches('ask').find((m) => m.match !== 'no-match');
  if (ask) return signal('ask', ask.rule);
  return allowSignal(rules, alsoAllowing, call, label);
}

function allowSignal(rules: readonly CompiledRule[], alsoAllowing: readonly CompiledRule[], call: RuleCall, label: string): PermissionSignal | undefined {
  const allows = rules.filter((r) => r.verdict === 'allow');
  if (call.toolName !== 'Bash') {
    // Both views must match: `src/link -> ../secrets` is not granted by Edit(src/**).
    const hit = allows.find((r) => views(call).every((v) => matchPermissionRule(r.rule, call.toolName, v.input, v.cwd) === 'match'));
    return hit && { verdict: 'allow', source: `${label} ${hit.rule.text}`, reason: `allow ${label} ${hit.rule.text}` };
  }
  const bashRules = [...allows, ...alsoAllowing.filter((r) => r.verdict === 'allow')].filter((r) => ruleCoversTool(r.rule, 'Bash'));
  if (typeof call.input.command !== 'string' || !allows.some((r) => ruleCoversTool(r.rule, 'Bash'))) return undefined;
  const analysis = analyzeBashCommand(call.input.command);
  const granted = bashAllowedBy(bashRules.map((r) => r.rule.pattern), analysis);
  if (!granted.allowed || analysis.kind !== 'parsed') return undefined;
  // The bare `Bash` rule grants `cp` and `tee` anyway: inside the workspace, its redirections are no different.
  if (redirectWritesProblem(analysis, granted.writes, call.scope, granted.anyCommand ? () => true : call.editAllowed) !== undefined) return undefined;
  // Named in the audit: the rules that match some subcommand.
  const texts = bashRules.filter((r) => matchPermissionRule(r.rule, 'Bash', call.input, call.cwd) === 'match').map((r) => r.rule.text).join(', ');
  return { verdict: 'allow', source: `${label} ${texts}`, reason: `allow ${label} ${texts}` };
}

function views(call: RuleCall): Array<{ input: Record<string, unknown>; cwd: string }> {
  return call.physical ? [call, call.physical] : [call];
}

/** Deny and ask rules for files match the path as given or as resolved: a symlink does not get around them. */
function anyViewMatch(rule: PermissionRule, call: RuleCall): RuleMatch {
  const results = views(call).map((v) => matchPermissionRule(rule, call.toolName, v.input, v.cwd));
  return results.includes('match') ? 'match' : results.includes('unparseable') ? 'unparseable' : 'no-match';
}

function physicalView(tool: Tool, input: Record<string, unknown>, ctx: GateContext, settings: PermissionSettings): RuleCall['physical'] {
  const target = tool.target?.(input);
  if (target === undefined) return undefined;
  try {
    const physical = resolveInWorkspace(target, { workspaceRoot: ctx.workspaceRoot, cwd: ctx.cwd, additionalDirectories: settings.additionalDirectories });
    return { input: { ...input, file_path: physical, path: physical, notebook_path: physical }, cwd: physicalPath(ctx.cwd) };
  } catch {
    // Outside the workspace: the system check denies it anyway.
    return undefined;
  }
}

/** A Bash redirection writes a file: an Edit or Write deny rule for that file denies the line. */
function bashWriteDenied(rules: readonly CompiledRule[], call: RuleCall): { rule: PermissionRule } | undefined {
  if (call.toolName !== 'Bash' || typeof call.input.command !== 'string') return undefined;
  const analysis = analyzeBashCommand(call.input.command);
  if (analysis.kind !== 'parsed') return undefined;
  const targets = analysis.redirects.flatMap((r) => (r.write && r.target !== undefined ? [toAbsolutePath(r.target, call.cwd)] : []));
  return rules.find((r) => r.verdict === 'deny' && targets.some((file) => editRuleMatches(r.rule, file, call.cwd)));
}

function editRuleMatches(rule: PermissionRule, file: string, cwd: string): boolean {
  return ['Edit', 'Write'].some((tool) => matchPermissionRule(rule, tool, { file_path: file }, cwd) === 'match');
}

function ruleCoversTool(rule: PermissionRule, toolName: string): boolean {
  return matchPermissionRule({ tool: rule.tool, text: rule.text }, toolName, {}, '/') === 'match';
}

export function implicitVerdict(mode: PermissionMode, category: ToolCategory): PermissionSignal {
  if (mode === 'bypassPermissions') return { verdict: 'allow', source: 'bypassPermissions mode', reason: 'bypassPermissions mode' };
  if (category === 'read' || category === 'meta') return { verdict: 'allow', source: 'read-only tool', reason: 'read-only tools need no approval' };
  if (category === 'edit' && mode === 'acceptEdits') return { verdict: 'allow', source: 'acceptEdits mode', reason: 'acceptEdits mode allows file edits' };
  return { verdict: 'ask', source: `${mode} mode`, reason: `${category === 'edit' ? 'file edits' : 'commands'} need approval in ${mode} mode` };
}

/** The rule "Allow for this session" adds: the exact command for Bash, the tool otherwise. */
export function suggestedRule(toolName: string, input: Record<string, unknown>): string {
  if (toolName === 'Bash' && typeof input.command === 'string') return `Bash(${input.command.replace(/[()]/g, '*')})`;
  return toolName;
}
