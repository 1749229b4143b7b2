import path from 'node:path';
import { matchPermissionRule, parsePermissionRule, type PermissionRule } from '../../permissions/permission-rule';
import { resolvePermission, type PermissionResolution, type PermissionSignal, type Verdict } from '../../permissions/precedence';
import type { Tool, ToolCategory } from '../tools/tool';
import { OutsideWorkspaceError, resolveInWorkspace } from '../tools/workspace-paths';
import type { PermissionMode, PermissionSettings } from './permission-settings';

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
    return resolvePermission({
      system: this.systemCheck(tool, input, settings, ctx),
      toolRule: firstMatch(compile(settings), tool.name, input, ctx.cwd, 'rule'),
      sessionRule: firstMatch(this.sessionRules, tool.name, input, ctx.cwd, 'session rule'),
      hook,
      implicit: implicitVerdict(settings.mode, tool.category),
    });
  }

  private systemCheck(tool: Tool, input: Record<string, unknown>, settings: PermissionSettings, ctx: GateContext): PermissionSignal | undefined {
    if (settings.mode === 'plan' && (tool.category === 'edit' || tool.category === 'execute')) {
      return { verdict: 'deny', source: 'plan mode', reason: 'plan mode is read-only: no edits or commands' };
    }
    const target = tool.target?.(input);
    if (target === undefined) return undefined;
    let absolute: string;
    try {
      absolute = resolveInWorkspace(target, { workspaceRoot: ctx.workspaceRoot, cwd: ctx.cwd, additionalDirectories: settings.additionalDirectories });
    } catch (err) {
      if (err instanceof OutsideWorkspaceError) return { verdict: 'deny', source: 'workspace boundary', reason: err.message };
      throw err;
    }
    if (tool.category === 'edit' && ctx.protectedPaths.some((p) => path.resolve(p) === absolute)) {
      return { verdict: 'ask', source: 'protected file', reason: `${path.relative(ctx.workspaceRoot, absolute)} configures hooks: a person must approve changes to it` };
    }
    return undefined;
  }
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

/** Deny rules first, then ask, then allow: the strongest matching rule speaks. */
function firstMatch(rules: readonly CompiledRule[], toolName: string, input: Record<string, unknown>, cwd: string, label: string): PermissionSignal | undefined {
  for (const verdict of ['deny', 'ask', 'allow'] as const) {
    const hit = rules.find((r) => r.verdict === verdict && matchPermissionRule(r.rule, toolName, input, cwd) === 'match');
    if (hit) return { verdict, source: `${label} ${hit.rule.text}`, reason: `${verdict} ${label} ${hit.rule.text}` };
  }
  return undefined;
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
