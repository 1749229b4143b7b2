import path from 'node:path';
import picomatch from 'picomatch';
import { builtinToolInfo, type ToolAccess } from '../agent/tools/tool-catalog';
import { bashRuleMatches } from './bash-rules';
import { wildcardMatch } from './wildcard';

/**
 * Claude Code's permission-rule syntax, `Tool` or `Tool(pattern)`: used by allow/deny/ask
 * rules and by a hook's `if` filter. `matchPermissionRule` says whether a rule matches ANY
 * subcommand of a Bash line (deny, ask, `if`); whether allow rules grant a whole line is
 * `bashAllowedBy`'s question (bash-rules.ts). File tools match a path pattern read as Claude Code
 * reads it (matchPathPattern).
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

/** Where a file rule's pattern starts: `x` at the cwd, `/x` at the project root, `~/x` at the home folder. */
export interface RulePlaces {
  cwd: string;
  projectRoot: string;
  home: string;
}

export function matchPermissionRule(rule: PermissionRule, toolName: string, input: Record<string, unknown>, places: RulePlaces): RuleMatch {
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
      return searchTargets(access.globKey, input).some((t) => matchPathPattern(pattern, t, places)) ? 'match' : 'no-match';
    case 'file': {
      const target = input[access.pathKey];
      if (typeof target !== 'string') return 'no-match';
      return matchPathPattern(pattern, { path: target, folder: false }, places) ? 'match' : 'no-match';
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

/**
 * The readings a guard (a deny or ask rule, a hook's `if`) takes: the rule, and for a `/x`
 * pattern also `//x`. Claude Code reads `/x` from the project root; Hookpilot read it from the
 * filesystem root before, and a guard written for that (`Read(/etc/**)`) must not stop guarding.
 * An allow rule takes only Claude Code's reading.
 */
export function guardReadings(rule: PermissionRule): PermissionRule[] {
  const pattern = rule.pattern;
  if (pattern === undefined || !pattern.startsWith('/') || pattern.startsWith('//') || rule.tool === 'Bash') return [rule];
  return [rule, { ...rule, pattern: `/${pattern}` }];
}

/** Whether a rule names this tool, whatever its pattern says about the call. */
export function ruleNamesTool(rule: PermissionRule, toolName: string): boolean {
  return toolMatches(rule.tool, toolName);
}

function toolMatches(ruleTool: string, toolName: string): boolean {
  if (ruleTool === '*') return true;
  return ruleTool.split('|').some((t) => {
    if (t.endsWith('*')) return toolName.startsWith(t.slice(0, -1));
    return t === toolName || isMcpServerOf(t, toolName) || sameAccess(t, toolName);
  });
}

/** A path a call reads or changes; `folder`: a search's directory, whose contents it reads. */
interface RuleTarget {
  path: string;
  folder: boolean;
}

/**
 * What a search reads, as rules see it: the directory it searches (the cwd when none is given)
 * and its glob or pattern below that directory (`Glob secrets/*` is `secrets/*`). An absolute
 * pattern stands alone, as the search tool reads it, and is matched as the path it names.
 */
function searchTargets(globKey: string, input: Record<string, unknown>): RuleTarget[] {
  const base = typeof input.path === 'string' && input.path !== '' ? input.path : '.';
  const glob = input[globKey];
  const folder = { path: base, folder: true };
  return typeof glob === 'string' && glob !== ''
    ? [folder, { path: path.isAbsolute(glob) ? glob : path.join(base, glob), folder: false }]
    : [folder];
}

/** Claude Code: `mcp__memory` names every tool of the server memory (whose name holds no `__`). */
function isMcpServerOf(ruleTool: string, toolName: string): boolean {
  return /^mcp__[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/.test(ruleTool) && toolName.startsWith(`${ruleTool}__`);
}

/**
 * Claude Code reads a Read or Edit pattern as a gitignore line below a base: `//x` from the
 * filesystem root, `~/x` from the home folder, `/x` from the project root (not the root of the
 * filesystem), `x` or `./x` from the cwd. As in gitignore, `*` stays within a name and `**`
 * crosses folders, a pattern with no slash but a trailing one matches at any depth below its
 * base (`*.env` is also `config/prod.env`), a pattern matches a folder and everything in it
 * (`secrets` is also `secrets/a/key`), and one ending in `/` only a folder's contents. A target
 * outside the base never matches.
 */
function matchPathPattern(pattern: string, target: RuleTarget, places: RulePlaces): boolean {
  const { base, glob, anchored } = patternBase(pattern, places);
  const absolute = path.resolve(places.cwd, expandHome(target.path, places.home));
  const relative = path.relative(base, absolute);
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return false;
  const folderOnly = glob.endsWith('/');
  const body = glob.replace(/\/+$/, '');
  // `~` or `//` alone: the whole base.
  if (body === '') return true;
  if (relative === '') return false;
  const isMatch = picomatch(anchored || body.includes('/') ? body : `**/${body}`, { dot: true });
  const names = relative.split(path.sep);
  // The target itself, then each folder it is in.
  const deepest = folderOnly && !target.folder ? names.length - 1 : names.length;
  for (let n = deepest; n > 0; n--) if (isMatch(names.slice(0, n).join('/'))) return true;
  return false;
}

/** A pattern's base folder, the pattern below it, and whether it is anchored there (not at any depth). */
function patternBase(pattern: string, places: RulePlaces): { base: string; glob: string; anchored: boolean } {
  const start = startOf(pattern, places);
  // `../x` (no gitignore form) names the folder above, not nothing: a deny rule must not fail open.
  const up = /^(?:\.\.\/)+/.exec(start.glob)?.[0] ?? '';
  return up === '' ? start : { base: path.resolve(start.base, up), glob: start.glob.slice(up.length), anchored: true };
}

function startOf(pattern: string, places: RulePlaces): { base: string; glob: string; anchored: boolean } {
  if (pattern.startsWith('//')) return { base: '/', glob: pattern.replace(/^\/+/, ''), anchored: true };
  if (pattern === '~' || pattern.startsWith('~/')) return { base: places.home, glob: pattern.slice(2), anchored: true };
  if (pattern.startsWith('/')) return { base: places.projectRoot, glob: pattern.slice(1), anchored: true };
  if (pattern.startsWith('./')) return { base: places.cwd, glob: pattern.slice(2), anchored: true };
  return { base: places.cwd, glob: pattern, anchored: false };
}

/** A tool reads `~/x` as a file in the home folder (toAbsolutePath). */
function expandHome(target: string, home: string): string {
  return target === '~' || target.startsWith('~/') ? path.join(home, target.slice(1)) : target;
}
