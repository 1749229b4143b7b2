import path from 'node:path';
import picomatch from 'picomatch';
import { builtinToolInfo, type ToolAccess } from '../agent/tools/tool-catalog';
import { bashRuleMatches } from './bash-rules';
import { wildcardMatch } from './wildcard';

/**
 * Claude Code's permission-rule syntax, `Tool` or `Tool(pattern)`: used by allow/deny/ask
 * rules and by a hook's `if` filter. `matchPermissionRule` says whether a rule matches ANY
 * subcommand of a Bash line (deny, ask, `if`); whether allow rules grant a whole line is
 * `bashAllowedBy`'s question (bash-rules.ts). File tools match a path glob relative to the cwd.
 */
export interface PermissionRule {
  tool: string;
  pattern?: string;
  text: string;
}

const RULE = /^([A-Za-z0-9_*|-]+)(?:\((.*)\))?$/s;

export function parsePermissionRule(text: string): PermissionRule | undefined {
  const m = RULE.exec(text.trim());
  if (!m) return undefined;
  const pattern = m[2]?.trim();
  return { tool: m[1], pattern: pattern === '' || pattern === '*' ? undefined : pattern, text };
}

export type RuleMatch = 'match' | 'no-match' | 'unparseable';

export function matchPermissionRule(rule: PermissionRule, toolName: string, input: Record<string, unknown>, cwd: string): RuleMatch {
  if (!toolMatches(rule.tool, toolName)) return 'no-match';
  if (rule.pattern === undefined) return 'match';
  const pattern = rule.pattern;
  const access: ToolAccess = builtinToolInfo(toolName)?.access ?? { kind: 'other' };
  switch (access.kind) {
    case 'shell': {
      const command = typeof input.command === 'string' ? input.command : undefined;
      if (command === undefined) return 'no-match';
      return bashRuleMatches(pattern, command);
    }
    case 'search':
      return searchTargets(access.globKey, input).some((t) => matchPathPattern(pattern, t, cwd)) ? 'match' : 'no-match';
    case 'file': {
      const target = input[access.pathKey];
      if (typeof target !== 'string') return 'no-match';
      return matchPathPattern(pattern, target, cwd) ? 'match' : 'no-match';
    }
    case 'other':
      // The pattern is a glob over the JSON of the input.
      return wildcardMatch(pattern, JSON.stringify(input)) ? 'match' : 'no-match';
  }
}

/**
 * As in Claude Code, a file rule names a kind of access, not one tool: `Read(...)` covers the
 * search tools, `Edit(...)` and `Write(...)` every tool that changes a file.
 */
function sameAccess(ruleTool: string, toolName: string): boolean {
  const ruled = builtinToolInfo(ruleTool)?.access;
  const access = builtinToolInfo(toolName)?.access;
  if (ruled?.kind !== 'file' || access === undefined) return false;
  return ruled.changes ? access.kind === 'file' && access.changes : access.kind === 'search';
}

function toolMatches(ruleTool: string, toolName: string): boolean {
  if (ruleTool === '*') return true;
  return ruleTool.split('|').some((t) => {
    if (t.endsWith('*')) return toolName.startsWith(t.slice(0, -1));
    return t === toolName || isMcpServerOf(t, toolName) || sameAccess(t, toolName);
  });
}

/**
 * What a search reads, as rules see it: the directory it searches (the cwd when none is given)
 * and its glob or pattern below that directory (`Glob secrets/*` is `secrets/*`). An absolute
 * pattern stands alone, as the search tool reads it, and is matched as the path it names.
 */
function searchTargets(globKey: string, input: Record<string, unknown>): string[] {
  const base = typeof input.path === 'string' && input.path !== '' ? input.path : '.';
  const glob = input[globKey];
  return typeof glob === 'string' && glob !== '' ? [base, path.isAbsolute(glob) ? glob : path.join(base, glob)] : [base];
}

/** Claude Code: `mcp__memory` names every tool of the server memory (whose name holds no `__`). */
function isMcpServerOf(ruleTool: string, toolName: string): boolean {
  return /^mcp__[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/.test(ruleTool) && toolName.startsWith(`${ruleTool}__`);
}

function matchPathPattern(pattern: string, target: string, cwd: string): boolean {
  const absolute = path.resolve(cwd, target);
  const relative = path.relative(cwd, absolute);
  const glob = pattern.startsWith('//') ? pattern.slice(1) : pattern;
  if (path.isAbsolute(glob)) return picomatch.isMatch(absolute, glob, { dot: true });
  return picomatch.isMatch(relative, glob.replace(/^\.\//, ''), { dot: true });
}
