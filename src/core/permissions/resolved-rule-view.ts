import { physicalPath } from '../agent/tools/workspace-paths';

/** A tool call as a rule matches it: the input, and the cwd its relative paths start from. */
export interface RuleView {
  input: Record<string, unknown>;
  cwd: string;
}

/**
 * A file or search tool's call with its path resolved (`physical`, every symlink followed) and
 * the physical cwd. Deny and ask rules, and a hook's `if`, match this view as well as the call
 * as given, so a link does not get around them. Throws when the cwd cannot be resolved.
 */
export function resolvedRuleView(input: Record<string, unknown>, physical: string, cwd: string): RuleView {
  return { input: { ...input, file_path: physical, path: physical, notebook_path: physical }, cwd: physicalPath(cwd) };
}
