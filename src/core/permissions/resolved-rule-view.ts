import { physicalPath } from '../agent/tools/workspace-paths';
import type { RulePlaces } from './permission-rule';

/** A tool call as a rule matches it: the input, and where its relative paths and the rules' patterns start. */
export interface RuleView {
  input: Record<string, unknown>;
  places: RulePlaces;
}

/**
 * A file or search tool's call with its path resolved (`physical`, every symlink followed) and
 * the places resolved likewise. Deny and ask rules, and a hook's `if`, match this view as well
 * as the call as given, so a link does not get around them. Throws when a place cannot be resolved.
 */
export function resolvedRuleView(input: Record<string, unknown>, physical: string, places: RulePlaces): RuleView {
  // The cwd is most often the project root: resolved once.
  const cwd = physicalPath(places.cwd);
  const projectRoot = places.projectRoot === places.cwd ? cwd : physicalPath(places.projectRoot);
  return {
    input: { ...input, file_path: physical, path: physical, notebook_path: physical },
    places: { cwd, projectRoot, home: physicalPath(places.home) },
  };
}
