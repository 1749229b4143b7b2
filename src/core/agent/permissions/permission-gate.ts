import { analyzeBashCommand } from '../../permissions/bash-command';
import { guardReadings, parsePermissionRule, type RulePlaces } from '../../permissions/permission-rule';
import { resolvedRuleView } from '../../permissions/resolved-rule-view';
import { resolvePermission, type PermissionResolution, type PermissionSignal } from '../../permissions/precedence';
import { HOLE, literalPattern } from '../../permissions/wildcard';
import type { Tool, ToolCategory } from '../tools/tool';
import { isShellTool } from '../tools/tool-catalog';
import { OutsideWorkspaceError, resolveInWorkspace } from '../tools/workspace-paths';
import { mcpServerOf } from '../../mcp/mcp-names';
import { bashProtectedCheck } from './bash-gate';
import { mcpProtectedCheck } from './mcp-arguments-gate';
import type { PermissionMode, PermissionSettings } from './permission-settings';
import { protectedTargetOf, protectedTargets, type ProtectedTarget } from './protected-targets';
import { compileRules, editRuleMatches, ruleSignal, type CompiledRule, type RuleCall } from './rule-signals';
import { errorMessage } from '../../error-message';
import { inGitFolder, isWorkspaceFile, WORKSPACE_FILE_REASON } from '../../engine/protected-names';
import { additionalDirectoryFiles } from './workspace-directories';

export interface GateContext {
  workspaceRoot: string;
  cwd: string;
  /** The user's home folder: where a rule's `~/` starts. */
  home: string;
  /** Files the agent may only change with a person's approval (hook configs and scripts). */
  protectedPaths: readonly string[];
  /**
   * Hookpilot's own storage folders (other sessions' transcripts, audit logs): besides
   * changes, reading them asks a person too. They are in `protectedPaths` as well.
   */
  privatePaths?: readonly string[];
}

/**
 * Collects the permission signals for one tool call (system checks, settings rules,
 * session rules, the hook verdict, the mode) and resolves them with P0-P8.
 */
export class PermissionGate {
  private sessionRules: CompiledRule[] = [];

  /** `onSessionDeny`: hears each "Deny for this session" rule, for the session to keep it across a resume. */
  constructor(
    private readonly settings: () => PermissionSettings,
    private readonly onSessionDeny?: (ruleText: string) => void,
  ) {}

  allowForSession(ruleText: string): void {
    const rule = parsePermissionRule(ruleText);
    if (rule) this.sessionRules.push({ verdict: 'allow', rule });
  }

  /** P2: final for this session; no hook, mode or later allow can turn it around. */
  denyForSession(ruleText: string): void {
    if (this.addSessionDeny(ruleText)) this.onSessionDeny?.(ruleText);
  }

  /** A deny rule the session kept from before a resume: in force again, not heard again. */
  restoreSessionDeny(ruleText: string): void {
    this.addSessionDeny(ruleText);
  }

  private addSessionDeny(ruleText: string): boolean {
    const rule = parsePermissionRule(ruleText);
    // A hook names paths as tool input gives them, absolute: guardReadings keeps that reading of `/x`.
    if (rule) for (const reading of guardReadings(rule)) this.sessionRules.push({ verdict: 'deny', rule: reading });
    return rule !== undefined;
  }

  /**
   * `checkedTarget`: the physical path a file tool's target resolved to when it was checked. The
   * tool must act on that file: a link swapped after the check (while a person read the prompt)
   * would make the approved call change another file, unchecked.
   */
  evaluate(
    tool: Tool,
    input: Record<string, unknown>,
    hook: PermissionSignal | undefined,
    ctx: GateContext,
  ): PermissionResolution & { checkedTarget?: string } {
    try {
      return this.resolve(tool, input, hook, ctx);
    } catch (error) {
      // A check that breaks on what the model wrote has shown nothing to be safe: the call is denied, the session goes on.
      return {
        verdict: 'deny',
        source: 'permission check',
        reason: `the permission check failed: ${errorMessage(error)}`,
        level: 'P0',
        system: true,
      };
    }
  }

