import path from 'node:path';
import picomatch from 'picomatch';
import { parse as parseShell } from 'shell-quote';

/**
 * Claude Code's permission-rule syntax, `Tool` or `Tool(pattern)`: used by allow/deny/ask
 * rules and by a hook's `if` filter. Bash patterns match each subcommand (`&&`, `;`, `|`)
 * with leading `VAR=value` stripped; file tools match a path glob relative to the cwd.
 */
export interface PermissionRule {
  tool: string;
  pattern?: string;
  text: string;
}

const RULE = /^([A-Za-z0-9_*|-]+)(?:\((.*)\))?$/s;
const FILE_TOOLS = new Set(['Read', 'Write', 'Edit', 'Glob', 'Grep', 'NotebookEdit']);
const PATH_KEYS = ['file_path', 'path', 'notebook_path'];

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
  if (toolName === 'Bash') {
    const command = typeof input.command === 'string' ? input.command : undefined;
    if (command === undefined) return 'no-match';
    return matchBashPattern(rule.pattern, command);
  }
  if (FILE_TOOLS.has(toolName)) {
    const target = PATH_KEYS.map((k) => input[k]).find((v): v is string => typeof v === 'string');
    if (target === undefined) return 'no-match';
    return matchPathPattern(rule.pattern, target, cwd) ? 'match' : 'no-match';
  }
  // Other tools: the pattern is a glob over the JSON of the input.
  return wildcardRegex(rule.pattern).test(JSON.stringify(input)) ? 'match' : 'no-match';
}

function toolMatches(ruleTool: string, toolName: string): boolean {
  if (ruleTool === '*') return true;
  return ruleTool.split('|').some((t) => (t.endsWith('*') ? toolName.startsWith(t.slice(0, -1)) : t === toolName));
}

/** `git *` matches `git push`; `git status*` matches `git status -s`; `*` is any run of characters. */
function wildcardRegex(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  // `npm run test:*` (legacy prefix form) means the same as `npm run test*`.
  return new RegExp(`^${escaped.replace(/:\.\*$/, '.*')}$`, 's');
}

export function splitBashCommand(command: string): string[] | undefined {
  let tokens: ReturnType<typeof parseShell>;
  try {
    tokens = parseShell(command, (name) => `$${name}`);
  } catch {
    return undefined;
  }
  const commands: string[] = [];
  let current: string[] = [];
  const flush = () => {
    // Leading VAR=value assignments are not part of the command name.
    while (current.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(current[0])) current.shift();
    if (current.length > 0) commands.push(current.join(' '));
    current = [];
  };
  for (const token of tokens) {
    if (typeof token === 'string') current.push(token);
    else if ('op' in token) {
      if (token.op === 'glob') current.push((token as { pattern: string }).pattern);
      else flush();
    } else if ('comment' in token) flush();
  }
  flush();
  return commands;
}

function matchBashPattern(pattern: string, command: string): RuleMatch {
  const subcommands = splitBashCommand(command);
  if (subcommands === undefined || subcommands.length === 0) return 'unparseable';
  const regex = wildcardRegex(pattern);
  return subcommands.some((c) => regex.test(c)) ? 'match' : 'no-match';
}

function matchPathPattern(pattern: string, target: string, cwd: string): boolean {
  const absolute = path.resolve(cwd, target);
  const relative = path.relative(cwd, absolute);
  const glob = pattern.startsWith('//') ? pattern.slice(1) : pattern;
  if (path.isAbsolute(glob)) return picomatch.isMatch(absolute, glob, { dot: true });
  return picomatch.isMatch(relative, glob.replace(/^\.\//, ''), { dot: true });
}
