import { parsePermissionRule } from '../core/permissions/permission-rule';
import { usageError } from './cli-error';

/**
 * Splits `--allowed-tools "Read,Bash(git *)"` into rules: commas and spaces separate
 * entries except inside parentheses, where they belong to the pattern.
 */
export function splitToolList(text: string, flag: string): string[] {
  const rules: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
      if (current.trim()) rules.push(current.trim());
      current = '';
      continue;
    }
    current += ch;
  }
  if (depth > 0) throw usageError(`${flag}: unbalanced parentheses in "${text}"`);
  if (current.trim()) rules.push(current.trim());
  for (const rule of rules) {
    if (!parsePermissionRule(rule)) throw usageError(`${flag}: "${rule}" is not a tool name or a rule like Bash(git *)`);
  }
  return rules;
}

/** Entries without a pattern name whole tools, which can be withheld from the model. */
export function plainToolNames(rules: readonly string[]): string[] {
  return rules.filter((rule) => /^[A-Za-z0-9_-]+$/.test(rule));
}