  private resolve(
    tool: Tool,
    input: Record<string, unknown>,
    hook: PermissionSignal | undefined,
    ctx: GateContext,
  ): PermissionResolution & { checkedTarget?: string } {
    const settings = this.settings();
    const checked: { target?: string } = {};
    const settingsRules = compileRules(settings);
    const allRules = [...settingsRules, ...this.sessionRules];
    const places = rulePlaces(ctx);
    const call: RuleCall = {
      toolName: tool.name,
      input,
      places,
      physical: physicalView(tool, input, ctx, settings),
      scope: { workspaceRoot: ctx.workspaceRoot, cwd: ctx.cwd, additionalDirectories: settings.additionalDirectories },
      // A Bash redirection is allowed where an Edit of its target would be.
      editAllowed: (file) =>
        settings.mode === 'acceptEdits' || allRules.some((r) => r.verdict === 'allow' && editRuleMatches(r.rule, file, places)),
    };
    const system = this.systemCheck(tool, input, settings, ctx, checked);
    const resolution = resolvePermission({
      system,
      toolRule: ruleSignal(settingsRules, [], call, 'rule'),
      // Allow rules combine: a Bash line may be granted partly by settings, partly by this session.
      sessionRule: ruleSignal(this.sessionRules, settingsRules, call, 'session rule'),
      hook,
      implicit: implicitVerdict(settings.mode, tool.category),
    });
    return checked.target === undefined ? resolution : { ...resolution, checkedTarget: checked.target };
  }

  private systemCheck(
    tool: Tool,
    input: Record<string, unknown>,
    settings: PermissionSettings,
    sessionCtx: GateContext,
    checked: { target?: string } = {},
  ): PermissionSignal | undefined {
    const ctx = {
      ...sessionCtx,
      protectedPaths: [...sessionCtx.protectedPaths, ...additionalDirectoryFiles(settings.additionalDirectories)],
    };
    if (settings.mode === 'plan' && (tool.category === 'edit' || tool.category === 'execute')) {
      return { verdict: 'deny', source: 'plan mode', reason: 'plan mode is read-only: no edits or commands' };
    }
    const targets = () => protectedTargets(ctx.protectedPaths, ctx.workspaceRoot, settings.additionalDirectories);
    if (isShellTool(tool.name) && typeof input.command === 'string') return bashProtectedCheck(input.command, ctx.cwd, targets());
    if (mcpServerOf(tool.name) !== undefined) return mcpPathsCheck(tool, input, ctx, targets);
    const target = tool.target?.(input);
    if (target === undefined) return undefined;
    const scope = { workspaceRoot: ctx.workspaceRoot, cwd: ctx.cwd, additionalDirectories: settings.additionalDirectories };
    let physical: string;
    try {
      physical = resolveInWorkspace(target, scope);
    } catch (err) {
      if (err instanceof OutsideWorkspaceError) return { verdict: 'deny', source: 'workspace boundary', reason: err.message };
      // A path that cannot be resolved (a symlink loop) cannot be shown to be inside.
      return { verdict: 'deny', source: 'workspace boundary', reason: errorMessage(err) };
    }
    checked.target = physical;
    // Compared by physical path: `vs/hooks.json` with `vs -> .vscode` is .vscode/hooks.json.
    if (tool.category !== 'edit') return privateRecords(physical, ctx, 'reading');
    const hit = protectedTargetOf(physical, ctx.cwd, targets());
    const reason = `${hit?.shown} configures hooks: a person must approve changes to it`;
    return (
      privateRecords(physical, ctx, 'changes to') ??
      (hit && { verdict: 'ask', source: 'protected file', reason }) ??
      protectedName(physical, target)
    );
  }
}

/**
 * An MCP call's path arguments: Hookpilot's storage is no server's to read either (a read-only
 * tool included), and the protected files are no server's to change.
 */
function mcpPathsCheck(
  tool: Tool,
  input: Record<string, unknown>,
  ctx: GateContext,
  targets: () => readonly ProtectedTarget[],
): PermissionSignal | undefined {
  // The folders between the storage and the workspace root are targets too, but listing them shows no record.
  const storage = protectedTargets(ctx.privatePaths ?? [], ctx.workspaceRoot).filter((target) => target.folder);
  const reading = mcpProtectedCheck(input, ctx, {
    targets: storage,
    reason: (hit) => `${hit.shown} holds Hookpilot's session records: a person must approve an MCP call that names it`,
  });
  if (reading || tool.readsOnly) return reading;
  return mcpProtectedCheck(input, ctx, {
    targets: targets(),
    reason: (hit) => `${hit.shown} configures hooks: a person must approve an MCP call that names it`,
    protectedName: (candidate) => protectedName(candidate, candidate)?.reason,
  });
}

/** A path protected by what it is called wherever it lies: a `.git` folder's, a VS Code workspace file. */
function protectedName(physical: string, shown: string): PermissionSignal | undefined {
  const reason = inGitFolder(physical)
    ? `${shown} is a git repository's own folder, whose hooks and config run commands outside every hook: a person must approve changes to it`
    : isWorkspaceFile(physical)
      ? `${shown} is ${WORKSPACE_FILE_REASON}`
      : undefined;
  return reason === undefined ? undefined : { verdict: 'ask', source: 'protected file', reason };
}

/** A file in Hookpilot's storage: a transcript `--resume` loads, another session's log; no file for the model. */
function privateRecords(physical: string, ctx: GateContext, access: 'reading' | 'changes to'): PermissionSignal | undefined {
  const hit = protectedTargetOf(physical, ctx.cwd, protectedTargets(ctx.privatePaths ?? [], ctx.workspaceRoot));
  // The folders between it and the workspace root are targets too, but listing them shows no record.
  if (!hit?.folder) return undefined;
  return {
    verdict: 'ask',
    source: 'protected file',
    reason: `${hit.shown} holds Hookpilot's session records: a person must approve ${access} it`,
  };
}

/** Where the call's rules start: `x` at its cwd, `/x` at the workspace root, `~/x` at the home folder. */
function rulePlaces(ctx: GateContext): RulePlaces {
  return { cwd: ctx.cwd, projectRoot: ctx.workspaceRoot, home: ctx.home };
}

/** A file tool's input with its path resolved, for rules to match both. */
function physicalView(tool: Tool, input: Record<string, unknown>, ctx: GateContext, settings: PermissionSettings): RuleCall['physical'] {
  const target = tool.target?.(input);
  if (target === undefined) return undefined;
  try {
    const scope = { workspaceRoot: ctx.workspaceRoot, cwd: ctx.cwd, additionalDirectories: settings.additionalDirectories };
    return resolvedRuleView(input, resolveInWorkspace(target, scope), rulePlaces(ctx));
  } catch {
    // Outside the workspace: the system check denies it anyway.
    return undefined;
  }
}

export function implicitVerdict(mode: PermissionMode, category: ToolCategory): PermissionSignal {
  if (mode === 'bypassPermissions') return { verdict: 'allow', source: 'bypassPermissions mode', reason: 'bypassPermissions mode' };
  if (category === 'read' || category === 'meta')
    return { verdict: 'allow', source: 'read-only tool', reason: 'read-only tools need no approval' };
  if (category === 'edit' && mode === 'acceptEdits')
    return { verdict: 'allow', source: 'acceptEdits mode', reason: 'acceptEdits mode allows file edits' };
  return {
    verdict: 'ask',
    source: `${mode} mode`,
    reason: `${category === 'edit' ? 'file edits' : 'commands'} need approval in ${mode} mode`,
  };
}

/**
 * The rule "Allow for this session" / "Always allow" adds: for Bash, exactly the approved call
 * and nothing broader (a `*` in it is stored escaped, as a literal). A single simple command is
 * stored as allow rules read it (quoted where quoting changes what runs), so that it matches
 * itself again and no other word list: `rm 'a b'` never grants `rm a b`. Any other line
 * (compound, fed a here-doc or here-string, hiding code, not parseable, empty) is stored as its
 * exact text, which rules never match against a whole line: approving it grants nothing more
 * than that one call.
 */
export function suggestedRule(toolName: string, input: Record<string, unknown>): string {
  if (!isShellTool(toolName) || typeof input.command !== 'string') return toolName;
  const analysis = analyzeBashCommand(input.command);
  const simple = analysis.kind === 'parsed' && analysis.hidden.length === 0 && analysis.commands.length === 1;
  const only = simple ? analysis.commands[0] : undefined;
  // A here-string (`bash <<< 'echo hi'`) is not in the words, so not in the rule; a redirection's
  // file is checked again on each call (as an edit, or a read outside the workspace).
  const faithful = only && !only.dynamicName && only.stdin === undefined && !only.words.join(' ').includes(HOLE);
  const text = faithful ? only.spelled.join(' ') : input.command;
  // `Bash()` would be the bare rule, every command: an empty line is stored as a command that does nothing.
  return `${toolName}(${text.trim() === '' ? ':' : literalPattern(text)})`;
}
